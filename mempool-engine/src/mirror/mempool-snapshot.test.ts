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

/**
 * Bitcoin Core 31's mempool entries (getrawmempool true, getmempoolentry)
 * carry the transaction's chunk. Core's own help text, src/rpc/mempool.cpp
 * MempoolEntryDescription():
 *   RPCResult{RPCResult::Type::NUM, "chunkweight", "sigops-adjusted weight (as defined in BIP 141 and modified by '-bytespersigop') of this transaction's chunk"},
 *   RPCResult{RPCResult::Type::OBJ, "fees", "", { ...
 *     RPCResult{RPCResult::Type::STR_AMOUNT, "chunk", "transaction fees of chunk, denominated in " + CURRENCY_UNIT},
 * and entryToJSON() fills them from the mempool's chunk feerate:
 *   info.pushKV("chunkweight", feerate.size);
 *   fees.pushKV("chunk", ValueFromAmount(feerate.fee));
 * (doc/release-notes/release-notes-31.0.md: "Chunk size and chunk fees are now also included in the output of
 * `getmempoolentry`.") The entries below have every field entryToJSON() writes in 31, in its order.
 */
const core31Entry = (fields: { vsize: number; weight: number; base: number; chunk: number; chunkweight: number; depends?: string[]; spentby?: string[] }) => ({
  vsize: fields.vsize,
  weight: fields.weight,
  time: 1_750_000_000,
  height: 900_000,
  descendantcount: 1 + (fields.spentby?.length ?? 0),
  descendantsize: fields.vsize,
  ancestorcount: 1 + (fields.depends?.length ?? 0),
  ancestorsize: fields.vsize,
  wtxid: 'ff'.repeat(32),
  chunkweight: fields.chunkweight,
  fees: { base: fields.base, modified: fields.base, ancestor: fields.base, descendant: fields.base, chunk: fields.chunk },
  depends: fields.depends ?? [],
  spentby: fields.spentby ?? [],
  unbroadcast: false,
});

test('a Core 31 node\'s getrawmempool answer keeps every transaction\'s chunk fee (BTC to satoshis, as the other fees) and weight', () => {
  // A 1 sat/vB parent whose child pays for both: one chunk of 11,141 sats over 561 + 438 WU; and a stranger alone.
  const raw = {
    [txid(1)]: core31Entry({ vsize: 141, weight: 561, base: 0.00000141, chunk: 0.00011141, chunkweight: 999, spentby: [txid(2)] }),
    [txid(2)]: core31Entry({ vsize: 110, weight: 438, base: 0.00011, chunk: 0.00011141, chunkweight: 999, depends: [txid(1)] }),
    [txid(3)]: core31Entry({ vsize: 200, weight: 800, base: 0.00002, chunk: 0.00002, chunkweight: 800 }),
  };
  const snapshot = snapshotFromRawMempool(raw);
  assert.deepEqual(snapshot.chunkFee, new Float64Array([11_141, 11_141, 2_000]));
  assert.deepEqual(snapshot.chunkWeight, new Int32Array([999, 999, 800]));
  assert.deepEqual([...snapshot.fee], [141, 11_000, 2_000]);
  // 0.1 + 0.2 BTC as a double is 0.30000000000000004: still 30,000,000 sats, as btcToSats rounds every fee.
  const noisy = snapshotFromRawMempool({ [txid(4)]: core31Entry({ vsize: 100, weight: 400, base: 0.1 + 0.2, chunk: 0.1 + 0.2, chunkweight: 400 }) });
  assert.deepEqual(noisy.chunkFee, new Float64Array([30_000_000]));
  assert.equal(assembleBlocks(snapshot).ordering, 'chunks');
});

test('a node without cluster mempool (Knots 29.5, Core 30) sends no chunk, and the snapshot has none', () => {
  const { chunkweight: _weight, ...knots } = core31Entry({ vsize: 141, weight: 561, base: 0.00000141, chunk: 0, chunkweight: 561 });
  const { chunk: _chunk, ...fees } = knots.fees;
  const snapshot = snapshotFromRawMempool({ [txid(1)]: { ...knots, fees } });
  assert.equal(snapshot.chunkFee, undefined);
  assert.equal(snapshot.chunkWeight, undefined);
  assert.equal(assembleBlocks(snapshot).ordering, 'ancestor-score');
});

test('chunk data no node would send is refused, naming the transaction', () => {
  assert.throws(() => encodeMempoolSnapshot([entry(1, { chunkFee: 10_000, chunkWeight: 0 })]), new RegExp(`Transaction ${txid(1)} has chunk weight 0`));
  assert.throws(() => encodeMempoolSnapshot([entry(1, { chunkFee: 0.5, chunkWeight: 1_000 })]), /has chunk fee 0.5/);
});
