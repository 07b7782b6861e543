import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assembleBlocks, functionalRateOf, MAX_CONSECUTIVE_FAILURES, positionVsizeOf, projectedBlockOf, type BlockAssemblerOptions, type BlockProjection } from './block-assembler.ts';
import { encodeMempoolSnapshot, type MempoolSnapshot, type SnapshotEntry } from '../mirror/mempool-snapshot.ts';
import { referenceAssemble } from '../../dev/block-assembler.reference.ts';

/**
 * Hand-made mempools whose projection is known, then random ones checked
 * against a slow, straightforward transcription of Core's addPackageTxs
 * (server/dev/mempool/block-assembler.reference.ts) that shares no data structure with ours.
 */

interface TxSpec {
  fee: number;
  vsize: number;
  parents?: string[];
  weight?: number;
  sigops?: number;
  modifiedFee?: number;
  /** Display-hex txid; defaults to one derived from the name. */
  txid?: string;
}

/** Display hex whose internal (memcmp) order follows `rank`: internal byte 0 is the display's last byte. */
function txidRanked(rank: number): string {
  return `${'00'.repeat(29)}${rank.toString(16).padStart(6, '0')}`;
}

function mempool(specs: Record<string, TxSpec>): { snapshot: MempoolSnapshot; names: string[]; index: (name: string) => number } {
  const names = Object.keys(specs);
  const txids = new Map(names.map((name, i) => [name, specs[name]!.txid ?? txidRanked(1000 + i)]));
  const entries: SnapshotEntry[] = names.map((name) => {
    const s = specs[name]!;
    return {
      txid: txids.get(name)!,
      fee: s.fee,
      modifiedFee: s.modifiedFee ?? s.fee,
      vsize: s.vsize,
      weight: s.weight ?? s.vsize * 4,
      sigops: s.sigops ?? 0,
      depends: (s.parents ?? []).map((p) => txids.get(p)!),
    };
  });
  return { snapshot: encodeMempoolSnapshot(entries), names, index: (name) => names.indexOf(name) };
}

function blocksOf(specs: Record<string, TxSpec>, options: BlockAssemblerOptions = {}): { projection: BlockProjection; blocks: string[][]; rate: (name: string) => number } {
  const { snapshot, names, index } = mempool(specs);
  const projection = assembleBlocks(snapshot, options);
  const blocks = projection.blocks.map((b) => [...projection.order.subarray(b.orderStart, b.orderStart + b.txCount)].map((i) => names[i]!));
  return { projection, blocks, rate: (name) => functionalRateOf(projection, index(name)) };
}

/** Every transaction's position.vsize, in snapshot order. */
const positions = (projection: BlockProjection) => Array.from({ length: projection.entryOf.length }, (_, i) => positionVsizeOf(projection, i));

/** A block limit that leaves room for exactly `vbytes` of packages after the 8,000 WU reserve. */
const roomFor = (vbytes: number): BlockAssemblerOptions => ({ maxBlockWeight: 8_000 + 4 * vbytes + 1 });

test('an empty mempool projects no blocks', () => {
  const projection = assembleBlocks(encodeMempoolSnapshot([]));
  assert.deepEqual(projection.blocks, []);
  assert.equal(projection.projectedCount, 0);
});

test('child pays for parent: a 1 sat/vB parent with a rich child goes before a richer single transaction', () => {
  const { blocks, rate, projection } = blocksOf(
    {
      parent: { fee: 100, vsize: 100 },
      rich: { fee: 1_000, vsize: 100 },
      child: { fee: 2_900, vsize: 100, parents: ['parent'] },
    },
    roomFor(200),
  );
  assert.deepEqual(blocks, [['parent', 'child'], ['rich']]);
  assert.equal(rate('parent'), 15, 'the parent is mined at the package rate (100 + 2,900) / 200');
  assert.equal(rate('child'), 15);
  assert.equal(rate('rich'), 10);
  assert.deepEqual(positions(projection), [100, 100, 200]);
});

