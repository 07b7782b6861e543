import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlocks } from '../projection/block-assembler.ts';
import { encodeMempoolSnapshot, snapshotFromRawMempool, type SnapshotEntry } from './mempool-snapshot.ts';

/**
 * The snapshot's vsize is the node's sigop-adjusted virtual size, which is
 * never below ceil(max(weight, sigops × 20) / 4) (policy.cpp
 * GetVirtualTransactionSize). The assembler packs blocks by 4 × vsize, so an
 * entry that claims less would overfill the projected block.
 */

const txid = (n: number) => n.toString(16).padStart(64, '0');
const entry = (n: number, fields: Partial<SnapshotEntry>): SnapshotEntry => ({ txid: txid(n), fee: 10_000, vsize: 250, weight: 1_000, depends: [], ...fields });

test('an entry whose vsize is below what its weight makes it is refused, naming the transaction and the figures', () => {
  assert.throws(() => encodeMempoolSnapshot([entry(1, { vsize: 249, weight: 1_000 })]), (error: Error) => {
    assert.ok(error instanceof RangeError);
    assert.match(error.message, new RegExp(`Transaction ${txid(1)} has vsize 249`));
    assert.match(error.message, /at least 250/);
    return true;
  });
  // ceil(997 / 4) = 250: a weight that is not a multiple of 4 rounds up.
  assert.throws(() => encodeMempoolSnapshot([entry(2, { vsize: 249, weight: 997 })]), /at least 250/);
  assert.equal(encodeMempoolSnapshot([entry(3, { vsize: 250, weight: 997 })]).vsize[0], 250);
});

test('an entry whose vsize is below what its sigop cost makes it (20 vbytes per sigop) is refused', () => {
  // 400 WU, but 320 sigops make it 1,600 vB.
  assert.throws(() => encodeMempoolSnapshot([entry(1, { vsize: 100, weight: 400, sigops: 320 })]), /has vsize 100.*at least 1600/);
  assert.throws(() => encodeMempoolSnapshot([entry(2, { vsize: 1_599, weight: 400, sigops: 320 })]), /at least 1600/);
  const snapshot = encodeMempoolSnapshot([entry(3, { vsize: 1_600, weight: 400, sigops: 320 })]);
  assert.deepEqual([snapshot.vsize[0], snapshot.weight[0], snapshot.sigops[0]], [1_600, 400, 320]);
});

test('the node\'s own mempool answer is held at the floor its weight sets, so a projected block never holds more weight than the limit', () => {
  // Two transactions of 3,000 WU (750 vB) each, reported at 400 vB; room for 1,000 vB after the coinbase's reserve.
  const raw = Object.fromEntries([1, 2].map((n) => [txid(n), { vsize: 400, weight: 3_000, fees: { base: 0.0001, modified: 0.0001 }, depends: [] }]));
  const maxBlockWeight = 8_000 + 4 * 1_000 + 1;
  const snapshot = snapshotFromRawMempool(raw);
  assert.deepEqual([...snapshot.vsize], [750, 750]);
  const projection = assembleBlocks(snapshot, { maxBlockWeight, lastBlockCollectsRest: false });
  assert.equal(projection.blocks[0]!.txCount, 1);
  assert.ok(8_000 + projection.blocks[0]!.weight < maxBlockWeight, `block weight ${projection.blocks[0]!.weight} fits`);
});
