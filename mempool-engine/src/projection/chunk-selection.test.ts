import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assembleBlocks, createBlockAssembler, functionalRateOf, projectedBlockOf, type BlockAssemblerOptions, type BlockProjection } from './block-assembler.ts';
import { encodeMempoolSnapshot, type MempoolSnapshot, type SnapshotEntry } from '../mirror/mempool-snapshot.ts';
import { chunkEntries } from '../../dev/chunked-mempool.ts';
import { referenceChunkAssemble } from '../../dev/chunk-assembler.reference.ts';

/**
 * Projection from a cluster-mempool node's chunks (Bitcoin Core 31:
 * getmempoolentry `fees.chunk` and `chunkweight`), chosen by the assembler
 * when every transaction has them: hand-made mempools where it differs
 * from the ancestor-score projection, and random ones checked against a
 * plain transcription of Core's addChunks over chunks given outright
 * (dev/chunk-assembler.reference.ts).
 */

interface TxSpec {
  fee: number;
  vsize: number;
  parents?: string[];
  sigops?: number;
  /** The node's chunk for it: fee (sats) and sigop-adjusted weight. */
  chunk?: [fee: number, weight: number];
}

/** Display hex whose internal (memcmp) order follows `rank`. */
const txidRanked = (rank: number) => `${'00'.repeat(29)}${rank.toString(16).padStart(6, '0')}`;

function entriesOf(specs: Record<string, TxSpec>, withChunks: boolean): SnapshotEntry[] {
  const names = Object.keys(specs);
  const txid = (name: string) => txidRanked(1000 + names.indexOf(name));
  return names.map((name) => {
    const s = specs[name]!;
    return {
      txid: txid(name),
      fee: s.fee,
      vsize: s.vsize,
      weight: 4 * s.vsize,
      sigops: s.sigops ?? 0,
      depends: (s.parents ?? []).map(txid),
      ...(withChunks && s.chunk ? { chunkFee: s.chunk[0], chunkWeight: s.chunk[1] } : {}),
    };
  });
}

function blockNames(projection: BlockProjection, names: readonly string[]): string[][] {
  return projection.blocks.map((b) => [...projection.order.subarray(b.orderStart, b.orderStart + b.txCount)].map((i) => names[i]!));
}

function project(specs: Record<string, TxSpec>, options: BlockAssemblerOptions, withChunks = true): { projection: BlockProjection; blocks: string[][]; snapshot: MempoolSnapshot } {
  const snapshot = encodeMempoolSnapshot(entriesOf(specs, withChunks));
  const projection = assembleBlocks(snapshot, options);
  return { projection, blocks: blockNames(projection, Object.keys(specs)), snapshot };
}

/** A block limit that leaves room for exactly `vbytes` (4 WU each) after the 8,000 WU reserve; projected blocks only. */
const roomFor = (vbytes: number, maxBlocks = 4): BlockAssemblerOptions => ({ maxBlockWeight: 8_000 + 4 * vbytes + 1, maxBlocks, lastBlockCollectsRest: false });

test('a parent with two children that only together outbid a stranger: by chunks the family goes first, by ancestor score the stranger', () => {
  // The node's linearization P, C1, C2 is one chunk: (100 + 2,900 + 2,000) / 300 vB = 16.7 sat/vB, above U's 16.
  // Ancestor score sees each child with its parent only: P + C1 at 15, P + C2 at 10.5, both below U.
  const family: Record<string, TxSpec> = {
    U: { fee: 1_600, vsize: 100, chunk: [1_600, 400] },
    P: { fee: 100, vsize: 100, chunk: [5_000, 1_200] },
    C1: { fee: 2_900, vsize: 100, parents: ['P'], chunk: [5_000, 1_200] },
    C2: { fee: 2_000, vsize: 100, parents: ['P'], chunk: [5_000, 1_200] },
  };
  const byChunks = project(family, roomFor(300));
  assert.equal(byChunks.projection.ordering, 'chunks');
  assert.deepEqual(byChunks.blocks, [['P', 'C1', 'C2'], ['U']]);
  assert.equal(functionalRateOf(byChunks.projection, 1), 5_000 / 300, 'every member at the chunk\'s rate');
  assert.equal(functionalRateOf(byChunks.projection, 3), 5_000 / 300);

  const byAncestorScore = project(family, roomFor(300), false);
  assert.equal(byAncestorScore.projection.ordering, 'ancestor-score');
  assert.deepEqual(byAncestorScore.blocks, [['U', 'P', 'C1'], ['C2']]);
});

