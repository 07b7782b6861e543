import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcCode, RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { createChainLookups } from './chain-lookups.ts';

/**
 * A stranger's txid in a block the portal followed: one getrawtransaction in
 * that block, and nothing reported when the block has left the active chain
 * since (the tracker trails a reorganisation by a moment in production).
 */

const block = { hash: 'b'.repeat(64), height: 120 };
const txid = 'a'.repeat(64);

function nodeAnswering(answer: () => unknown) {
  const calls: unknown[][] = [];
  const rpc = {
    call: async <T>(method: string, params: unknown[] = []) => {
      calls.push([method, ...params]);
      return answer() as T;
    },
  } as RpcClient;
  return { node: createChainLookups(rpc), calls };
}

test('in the block, in the active chain: mined at the height the portal followed, from one call reading that block', async () => {
  const { node, calls } = nodeAnswering(() => ({ size: 200, vsize: 150, weight: 600, fee: 0.00001, blockhash: block.hash, blocktime: 1_700_000_000, confirmations: 3, in_active_chain: true }));
  const mined = await node.minedInFollowed(txid, block);
  assert.equal(mined?.height, 120);
  assert.equal(mined?.tx.blockhash, block.hash);
  assert.deepEqual(calls, [['getrawtransaction', txid, 2, block.hash]]);
});

test('in a block a reorganisation took out of the chain, or not in it at all: nothing', async () => {
  const orphaned = nodeAnswering(() => ({ size: 200, vsize: 150, weight: 600, blockhash: block.hash, confirmations: 0, in_active_chain: false }));
  assert.equal(await orphaned.node.minedInFollowed(txid, block), undefined);
  const absent = nodeAnswering(() => {
    throw new RpcError('getrawtransaction', RpcCode.INVALID_ADDRESS_OR_KEY, 'No such transaction found in the provided block.');
  });
  assert.equal(await absent.node.minedInFollowed(txid, block), undefined);
  assert.equal(orphaned.calls.length + absent.calls.length, 2);
});
