import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RpcClient } from '../../bitcoin/rpc-client.ts';
import { explainRejectReason } from '../../bitcoin/reject-reasons.ts';
import { createPrivateConflicts } from './private-conflicts.ts';

/** An RPC client that must not be asked: a chain-limit refusal is worded without looking at the mempool. */
const unused: RpcClient = {
  call: () => Promise.reject(new Error('the node was asked')),
  batch: () => Promise.reject(new Error('the node was asked')),
  wallet: () => unused,
};

test('a chain-limit refusal is told by its code alone: the sizes and counts would measure private relatives', async () => {
  const conflicts = createPrivateConflicts({ rpc: unused, portalTxids: () => Promise.resolve(new Set()) });
  const worded = [
    `too-long-mempool-chain, exceeds descendant size limit for tx ${'ab'.repeat(32)} [limit: 101000]`,
    'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]',
    'package-mempool-limits, exceeds ancestor size limit [limit: 101000]',
    'too-large-cluster, 65 > 64',
  ];
  for (const reason of worded) {
    const { message, staffDetail } = await conflicts.publicReason(reason, []);
    const code = reason.split(',')[0]!;
    assert.equal(message, explainRejectReason(code));
    assert.doesNotMatch(message, /\d/, 'no size, count or txid');
    assert.equal(staffDetail, reason, 'staff keep the node\'s words');
  }
});