test('a block boundary falls between chunks as Core fills it: a chunk that does not fit passes over the rest of its cluster', () => {
  // Chunks: U (25 sat/vB), then P + C1 (6,000 / 300 vB = 20), then C2 alone (10). After U, 250 vB are left:
  // P + C1 does not fit, so the block builder skips its cluster (txgraph.h BlockBuilder::Skip) and never offers C2,
  // which would fit. Ancestor score instead passes over P + C1 and takes P with C2 (their package fits).
  const specs: Record<string, TxSpec> = {
    U: { fee: 2_500, vsize: 100, chunk: [2_500, 400] },
    P: { fee: 100, vsize: 100, chunk: [6_000, 1_200] },
    C1: { fee: 5_900, vsize: 200, parents: ['P'], chunk: [6_000, 1_200] },
    C2: { fee: 500, vsize: 50, parents: ['P'], chunk: [500, 200] },
  };
  assert.deepEqual(project(specs, roomFor(350)).blocks, [['U'], ['P', 'C1', 'C2']]);
  assert.deepEqual(project(specs, roomFor(350), false).blocks, [['U', 'P', 'C2'], ['C1']]);
  // With room for all, one block in chunk order.
  assert.deepEqual(project(specs, roomFor(450)).blocks, [['U', 'P', 'C1', 'C2']]);
});

test('a chain of identical transactions is a chunk each (equal rates do not merge), and a block boundary can fall between them', () => {
  // A → B → C at 10 sat/vB: the node reports three chunks of the same fee and weight, which only their weights tell apart.
  const specs: Record<string, TxSpec> = {
    A: { fee: 1_000, vsize: 100, chunk: [1_000, 400] },
    B: { fee: 1_000, vsize: 100, parents: ['A'], chunk: [1_000, 400] },
    C: { fee: 1_000, vsize: 100, parents: ['B'], chunk: [1_000, 400] },
    S: { fee: 250, vsize: 50, chunk: [250, 200] },
  };
  const { projection, blocks } = project(specs, roomFor(250));
  assert.deepEqual(blocks, [['A', 'B', 'S'], ['C']], 'A and B fit, C does not (its cluster is skipped), S fills the block');
  assert.equal(projection.packagesSelected, 4);
});

test('equal rates: a chunk counts the equal-rate chunks of its cluster it waits on, so a chain keeps its order and a stranger goes between', () => {
  // All at 10 sat/vB. P then its smaller child C: C counts P's 800 WU with its own 400 (1,200); S alone weighs 1,000.
  // Core's mining order compares those prefixes, smaller first: P (800), S (1,000), C (1,200).
  const specs: Record<string, TxSpec> = {
    C: { fee: 1_000, vsize: 100, parents: ['P'], chunk: [1_000, 400] },
    S: { fee: 2_500, vsize: 250, chunk: [2_500, 1_000] },
    P: { fee: 2_000, vsize: 200, chunk: [2_000, 800] },
  };
  assert.deepEqual(project(specs, roomFor(1_000)).blocks, [['P', 'S', 'C']]);
});

test('a child the node ranks above its parent still goes after it', () => {
  // Not a valid linearization (entries read at different moments could say it): C claims 50 sat/vB, its parent P 1.
  const specs: Record<string, TxSpec> = {
    C: { fee: 5_000, vsize: 100, parents: ['P'], chunk: [5_000, 400] },
    U: { fee: 1_000, vsize: 100, chunk: [1_000, 400] },
    P: { fee: 100, vsize: 100, chunk: [100, 400] },
  };
  assert.deepEqual(project(specs, roomFor(1_000)).blocks, [['U', 'P', 'C']]);
  assert.deepEqual(project(specs, roomFor(150)).blocks, [['U'], ['P'], ['C']]);
});

