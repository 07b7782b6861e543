import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlocks, createBlockAssembler, functionalRateOf, positionVsizeOf, projectedBlockOf, type BlockAssembler, type BlockAssemblerOptions, type BlockProjection } from './block-assembler.ts';
import { MempoolMirror, type MirrorEntry } from '../mirror/mempool-mirror.ts';
import { cloneSnapshot, encodeMempoolSnapshot, txidAt, type MempoolSnapshot, type SnapshotEntry } from '../mirror/mempool-snapshot.ts';
import { seededRandom } from '../../../server/src/lib/seeded-random.ts';

/**
 * The assembler keeps its ranking between projections and updates it from
 * each snapshot's differences (ranked-mempool.ts). Whatever path an update
 * takes (merging a few changes, laying everything out afresh, ranking from
 * scratch), the projection must be the one a fresh assembler computes from
 * the same snapshot: the same blocks, the same order, and per transaction
 * the same block, position and functional rate. Random mempools, changed
 * at random between snapshots as the node changes them.
 */

const txid = (n: number) => n.toString(16).padStart(64, '0');

/** Small blocks, so that a few hundred transactions span the selected blocks and leave a rest. */
const OPTIONS: BlockAssemblerOptions = { maxBlockWeight: 200_000, maxBlocks: 5 };

/** The projection in snapshot order: what a reader sees, whatever numbering the assembler used. */
function asRead(projection: BlockProjection, count: number) {
  const each = <T>(of: (i: number) => T) => Array.from({ length: count }, (_, i) => of(i));
  return {
    blocks: projection.blocks,
    order: [...projection.order],
    projectedCount: projection.projectedCount,
    packagesSelected: projection.packagesSelected,
    descendantsUpdated: projection.descendantsUpdated,
    block: each((i) => projectedBlockOf(projection, i)),
    position: each((i) => positionVsizeOf(projection, i)),
    rate: each((i) => functionalRateOf(projection, i)),
  };
}

/** Projects with `assembler` and from scratch, and requires the same answers. */
function assertSameAsFromScratch(assembler: BlockAssembler, snapshot: MempoolSnapshot, label: string, options = OPTIONS): BlockProjection {
  const copy = cloneSnapshot(snapshot);
  const ours = assembler.assemble(snapshot, options);
  const fresh = assembleBlocks(copy, options);
  assert.deepEqual(asRead(ours, snapshot.count), asRead(fresh, snapshot.count), label);
  return ours;
}

function entryOf(random: () => number, depends: string[] = [], spentby: string[] = []): MirrorEntry {
  // Few sizes and round rates: ties, which only the txid breaks, are common.
  const vsize = [110, 141, 250, 1_000, 4_000][Math.floor(random() * 5)]!;
  const fee = vsize * [1, 2, 3, 5, 8, 20, 60][Math.floor(random() * 7)]! + (random() < 0.3 ? Math.floor(random() * 50) : 0);
  return { fee, modifiedFee: fee, vsize, weight: 4 * vsize - Math.floor(random() * 3), time: 0, depends, spentby };
}

/**
 * A mirror changed at random, round after round, as the node would: new
 * transactions (many spending held ones, some bringing back parents of held
 * ones as a reorganisation does), removals, blocks mined, prioritisation.
 * Chains stay short, as Core's package limits keep them: a transaction
 * spends one with fewer than three children and a short ancestry.
 */