test('a parent with two children: the poorer child is re-scored once the parent is in, and overtakes a richer single', () => {
  const { blocks, rate } = blocksOf({
    parent: { fee: 100, vsize: 1_000 }, // 0.1 sat/vB
    poorChild: { fee: 1_000, vsize: 100, parents: ['parent'] }, // own 10, with parent 1.0
    richChild: { fee: 20_000, vsize: 100, parents: ['parent'] }, // with parent 18.3
    single: { fee: 500, vsize: 100 }, // 5
  });
  // Before the parent goes in the poor child scores 1 sat/vB, below the single;
  // once it is in, the child's ancestor state is its own 10 sat/vB.
  assert.deepEqual(blocks, [['parent', 'richChild', 'poorChild', 'single']]);
  assert.equal(rate('richChild'), 20_100 / 1_100);
  assert.equal(rate('poorChild'), 10);
  assert.equal(rate('single'), 5);
});

test('a score is the lower of own and ancestor rates: a poor child of a rich parent waits behind middling singles', () => {
  const { blocks, rate } = blocksOf({
    parent: { fee: 10_000, vsize: 100 }, // 100
    child: { fee: 100, vsize: 100, parents: ['parent'] }, // own 1, with parent 50.5
    single: { fee: 500, vsize: 100 }, // 5
  });
  assert.deepEqual(blocks, [['parent', 'single', 'child']]);
  assert.equal(rate('child'), 1);
});

test('a package that does not fit is skipped and a smaller, poorer one behind it still goes in', () => {
  const { blocks, projection } = blocksOf(
    {
      big: { fee: 50_000, vsize: 1_000 }, // 50
      middle: { fee: 10_000, vsize: 500 }, // 20: does not fit after big
      small: { fee: 1_000, vsize: 100 }, // 10: fits
    },
    roomFor(1_100),
  );
  assert.deepEqual(blocks, [['big', 'small'], ['middle']]);
  assert.equal(projection.blocks[0]!.weight, 4 * 1_100);
  assert.equal(projection.blocks[0]!.fees, 51_000);
});

test('a CPFP package too big for the room left is skipped whole; its parent alone is not taken at the package rate', () => {
  const { blocks, rate } = blocksOf(
    {
      filler: { fee: 90_000, vsize: 900 }, // 100
      parent: { fee: 100, vsize: 100 },
      child: { fee: 19_900, vsize: 100, parents: ['parent'] }, // package 100 sat/vB over 200 vB
      single: { fee: 200, vsize: 100 }, // 2
    },
    roomFor(1_000),
  );
  // Room for 100 vB after the filler: the pair (200 vB) fails, the parent alone ranks at its own 1 sat/vB, below the single.
  assert.deepEqual(blocks, [['filler', 'single'], ['parent', 'child']]);
  assert.equal(rate('parent'), 100);
});

test('equal scores are broken by txid in Core\'s internal byte order (memcmp), not the display order', () => {
  // Display order says a < b; internal order (display reversed) says b < a.
  const a = `01${'00'.repeat(30)}ff`;
  const b = `ff${'00'.repeat(30)}01`;
  const { blocks } = blocksOf({
    a: { fee: 1_000, vsize: 100, txid: a },
    b: { fee: 2_000, vsize: 200, txid: b }, // the same 10 sat/vB
  });
  assert.deepEqual(blocks, [['b', 'a']]);
  const flipped = blocksOf({
    a: { fee: 1_000, vsize: 100, txid: b },
    b: { fee: 2_000, vsize: 200, txid: a },
  });
  assert.deepEqual(flipped.blocks, [['a', 'b']]);
});

test('within a package, parents go first, then by ancestor count and txid (SortForBlock)', () => {
  const { blocks } = blocksOf({
    grandchild: { fee: 50_000, vsize: 100, parents: ['child', 'uncle'], txid: txidRanked(1) },
    child: { fee: 100, vsize: 100, parents: ['root'], txid: txidRanked(2) },
    uncle: { fee: 100, vsize: 100, txid: txidRanked(3) },
    root: { fee: 100, vsize: 100, txid: txidRanked(4) },
  });
  // Ancestor counts: uncle 1, root 1, child 2, grandchild 4; uncle and root tie, uncle's txid is lower.
  assert.deepEqual(blocks, [['uncle', 'root', 'child', 'grandchild']]);
});