test('a chunk below -blockmintxfee ends the block and stays out of every block, the rest of the mempool included', () => {
  const specs: Record<string, TxSpec> = {
    A: { fee: 1_000, vsize: 100, chunk: [1_000, 400] },
    // 99 sats for 100 vB: below 1 sat/vB.
    low: { fee: 99, vsize: 100, chunk: [99, 400] },
    B: { fee: 500, vsize: 100, chunk: [500, 400] },
  };
  const { projection, blocks } = project(specs, { maxBlockWeight: 8_000 + 4 * 150 + 1, maxBlocks: 3, blockMinFeeRatePerKvB: 1_000 });
  assert.deepEqual(blocks, [['A'], ['B']], 'the last block collects the rest, up to the chunk that pays too little');
  assert.equal(projectedBlockOf(projection, 1), -1);
});

test('chunk rates are compared exactly, where floating-point products would tie', () => {
  // Neighbouring fractions: a.fee × b.weight − b.fee × a.weight = 1, in products near 9 × 10^21, where doubles are
  // 2^20 apart. Exactly, a pays more; in doubles the products tie, and the tie-break would put the smaller chunk (b) first.
  const b = { weight: 2_000_000, fee: Math.floor(2 ** 52 / 2_000_000) * 2_000_000 - 1 };
  const a = { weight: 2_000_001, fee: b.fee + Math.floor(2 ** 52 / 2_000_000) };
  assert.equal(BigInt(a.fee) * BigInt(b.weight) - BigInt(b.fee) * BigInt(a.weight), 1n);
  assert.equal(a.fee * b.weight, b.fee * a.weight, 'the products tie in doubles');
  const { blocks } = project({
    b: { fee: 10_000, vsize: 100, chunk: [b.fee, b.weight] },
    a: { fee: 10_000, vsize: 100, chunk: [a.fee, a.weight] },
  }, { maxBlocks: 2, lastBlockCollectsRest: false });
  assert.deepEqual(blocks, [['a', 'b']]);
});

test('chunk data absent or partial projects exactly as by ancestor score', () => {
  const specs: Record<string, TxSpec> = {
    U: { fee: 1_600, vsize: 100, chunk: [1_600, 400] },
    P: { fee: 100, vsize: 100, chunk: [5_000, 1_200] },
    C1: { fee: 2_900, vsize: 100, parents: ['P'], chunk: [5_000, 1_200] },
    C2: { fee: 2_000, vsize: 100, parents: ['P'] },
  };
  const entries = entriesOf(specs, true);
  assert.equal(encodeMempoolSnapshot(entries).chunkFee, undefined, 'a snapshot keeps chunks only when every entry has one');
  const plain = assembleBlocks(encodeMempoolSnapshot(entriesOf(specs, false)), roomFor(300));
  // Arrays present but one chunk unknown (weight 0): as a mirror could hand over, were it not to drop them.
  const partial = encodeMempoolSnapshot(entriesOf({ ...specs, C2: { ...specs.C2!, chunk: [5_000, 1_200] } }, true));
  partial.chunkWeight![3] = 0;
  const projection = assembleBlocks(partial, roomFor(300));
  assert.equal(projection.ordering, 'ancestor-score');
  assert.deepEqual(projection, plain);
});

test('one assembler moves between the two paths as chunk data comes and goes, each projection as a fresh one', () => {
  const { entries } = chunkEntries(Array.from({ length: 400 }, (_, i) => ({
    txid: txidRanked(5_000 + ((i * 7919) % 9_973)),
    fee: 200 + ((i * 37) % 50) * 90,
    vsize: 100 + (i % 5) * 40,
    weight: 4 * (100 + (i % 5) * 40),
    sigops: 0,
    depends: i % 4 === 3 ? [txidRanked(5_000 + (((i - 1) * 7919) % 9_973))] : [],
  })));
  const chunked = encodeMempoolSnapshot(entries);
  const plain = encodeMempoolSnapshot(entries.map(({ chunkFee: _f, chunkWeight: _w, ...rest }) => rest));
  const options = { maxBlockWeight: 40_000, maxBlocks: 5 };
  const assembler = createBlockAssembler();
  for (const snapshot of [plain, chunked, plain, chunked, chunked]) {
    const expected = assembleBlocks(snapshot, options);
    const got = assembler.assemble(snapshot, options);
    assert.equal(got.ordering, snapshot === chunked ? 'chunks' : 'ancestor-score');
    assert.deepEqual(got, expected);
    assembler.tidyUp();
  }
});

