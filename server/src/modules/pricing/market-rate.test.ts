import { test } from 'node:test';
import assert from 'node:assert/strict';
import { btcPerKvbToSatPerVb, summariseTemplate } from './market-rate.ts';

const mempool = (size: number) => ({ size, minrelaytxfee: 0.00001, mempoolminfee: 0.00001 });

test('converts BTC/kvB to sat/vB without float noise', () => {
  assert.equal(btcPerKvbToSatPerVb(0.00001), 1);
  assert.equal(btcPerKvbToSatPerVb(0.00000100), 0.1);
  assert.equal(btcPerKvbToSatPerVb(0.00012345), 12.345);
});

test('a next block with room prices at the relay minimum', () => {
  const snap = summariseTemplate({ height: 102, transactions: [{ txid: 'a', fee: 5000, weight: 800 }] }, mempool(1), 0);
  assert.equal(snap.nextBlockFull, false);
  assert.equal(snap.marketRate, 1);
  assert.deepEqual([...snap.nextBlockTxids], ['a']);
});

test('a full next block prices at its lowest included rate', () => {
  const big = Array.from({ length: 10 }, (_, i) => ({ txid: `t${i}`, fee: 400_000 * (i + 3), weight: 396_000 }));
  const snap = summariseTemplate({ height: 102, transactions: big }, mempool(50), 0);
  assert.equal(snap.nextBlockFull, true);
  assert.equal(snap.marketRate, (400_000 * 3) / 99_000);
});

test('a template that leaves transactions out while half empty is not full', () => {
  const snap = summariseTemplate({ height: 102, transactions: [{ txid: 'a', fee: 99_000, weight: 396_000 }] }, mempool(5), 0);
  assert.equal(snap.nextBlockFull, false);
  assert.equal(snap.marketRate, 1);
});