test('the block weight limit: 4,000,000 WU less the 8,000 WU coinbase reserve, charged at 4 WU per package vbyte, strictly below', () => {
  const tenBig = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`big${i}`, { fee: 1_000_000 - i, vsize: 100_000 }]));
  const { projection } = blocksOf(tenBig);
  assert.deepEqual(projection.blocks.map((b) => b.txCount), [9, 1]);
  assert.equal(projection.blocks[0]!.weight, 3_600_000);

  // 8,000 + 4 × 997,999 = 3,999,996 fits; 8,000 + 4 × 998,000 = 4,000,000 does not, in any block.
  const exact = blocksOf({ fits: { fee: 1_000_000, vsize: 997_999 } });
  assert.deepEqual(exact.blocks, [['fits']]);
  const over = blocksOf({ tooBig: { fee: 1_000_000, vsize: 998_000 }, small: { fee: 100, vsize: 100 } });
  assert.deepEqual(over.blocks, [['small']]);
  assert.equal(projectedBlockOf(over.projection, 0), -1, 'a transaction no block can hold is never projected');
});

test('the package test uses the sigop-adjusted vsize, and block weight adds up real weights', () => {
  const specs = {
    sigopHeavy: { fee: 100_000, vsize: 1_000, weight: 400, sigops: 200 },
    plain: { fee: 1_000, vsize: 100 },
  };
  // 4 × 1,000 vB does not fit in room for 999 vB, though its 400 WU would: no block can take it.
  const tight = blocksOf(specs, roomFor(999));
  assert.deepEqual(tight.blocks, [['plain']]);
  assert.equal(projectedBlockOf(tight.projection, 0), -1);
  // Once in, it adds its 400 WU, not 4,000: the plain one fits in room for 1,050 vB.
  const { blocks, projection } = blocksOf(specs, roomFor(1_050));
  assert.deepEqual(blocks, [['sigopHeavy', 'plain']]);
  assert.equal(projection.blocks[0]!.weight, 800);
});

test('the block sigop limit: 80,000 less the coinbase\'s 400', () => {
  const { blocks } = blocksOf({
    a: { fee: 3_000_000, vsize: 200_000, sigops: 40_000 },
    b: { fee: 2_000_000, vsize: 200_000, sigops: 39_600 },
    // Its sigops, not its 400 WU, set its vsize (20 vbytes per sigop cost), as the node reports it.
    c: { fee: 197_995, vsize: 197_995, weight: 400, sigops: 39_599 },
  });
  // 400 + 40,000 + 39,600 = 80,000 is not below the limit; 400 + 40,000 + 39,599 is.
  assert.deepEqual(blocks, [['a', 'c'], ['b']]);
});

test(`a nearly full block gives up after ${MAX_CONSECUTIVE_FAILURES} consecutive misfits, as Core does`, () => {
  const build = (misfits: number) => {
    const specs: Record<string, TxSpec> = { filler: { fee: 100_000_000, vsize: 997_001 } }; // leaves 3,996 WU: under 4,000 is "nearly full"
    for (let i = 0; i < misfits; i++) specs[`misfit${i}`] = { fee: 100_000, vsize: 1_000 };
    specs.last = { fee: 100, vsize: 100 };
    return blocksOf(specs, { maxBlocks: 2, lastBlockCollectsRest: false });
  };
  assert.deepEqual(build(MAX_CONSECUTIVE_FAILURES).blocks[0], ['filler', 'last']);
  assert.deepEqual(build(MAX_CONSECUTIVE_FAILURES + 1).blocks[0], ['filler']);
});

test('ranks by modified fee (prioritisetransaction) but reports base fees', () => {
  const { blocks, projection, rate } = blocksOf({
    plain: { fee: 5_000, vsize: 100 },
    prioritised: { fee: 100, modifiedFee: 100_100, vsize: 100 },
  }, roomFor(100));
  assert.deepEqual(blocks, [['prioritised'], ['plain']]);
  assert.equal(projection.blocks[0]!.fees, 100);
  assert.equal(rate('prioritised'), 1_001);
});

