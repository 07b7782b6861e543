import { test } from 'node:test';
import assert from 'node:assert/strict';
import { thresholdRate } from '../pricing/fee-math.ts';
import type { PortalSettings } from '../settings/settings.store.ts';
import type { StatusResponse } from '../status/status.schemas.ts';
import { chainName, explorerStatusOf, packageMembers, ratesOf, type Quote } from './slipstream-api.mapping.ts';

const settings = { feeRateFloor: 2, multiplier: 3 } as PortalSettings;
const snapshot = { marketRate: 4, minRelayRate: 1, nextBlockFull: true, height: 101, publishedAt: 0 } as unknown as Quote['snapshot'];
const quote = (discount: Quote['discount']): Quote => ({
  settings,
  snapshot,
  discount,
  threshold: thresholdRate({ feeRateFloor: 2, multiplier: 3, marketRate: 4, discountPercentage: discount.kind === 'applied' ? discount.discountPercentage : 0 }),
});

test('rates: the discount lowers the multiplier; effective_rate is the threshold, never below the floor', () => {
  assert.deepEqual(ratesOf(quote({ kind: 'none' })), {
    market_rate: 4, multiplier: 3, multiplier_discount_percent: 0, discounted_multiplier: 3, submit_fee_rate: 2, slipstream_rate: 12, effective_rate: 12,
  });
  const half = ratesOf(quote({ kind: 'applied', code: 'A', discountCodeId: 1, discountPercentage: 50 }));
  assert.deepEqual([half.multiplier_discount_percent, half.discounted_multiplier, half.slipstream_rate, half.effective_rate], [50, 1.5, 6, 6]);
  const deep = ratesOf(quote({ kind: 'applied', code: 'B', discountCodeId: 2, discountPercentage: 90 }));
  assert.ok(Math.abs(deep.slipstream_rate - 1.2) < 1e-9);
  assert.equal(deep.effective_rate, 2, 'the floor rules');
  assert.equal(ratesOf(quote({ kind: 'refused', code: 'C', notice: 'Client code C has expired; no discount was applied.' })).notice, 'Client code C has expired; no discount was applied.');
});

test('chain names as the public service reports them', () => {
  assert.deepEqual(['mainnet', 'testnet', 'testnet4', 'signet', 'regtest'].map(chainName), ['bitcoin', 'testnet', 'testnet4', 'signet', 'regtest']);
});

test('explorer status: the block fields only once confirmed', () => {
  const answer = (status: StatusResponse['transaction']['status']) => ({ transaction: { status } }) as StatusResponse;
  assert.deepEqual(explorerStatusOf(answer({ confirmed: false, block_hash: null, block_height: null, block_time: null })), { confirmed: false });
  assert.deepEqual(explorerStatusOf(answer({ confirmed: true, block_hash: 'h', block_height: 7, block_time: 99 })), { confirmed: true, block_height: 7, block_hash: 'h', block_time: 99 });
});

test('package members in package order, each accepted or refused with the node\'s reason', () => {
  const members = packageMembers({ package_msg: 'transaction failed', 'tx-results': { w1: { txid: 't1' }, w2: { txid: 't2', error: 'mandatory-script-verify-flag-failed' } } });
  assert.deepEqual(members, [
    { txid: 't1', wtxid: 'w1', status: 'success', message: 'accepted' },
    { txid: 't2', wtxid: 'w2', status: 'error', message: 'mandatory-script-verify-flag-failed' },
  ]);
});