function* mirrorRounds(seed: number, rounds: number): Generator<{ mirror: MempoolMirror; round: number }> {
  const random = seededRandom(seed);
  const mirror = new MempoolMirror();
  const held: string[] = [];
  const depth = new Map<string, number>();
  const children = new Map<string, number>();
  let next = 1;
  const pick = () => held[Math.floor(random() * held.length)]!;
  const drop = (id: string) => held.splice(held.indexOf(id), 1);
  const spendable = () => {
    const id = pick();
    return (depth.get(id) ?? 0) < 6 && (children.get(id) ?? 0) < 3 ? id : undefined;
  };
  const add = (id: string, entry: MirrorEntry) => {
    mirror.add(id, entry, 0);
    held.push(id);
    depth.set(id, 1 + Math.max(0, ...entry.depends.map((d) => depth.get(d) ?? 0)));
    for (const d of entry.depends) children.set(d, (children.get(d) ?? 0) + 1);
  };
  for (let round = 0; round < rounds; round++) {
    // A first mempool, then a few changes at a time, as between two projections.
    const operations = round === 0 ? 400 : 1 + Math.floor(random() * 12);
    for (let op = 0; op < operations; op++) {
      const draw = round === 0 ? 0 : random();
      if (draw < 0.55 || held.length < 20) {
        const parents = held.length > 0 && random() < 0.5 ? [spendable(), random() < 0.2 ? spendable() : undefined] : [];
        add(txid(next++), entryOf(random, [...new Set(parents.filter((p) => p !== undefined))]));
      } else if (draw < 0.6) {
        add(txid(next++), entryOf(random, [], [...new Set([pick(), pick()])]));
      } else if (draw < 0.7) {
        const id = pick();
        const base = mirror.baseFee(id)!;
        mirror.setModifiedFee(id, random() < 0.5 ? base : base + Math.floor(random() * 200_000) - 1_000, 0);
      } else if (draw < 0.95) {
        const id = pick();
        mirror.remove(id, 'removed', 0);
        drop(id);
      } else {
        // A block: a handful of transactions mined, parents with them.
        for (let k = 0; k < 4 && held.length > 0; k++) {
          const id = pick();
          for (const parent of mirror.parentsOfTx(id)) {
            mirror.remove(parent, 'mined', 0);
            drop(parent);
          }
          mirror.remove(id, 'mined', 0);
          drop(id);
        }
      }
    }
    yield { mirror, round };
  }
}

for (const [name, tuning] of [
  ['laid out afresh only when a tenth is fresh or dead', {}],
  ['laid out afresh on every update', { compactShare: 0, compactMinimum: 0 }],
  ['never laid out afresh', { compactShare: 1e9, compactMinimum: 1e9 }],
] as const) {
  test(`mirror snapshots, updated incrementally (${name}), project as from scratch`, () => {
    for (const seed of [1, 2, 3]) {
      const assembler = createBlockAssembler(tuning);
      let recycled: MempoolSnapshot | undefined;
      let incremental = 0;
      for (const { mirror, round } of mirrorRounds(seed, 40)) {
        const { snapshot } = mirror.snapshot(recycled);
        assertSameAsFromScratch(assembler, snapshot, `seed ${seed}, round ${round}`);
        if (!assembler.lastRanking.full) incremental++;
        recycled = snapshot;
      }
      assert.ok(incremental > 30, `seed ${seed}: ${incremental} of 40 projections updated incrementally`);
    }
  });
}

test('snapshots without an identity are compared field by field, and a changed field re-ranks the transaction and its descendants', () => {
  const random = seededRandom(9);
  const entries: SnapshotEntry[] = [];
  for (let i = 0; i < 300; i++) {
    const { fee, vsize, weight } = entryOf(random);
    const depends = i > 0 && random() < 0.4 ? [entries[Math.floor(random() * i)]!.txid] : [];
    entries.push({ txid: txid(1_000 + i), fee, modifiedFee: fee, vsize, weight, sigops: 0, depends });
  }
  const assembler = createBlockAssembler();
  assertSameAsFromScratch(assembler, encodeMempoolSnapshot(entries), 'first');
  assert.equal(assembler.lastRanking.full, true);

  // The same snapshot again: nothing to re-rank.
  assertSameAsFromScratch(assembler, encodeMempoolSnapshot(entries), 'unchanged');
  assert.deepEqual(assembler.lastRanking, { full: false, reranked: 0, compacted: false });

  // One prioritised transaction with a descendant chain: it and exactly its descendants are re-ranked.
  const chain = entries.findIndex((e, i) => entries.some((c) => c.depends.includes(e.txid)) && i < 100);
  const descendants = new Set([entries[chain]!.txid]);
  for (const e of entries) if (e.depends.some((d) => descendants.has(d))) descendants.add(e.txid);
  entries[chain] = { ...entries[chain]!, modifiedFee: entries[chain]!.fee + 500_000 };
  assertSameAsFromScratch(assembler, encodeMempoolSnapshot(entries), 'prioritised');
  assert.equal(assembler.lastRanking.reranked, descendants.size);

  // Another weight, another transaction at an index (its children going with the old one), one more at the end.
  const replaced = entries[20]!.txid;
  entries[10] = { ...entries[10]!, weight: entries[10]!.weight - 1 };
  entries[20] = { ...entries[20]!, txid: txid(9_999), depends: [] };
  const orphaned = new Set([replaced]);
  for (const e of entries) if (e.depends.some((d) => orphaned.has(d))) orphaned.add(e.txid);
  for (const [i, e] of entries.entries()) if (orphaned.has(e.txid)) entries[i] = { ...e, depends: e.depends.filter((d) => d !== replaced) };
  entries.push({ txid: txid(8_888), fee: 50_000, vsize: 200, weight: 800, depends: [entries[5]!.txid] });
  assertSameAsFromScratch(assembler, encodeMempoolSnapshot(entries), 'edited in place');
  assert.equal(assembler.lastRanking.full, false);

  // Transactions gone from the middle: without an identity, the index is the slot, so everything after moved.
  const gone = new Set(entries.filter((_, i) => i % 7 === 3).map((e) => e.txid));
  for (const e of entries) if (e.depends.some((d) => gone.has(d))) gone.add(e.txid);
  assertSameAsFromScratch(assembler, encodeMempoolSnapshot(entries.filter((e) => !gone.has(e.txid))), 'some gone');
});