test('packages below -blockmintxfee are never projected', () => {
  const { blocks, projection } = blocksOf({ paying: { fee: 100, vsize: 100 }, free: { fee: 0, vsize: 100 } });
  assert.deepEqual(blocks, [['paying']]);
  assert.equal(projectedBlockOf(projection, 1), -1);
  assert.ok(Number.isNaN(functionalRateOf(projection, 1)));
});

test('a child left for the next block is priced there without its confirmed parent', () => {
  const { blocks, rate, projection } = blocksOf(
    {
      parent: { fee: 10_000, vsize: 100 }, // 100
      child: { fee: 300, vsize: 100, parents: ['parent'] }, // 3
      other: { fee: 1_000, vsize: 100 }, // 10
    },
    roomFor(200),
  );
  assert.deepEqual(blocks, [['parent', 'other'], ['child']]);
  assert.equal(rate('child'), 3);
  assert.deepEqual(positions(projection), [100, 100, 200]);
});

test('block summaries: counts, weights, sigops, fees, fee-rate range and median', () => {
  const { projection } = blocksOf({
    a: { fee: 4_000, vsize: 100, weight: 397, sigops: 2 },
    b: { fee: 3_000, vsize: 100 },
    c: { fee: 2_000, vsize: 100, sigops: 1 },
    d: { fee: 1_000, vsize: 100 },
    e: { fee: 500, vsize: 100 },
  }, roomFor(400));
  assert.deepEqual(projection.blocks, [
    { orderStart: 0, txCount: 4, weight: 397 + 1_200, sigops: 3, vsize: 400, fees: 10_000, minFeeRate: 10, maxFeeRate: 40, medianFeeRate: 25 },
    { orderStart: 4, txCount: 1, weight: 400, sigops: 0, vsize: 100, fees: 500, minFeeRate: 5, maxFeeRate: 5, medianFeeRate: 5 },
  ]);
});

test('the last projected block collects everything left, unless told not to', () => {
  const specs = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`t${i}`, { fee: 1_000 * (10 - i), vsize: 100 }]));
  assert.deepEqual(blocksOf(specs, { ...roomFor(100), maxBlocks: 3 }).blocks, [['t0'], ['t1'], ['t2', 't3', 't4', 't5']]);
  const limited = blocksOf(specs, { ...roomFor(100), maxBlocks: 3, lastBlockCollectsRest: false });
  assert.deepEqual(limited.blocks, [['t0'], ['t1'], ['t2']]);
  assert.equal(projectedBlockOf(limited.projection, 5), -1);
});

test('refuses snapshots with a dependency cycle or an unknown parent', () => {
  const { snapshot } = mempool({ a: { fee: 1, vsize: 1 }, b: { fee: 1, vsize: 1, parents: ['a'] } });
  snapshot.parents = new Int32Array([1, 0]);
  snapshot.parentStart = new Int32Array([0, 1, 2]);
  assert.throws(() => assembleBlocks(snapshot), /cycle/);
  assert.throws(() => encodeMempoolSnapshot([{ txid: txidRanked(1), fee: 1, vsize: 1, weight: 4, depends: [txidRanked(2)] }]), /not in the snapshot/);
});

// ------------------------------------------------------------ random mempools

interface RandomTx {
  fee: number;
  vsize: number;
  sigops: number;
  parents: number[];
}

const randomMempool = fc
  .array(
    fc.record({
      // Few distinct rates and sizes: ties are common, as at round fee rates.
      feeRate: fc.constantFrom(0, 1, 2, 3, 5, 8, 13, 40, 100),
      vsize: fc.constantFrom(100, 150, 200, 1_000, 20_000, 90_000),
      extraFee: fc.integer({ min: 0, max: 3 }),
      sigops: fc.constantFrom(0, 0, 0, 4, 2_000, 15_000),
      parentPicks: fc.array(fc.nat(), { maxLength: 3 }),
      prioritised: fc.constantFrom(0, 0, 0, 0, 5_000, -50),
    }),
    { maxLength: 60, size: 'max' },
  )
  .map((rows) =>
    rows.map((row, i): RandomTx & { modifiedFee: number } => {
      // Sigops set the vsize where they outweigh the bytes, as in the node's answer (20 vbytes per sigop cost).
      const vsize = Math.max(row.vsize, 5 * row.sigops);
      const fee = row.feeRate * vsize + row.extraFee;
      return {
        fee,
        modifiedFee: fee + row.prioritised,
        vsize,
        sigops: row.sigops,
        parents: i === 0 ? [] : [...new Set(row.parentPicks.map((p) => p % i))],
      };
    }),
  );