const randomMempool = fc
  .array(
    fc.record({
      feeRate: fc.constantFrom(0, 1, 2, 3, 5, 8, 13, 40, 100),
      vsize: fc.constantFrom(100, 150, 200, 1_000, 20_000, 90_000),
      extraFee: fc.integer({ min: 0, max: 3 }),
      sigops: fc.constantFrom(0, 0, 0, 4, 2_000, 15_000),
      parentPicks: fc.array(fc.nat(), { maxLength: 3 }),
    }),
    { maxLength: 50, size: 'max' },
  )
  .map((rows) =>
    rows.map((row, i): SnapshotEntry => {
      // Sigops set the vsize where they outweigh the bytes, as in the node's answer (20 vbytes per sigop cost).
      const vsize = Math.max(row.vsize, 5 * row.sigops);
      return {
        txid: txidRanked((i * 7919) % 10_007),
        fee: row.feeRate * vsize + row.extraFee,
        vsize,
        weight: 4 * row.vsize - (i % 4),
        sigops: row.sigops,
        depends: i === 0 ? [] : [...new Set(row.parentPicks.map((p) => txidRanked(((p % i) * 7919) % 10_007)))],
      };
    }),
  );

test('random mempools project as a plain transcription of Core\'s addChunks over the chunks given outright', () => {
  fc.assert(
    fc.property(
      randomMempool,
      fc.constantFrom(200_000, 400_000, 1_000_000, 4_000_000),
      fc.integer({ min: 1, max: 4 }),
      fc.boolean(),
      fc.constantFrom(1, 1_000, 5_000),
      (txs, maxBlockWeight, maxBlocks, lastBlockCollectsRest, blockMinFeeRatePerKvB) => {
        const chunked = chunkEntries(txs);
        // Chunks the entries alone can tell apart (Core's are connected; see chunk-order.ts).
        fc.pre(chunked.distinguishable);
        const options = { maxBlockWeight, maxBlocks, lastBlockCollectsRest, blockMinFeeRatePerKvB };
        const ours = assembleBlocks(encodeMempoolSnapshot(chunked.entries), options);
        const reference = referenceChunkAssemble(chunked.entries, chunked.chunks, options);
        assert.equal(ours.ordering, chunked.entries.length > 0 ? 'chunks' : 'ancestor-score');
        assert.deepEqual(ours.blocks.map((b) => [...ours.order.subarray(b.orderStart, b.orderStart + b.txCount)]), reference.blocks);
        for (const [i, rate] of reference.functionalRates) assert.equal(functionalRateOf(ours, i), rate, `functional rate of ${i}`);
      },
    ),
    { numRuns: 400 },
  );
});

test('every projected block by chunks keeps parents first, whole chunks, and the weight and sigop limits', () => {
  fc.assert(
    fc.property(randomMempool, fc.constantFrom(200_000, 1_000_000, 4_000_000), (txs, maxBlockWeight) => {
      const chunked = chunkEntries(txs);
      const snapshot = encodeMempoolSnapshot(chunked.entries);
      const projection = assembleBlocks(snapshot, { maxBlockWeight, maxBlocks: 6, lastBlockCollectsRest: false });
      const position = new Map<number, number>();
      projection.order.forEach((tx, k) => position.set(tx, k));
      for (const [k, tx] of projection.order.entries()) {
        for (let e = snapshot.parentStart[tx]!; e < snapshot.parentStart[tx + 1]!; e++) {
          const p = snapshot.parents[e]!;
          assert.ok(position.has(p) && position.get(p)! < k, `parent ${p} of ${tx} goes before it`);
        }
      }
      for (const block of projection.blocks) {
        assert.ok(8_000 + block.weight < maxBlockWeight, `block weight ${block.weight} within ${maxBlockWeight}`);
        assert.ok(400 + block.sigops < 80_000, `block sigops ${block.sigops}`);
      }
      // A chunk is in one block or in none (when the entries tell the chunks apart, as Core's connected chunks are).
      if (!chunked.distinguishable) return;
      for (const chunk of chunked.chunks) {
        assert.equal(new Set(chunk.map((i) => projectedBlockOf(projection, i))).size, 1, `chunk ${chunk.join(',')} together`);
      }
    }),
    { numRuns: 300 },
  );
});