test('a snapshot in another order, or from another mirror, is ranked afresh and still projects as from scratch', () => {
  const [first] = [...mirrorRounds(5, 1)];
  const mirror = first!.mirror;
  const assembler = createBlockAssembler();
  const taken = mirror.snapshot().snapshot;
  assertSameAsFromScratch(assembler, taken, 'the mirror');
  const other = mirror.compacted();
  assertSameAsFromScratch(assembler, other.snapshot().snapshot, 'a compacted copy: another source');
  assert.equal(assembler.lastRanking.full, true);
  const reversed = Array.from({ length: taken.count }, (_, k) => taken.count - 1 - k);
  const entries = reversed.map((i): SnapshotEntry => ({
    txid: txidAt(taken, i),
    fee: taken.fee[i]!,
    modifiedFee: taken.modifiedFee[i]!,
    vsize: taken.vsize[i]!,
    weight: taken.weight[i]!,
    sigops: taken.sigops[i]!,
    depends: [...taken.parents.subarray(taken.parentStart[i], taken.parentStart[i + 1])].map((p) => txidAt(taken, p)),
  }));
  assertSameAsFromScratch(assembler, encodeMempoolSnapshot(entries), 'reversed, without identity');
});

test('after a snapshot it refuses, the assembler starts afresh and projects correctly', () => {
  const rounds = mirrorRounds(6, 6);
  const assembler = createBlockAssembler();
  let recycled: MempoolSnapshot | undefined;
  for (const { mirror, round } of rounds) {
    const { snapshot } = mirror.snapshot(recycled);
    if (round === 3) {
      const broken = cloneSnapshot(snapshot);
      broken.vsize[0] = 0;
      // Shown as changed (a version never given), so that the vsize is read and checked.
      broken.identity!.versions[0] = -1;
      assert.throws(() => assembler.assemble(broken, OPTIONS), /vsize/);
    }
    assertSameAsFromScratch(assembler, snapshot, `round ${round}`);
    recycled = snapshot;
  }
});

test('the full selection and the rest agree with the fresh assembler at the product\'s defaults too', () => {
  const assembler = createBlockAssembler({ compactShare: 0.02, compactMinimum: 0 });
  let recycled: MempoolSnapshot | undefined;
  for (const { mirror, round } of mirrorRounds(7, 25)) {
    const { snapshot } = mirror.snapshot(recycled);
    // Default 4,000,000 WU blocks hold the whole mempool: the rest is empty; with 20,000 WU, 8 blocks and a rest.
    assertSameAsFromScratch(assembler, snapshot, `round ${round}, defaults`, {});
    assertSameAsFromScratch(assembler, snapshot, `round ${round}, small blocks`, { maxBlockWeight: 20_000 });
    recycled = snapshot;
  }
});

test('a mempool emptied and filled again, snapshot by snapshot, still projects as from scratch', () => {
  const assembler = createBlockAssembler({ compactShare: 1e9, compactMinimum: 1e9 });
  const [first] = [...mirrorRounds(8, 1)];
  const mirror = first!.mirror;
  const full = mirror.snapshot().snapshot;
  assertSameAsFromScratch(assembler, full, 'full');
  for (const id of [...mirror.txids()]) mirror.remove(id, 'mined', 0);
  const empty = assertSameAsFromScratch(assembler, mirror.snapshot(full).snapshot, 'emptied');
  assert.deepEqual(empty.blocks, []);
  const random = seededRandom(80);
  for (let n = 0; n < 50; n++) mirror.add(txid(100_000 + n), entryOf(random), 0);
  assertSameAsFromScratch(assembler, mirror.snapshot().snapshot, 'filled again');
  assert.equal(assembler.lastRanking.full, true, 'a mempool all new is ranked from scratch');
});