test('random mempools project exactly as a plain transcription of Core\'s addPackageTxs', () => {
  fc.assert(
    fc.property(randomMempool, fc.constantFrom(200_000, 400_000, 1_000_000, 4_000_000), fc.integer({ min: 1, max: 4 }), (txs, maxBlockWeight, maxBlocks) => {
      const entries: SnapshotEntry[] = txs.map((t, i) => ({
        txid: txidRanked((i * 7919) % 10_007),
        fee: t.fee,
        modifiedFee: t.modifiedFee,
        vsize: t.vsize,
        weight: t.vsize * 4 - (i % 4),
        sigops: t.sigops,
        depends: t.parents.map((p) => txidRanked((p * 7919) % 10_007)),
      }));
      const options = { maxBlockWeight, maxBlocks };
      const ours = assembleBlocks(encodeMempoolSnapshot(entries), options);
      const reference = referenceAssemble(entries, options);
      const ourBlocks = ours.blocks.map((b) => [...ours.order.subarray(b.orderStart, b.orderStart + b.txCount)]);
      assert.deepEqual(ourBlocks, reference.blocks);
      for (const [i, rate] of reference.functionalRates) assert.equal(functionalRateOf(ours, i), rate, `functional rate of ${i}`);
    }),
    { numRuns: 400 },
  );
});

test('a mempool of thousands, projected over a dozen small blocks, matches the plain transcription', () => {
  // Large enough for the radix sort and the between-block merges; chains, CPFP, shared rates, prioritisation.
  let state = 7;
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const count = 3_000;
  const ids = Array.from({ length: count }, (_, i) => txidRanked(((i * 7919) % 16_381) + 1));
  const entries: SnapshotEntry[] = ids.map((txid, i) => {
    const bytes = [110, 141, 200, 250, 1_000, 12_000][Math.floor(next() * 6)]!;
    const sigops = next() < 0.01 ? 3_000 : 1;
    // Sigops set the vsize where they outweigh the bytes, as in the node's answer (20 vbytes per sigop cost).
    const vsize = Math.max(bytes, 5 * sigops);
    const rate = next() < 0.5 ? 1 + Math.floor(next() * 8) : next() * 60;
    const fee = Math.ceil(rate * vsize);
    const parents = new Set<string>();
    if (i > 0 && next() < 0.4) parents.add(ids[i - 1 - Math.floor(next() * Math.min(i, 30))]!);
    if (i > 0 && next() < 0.1) parents.add(ids[Math.floor(next() * i)]!);
    return { txid, fee, modifiedFee: next() < 0.02 ? fee + 20_000 : fee, vsize, weight: 4 * bytes - (i % 4), sigops, depends: [...parents] };
  });
  // Keep Core's 25-ancestor limit: drop the parents of anything deeper (a simple bound, the sum over parents).
  const depth = new Map<string, number>();
  for (const entry of entries) {
    const bound = 1 + entry.depends.reduce((a, p) => a + depth.get(p)!, 0);
    if (bound > 25) entry.depends = [];
    depth.set(entry.txid, entry.depends.length === 0 ? 1 : bound);
  }
  for (const options of [{ maxBlockWeight: 300_000, maxBlocks: 12 }, { maxBlockWeight: 300_000, maxBlocks: 12, lastBlockCollectsRest: false }, { maxBlocks: 2 }]) {
    const ours = assembleBlocks(encodeMempoolSnapshot(entries), options);
    const reference = referenceAssemble(entries, options);
    assert.deepEqual(ours.blocks.map((b) => [...ours.order.subarray(b.orderStart, b.orderStart + b.txCount)]), reference.blocks);
    for (const [i, rate] of reference.functionalRates) assert.equal(functionalRateOf(ours, i), rate, `functional rate of ${i}`);
  }
});
