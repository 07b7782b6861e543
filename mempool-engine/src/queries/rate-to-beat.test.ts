import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlocks } from '../projection/block-assembler.ts';
import { encodeMempoolSnapshot, type SnapshotEntry } from '../mirror/mempool-snapshot.ts';
import { rateToBeat } from './rate-to-beat.ts';

/**
 * The rate to beat over projected blocks: the lowest package rate block 0
 * took when it is full, the relay minimum otherwise. The projection is the
 * real block assembler (its oracle test holds it to the node's
 * getblocktemplate); these cases pin what the rate makes of it.
 */

const relay = { minRelayRate: 1, mempoolMinRate: 1 };
const txid = (n: number) => n.toString(16).padStart(64, '0');
let next = 1;

/** A transaction of `vbytes` paying `rate` sat/vB, spending the given parents. */
function tx(rate: number, depends: string[] = [], vbytes = 100): SnapshotEntry {
  return { txid: txid(next++), fee: rate * vbytes, vsize: vbytes, weight: vbytes * 4, depends };
}

/**
 * Ten 99,000 vB transactions at 500 sat/vB: 3,960,000 WU, over 99% of the
 * 3,992,000 a block may hold beside the coinbase's reserve, leaving 8,000 vB.
 */
const fill = () => Array.from({ length: 10 }, () => tx(500, [], 99_000));
/** Too big for what the filler leaves: it goes to block 1, so block 0 is full. */
const leftOver = () => tx(0.9, [], 99_000);

const rateOf = (entries: SnapshotEntry[]) => rateToBeat(assembleBlocks(encodeMempoolSnapshot(entries)).blocks, relay);

test('a next block with room prices at the relay minimum, or the mempool minimum when that is higher', () => {
  assert.deepEqual(rateOf([tx(50)]), { marketRate: 1, minRelayRate: 1, nextBlockFull: false });
  assert.equal(rateToBeat(assembleBlocks(encodeMempoolSnapshot([tx(50)])).blocks, { minRelayRate: 0.1, mempoolMinRate: 3 }).marketRate, 3);
});

test('a block left short because what is left is too big is not full', () => {
  // 300,000 vB each: three fit (3,608,000 WU with the reserve), the fourth goes to block 1.
  const result = rateOf([tx(10, [], 300_000), tx(9, [], 300_000), tx(8, [], 300_000), tx(7, [], 300_000)]);
  assert.equal(result.nextBlockFull, false);
  assert.equal(result.marketRate, 1);
});

test('a full block prices at the lowest rate it took', () => {
  const result = rateOf([...fill(), leftOver()]);
  assert.equal(result.nextBlockFull, true);
  assert.equal(result.marketRate, 500);
});

test('a full block with a CPFP pair prices at the pair’s package rate, not the parent’s own rate', () => {
  const parent = tx(1);
  const child = tx(100, [parent.txid]);
  const result = rateOf([...fill(), parent, child, leftOver()]);
  assert.equal(result.nextBlockFull, true);
  assert.equal(result.marketRate, (100 + 10_000) / 200);
});

test('a parent with two children: the parent goes in with the rich one, the modest one after, at its own rate', () => {
  const parent = tx(1);
  const rich = tx(100, [parent.txid]);
  const modest = tx(50, [parent.txid]);
  const result = rateOf([...fill(), parent, rich, modest, leftOver()]);
  assert.equal(result.nextBlockFull, true);
  assert.equal(result.marketRate, 50);
});

test('a low child of a high parent rides on nothing: the parent goes in alone, the child at its own rate', () => {
  // Its ancestor score is the lower of its own rate and its package's (CompareTxMemPoolEntryByAncestorFee).
  const parent = tx(50);
  const child = tx(2, [parent.txid]);
  const result = rateOf([...fill(), parent, child, leftOver()]);
  assert.equal(result.marketRate, 2);
});

test('a sigop-heavy transaction is ranked by its sigop-adjusted vsize', () => {
  // 400 WU but 1,600 vB by its 320 sigops (× 20 bytes): 16,000 sats is 10 sat/vB, not 40.
  const heavy: SnapshotEntry = { txid: txid(next++), fee: 16_000, vsize: 1_600, weight: 400, sigops: 320, depends: [] };
  const result = rateOf([...fill(), heavy, leftOver()]);
  assert.equal(result.nextBlockFull, true);
  assert.equal(result.marketRate, 10);
});

test('a block full by sigops, with weight to spare, is full: it prices at the lowest rate it took', () => {
  // Sigops set these vsizes (20 vbytes per sigop cost): 15 of 4,975 sigops and 49 of 100 take 79,525 of the
  // 79,600 a block may hold beside the coinbase's 400, over 99%, in 25,600 WU; a 16th heavy one does not fit.
  const heavy = (rate: number): SnapshotEntry => ({ txid: txid(next++), fee: rate * 24_875, vsize: 24_875, weight: 400, sigops: 4_975, depends: [] });
  const light = (): SnapshotEntry => ({ txid: txid(next++), fee: 20 * 500, vsize: 500, weight: 400, sigops: 100, depends: [] });
  const entries = [...Array.from({ length: 15 }, () => heavy(50)), ...Array.from({ length: 49 }, light), heavy(10)];
  const projection = assembleBlocks(encodeMempoolSnapshot(entries));
  assert.deepEqual(projection.blocks.map((b) => [b.txCount, b.sigops, b.weight]), [[64, 79_525, 25_600], [1, 4_975, 400]]);
  assert.deepEqual(rateToBeat(projection.blocks, relay), { marketRate: 20, minRelayRate: 1, nextBlockFull: true });
});
