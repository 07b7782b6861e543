import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlocks } from '../projection/block-assembler.ts';
import { MempoolMirror, type MirrorEntry } from './mempool-mirror.ts';
import { assertValidSnapshot, encodeMempoolSnapshot, sigopCostFloor, txidAt, type MempoolSnapshot } from './mempool-snapshot.ts';
import { seededRandom } from '../../../server/src/lib/seeded-random.ts';

/**
 * The mirror against a model of plain objects, under random additions
 * (with parents, and with children already present, as a reorganisation
 * brings back), removals in any order, and mined removals: its snapshot
 * must hold exactly the model's transactions and links, and project exactly
 * as the model's own snapshot does.
 */

const txid = (n: number) => n.toString(16).padStart(64, '0');

interface ModelTx {
  entry: MirrorEntry;
  parents: Set<string>;
}

function entryOf(random: () => number, depends: string[] = [], spentby: string[] = []): MirrorEntry {
  const vsize = 100 + Math.floor(random() * 900);
  const fee = Math.floor(vsize * (1 + random() * 50));
  return { fee, modifiedFee: random() < 0.1 ? fee + 10_000 : fee, vsize, weight: 4 * vsize - Math.floor(random() * 3), time: 1_700_000_000 + Math.floor(random() * 1000), depends, spentby };
}

/** The snapshot as txid → (fields, parent txids). */
function decode(snapshot: MempoolSnapshot) {
  const ids = Array.from({ length: snapshot.count }, (_, i) => txidAt(snapshot, i));
  return new Map(ids.map((id, i) => [id, {
    fee: snapshot.fee[i]!,
    modifiedFee: snapshot.modifiedFee[i]!,
    vsize: snapshot.vsize[i]!,
    weight: snapshot.weight[i]!,
    sigops: snapshot.sigops[i]!,
    parents: new Set([...snapshot.parents.subarray(snapshot.parentStart[i], snapshot.parentStart[i + 1])].map((p) => ids[p]!)),
  }]));
}

function assertMatchesModel(mirror: MempoolMirror, model: Map<string, ModelTx>, snapshot: MempoolSnapshot): void {
  assertValidSnapshot(snapshot);
  assert.equal(snapshot.count, model.size);
  assert.equal(mirror.count, model.size);
  const decoded = decode(snapshot);
  for (const [id, tx] of model) {
    const got = decoded.get(id);
    assert.ok(got, `${id} is in the snapshot`);
    assert.deepEqual(
      { fee: got.fee, modifiedFee: got.modifiedFee, vsize: got.vsize, weight: got.weight, sigops: got.sigops, parents: [...got.parents].sort() },
      { fee: tx.entry.fee, modifiedFee: tx.entry.modifiedFee, vsize: tx.entry.vsize, weight: tx.entry.weight, sigops: sigopCostFloor(tx.entry.vsize, tx.entry.weight), parents: [...tx.parents].sort() },
      id,
    );
  }
  const totals = [...model.values()].reduce((a, t) => ({ vsize: a.vsize + t.entry.vsize, fee: a.fee + t.entry.fee }), { vsize: 0, fee: 0 });
  assert.deepEqual(mirror.totals, { txCount: model.size, vsize: totals.vsize, totalFees: totals.fee });
}

/** A transaction back from a disconnected block: children already held name it as a parent now. */
function addReconnected(mirror: MempoolMirror, model: Map<string, ModelTx>, random: () => number, id: string, children: string[]): void {
  const entry = entryOf(random, [], children);
  mirror.add(id, entry, 0);
  model.set(id, { entry, parents: new Set() });
  for (const c of children) model.get(c)!.parents.add(id);
}

/** The model's own snapshot, in the same order as `snapshot`, so projections compare index for index. */
function modelSnapshot(model: Map<string, ModelTx>, snapshot: MempoolSnapshot): MempoolSnapshot {
  const order = Array.from({ length: snapshot.count }, (_, i) => txidAt(snapshot, i));
  return encodeMempoolSnapshot(order.map((id) => {
    const tx = model.get(id)!;
    return { txid: id, fee: tx.entry.fee, modifiedFee: tx.entry.modifiedFee, vsize: tx.entry.vsize, weight: tx.entry.weight, depends: [...tx.parents] };
  }));
}

test('random additions, removals and blocks: the snapshot is the model, and projects as the model does', () => {
  const random = seededRandom(42);
  const mirror = new MempoolMirror();
  const model = new Map<string, ModelTx>();
  let next = 1;
  let reuse: MempoolSnapshot | undefined;
  const pick = () => {
    const ids = [...model.keys()];
    return ids[Math.floor(random() * ids.length)]!;
  };
  for (let round = 0; round < 40; round++) {
    for (let op = 0; op < 250; op++) {
      const draw = random();
      if (draw < 0.55 || model.size < 20) {
        // A new transaction, often spending one or two held ones; sometimes naming a parent already gone.
        const depends = model.size > 0 && random() < 0.5 ? [pick(), ...(random() < 0.2 ? [pick()] : [])] : [];
        if (random() < 0.05) depends.push(txid(999_999_999));
        const id = txid(next++);
        const entry = entryOf(random, [...new Set(depends)]);
        assert.equal(mirror.add(id, entry, 0), true);
        model.set(id, { entry, parents: new Set(depends.filter((d) => model.has(d))) });
      } else if (draw < 0.6) {
        addReconnected(mirror, model, random, txid(next++), [...new Set([pick(), pick()])]);
      } else {
        const id = pick();
        const mined = draw < 0.8;
        assert.equal(mirror.remove(id, mined ? 'mined' : 'removed', 5, mined ? 'b'.repeat(64) : undefined), true);
        model.delete(id);
        for (const tx of model.values()) tx.parents.delete(id);
        const gone = mirror.removal(id);
        assert.equal(gone?.reason, mined ? 'mined' : 'removed');
        assert.equal(gone?.blockHash, mined ? 'b'.repeat(64) : undefined);
      }
    }
    assert.equal(mirror.add(pick(), entryOf(random), 0), false, 'a transaction already held is not added twice');
    const taken = mirror.snapshot(reuse);
    assertMatchesModel(mirror, model, taken.snapshot);
    const ours = assembleBlocks(taken.snapshot, { maxBlocks: 3, maxBlockWeight: 400_000 });
    const theirs = assembleBlocks(modelSnapshot(model, taken.snapshot), { maxBlocks: 3, maxBlockWeight: 400_000 });
    assert.deepEqual(ours, theirs, `round ${round}: the same projection`);
    reuse = taken.snapshot;
  }
  assert.ok(mirror.slotsInUse < 2 * model.size + 300, 'freed slots are reused');
  const compact = mirror.compacted();
  assertMatchesModel(compact, model, compact.snapshot().snapshot);
});

test('a view of a snapshot finds what it held, and not what came or went since, even in a reused slot', () => {
  const random = seededRandom(7);
  const mirror = new MempoolMirror();
  for (let n = 1; n <= 10; n++) mirror.add(txid(n), entryOf(random), 0);
  const taken = mirror.snapshot();
  const kept = mirror.projectedIndex(txid(3), taken);
  assert.equal(txidAt(taken.snapshot, kept), txid(3));
  mirror.remove(txid(5), 'removed', 0);
  mirror.add(txid(11), entryOf(random), 0); // takes slot 5's place
  assert.equal(mirror.slotOf(txid(11)), 4);
  assert.equal(mirror.projectedIndex(txid(11), taken), -1, 'arrived after the snapshot');
  assert.equal(mirror.projectedIndex(txid(5), taken), -1, 'left after the snapshot');
  assert.equal(mirror.projectedIndex(txid(3), taken), kept);
  assert.equal(mirror.projectedIndex(txid(99), taken), -1);
});

test('changes are timed, for the lag: the oldest since the last snapshot', () => {
  const random = seededRandom(9);
  const mirror = new MempoolMirror();
  assert.equal(mirror.snapshot().oldestChangeAtMs, undefined);
  mirror.add(txid(1), entryOf(random), 1_000);
  mirror.add(txid(2), entryOf(random), 900);
  mirror.setModifiedFee(txid(1), 123, 2_000);
  assert.equal(mirror.pendingSinceMs, 900);
  const first = mirror.snapshot();
  assert.equal(first.oldestChangeAtMs, 900);
  assert.equal(mirror.snapshot().oldestChangeAtMs, undefined);
  assert.equal(first.snapshot.modifiedFee[0], 123);
  assert.equal(mirror.setModifiedFee(txid(1), 123, 3_000), false, 'an unchanged fee is no change');
});

test('departed transactions are remembered up to a bound, oldest forgotten first, and forgotten on return', () => {
  const random = seededRandom(3);
  const mirror = new MempoolMirror({ rememberRemoved: 3 });
  for (let n = 1; n <= 5; n++) mirror.add(txid(n), entryOf(random), 0);
  for (let n = 1; n <= 5; n++) mirror.remove(txid(n), 'removed', n);
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => mirror.removal(txid(n)) !== undefined), [false, false, true, true, true]);
  mirror.add(txid(4), entryOf(random), 0);
  assert.equal(mirror.removal(txid(4)), undefined);
  const other = new MempoolMirror();
  mirror.rememberInto(other);
  assert.deepEqual([3, 4, 5].map((n) => other.removal(txid(n))?.removedAtMs), [3, undefined, 5]);
});

test('a mempool that grows, drains and grows again keeps its links through pool compactions', () => {
  const random = seededRandom(5);
  const mirror = new MempoolMirror();
  const model = new Map<string, ModelTx>();
  let next = 1;
  for (let wave = 0; wave < 4; wave++) {
    // Chains of up to 25, each transaction spending the previous one.
    for (let n = 0; n < 4_000; n++) {
      const id = txid(next++);
      const parent = n % 25 === 0 ? [] : [txid(next - 2)];
      const entry = entryOf(random, parent);
      mirror.add(id, entry, 0);
      model.set(id, { entry, parents: new Set(parent.filter((p) => model.has(p))) });
    }
    // A block takes most of it, parents first as a block would.
    for (const id of [...model.keys()].slice(0, 3_500)) {
      mirror.remove(id, 'mined', 0, 'c'.repeat(64));
      model.delete(id);
      for (const tx of model.values()) tx.parents.delete(id);
    }
    assertMatchesModel(mirror, model, mirror.snapshot().snapshot);
  }
  const compact = mirror.compacted();
  assertMatchesModel(compact, model, compact.snapshot().snapshot);
  assert.ok(compact.slotsInUse === model.size);
});

test('snapshots into the last one\'s memory hold the model after every few changes, and a slot keeps its version exactly while what it holds stays', () => {
  const random = seededRandom(11);
  const mirror = new MempoolMirror();
  const model = new Map<string, ModelTx>();
  let next = 1;
  const pick = () => {
    const ids = [...model.keys()];
    return ids[Math.floor(random() * ids.length)]!;
  };
  let reuse: MempoolSnapshot | undefined;
  let before: { bySlot: Map<number, { version: number; content: string }> } | undefined;
  for (let round = 0; round < 300; round++) {
    // A few changes at a time, anywhere, as between two projections; a first mempool in round 0.
    for (let op = 0, ops = round === 0 ? 200 : 1 + Math.floor(random() * 4); op < ops; op++) {
      const draw = random();
      if (draw < 0.45 || model.size < 20) {
        const depends = model.size > 0 && random() < 0.5 ? [...new Set([pick(), pick()])] : [];
        const id = txid(next++);
        const entry = entryOf(random, depends);
        mirror.add(id, entry, 0);
        model.set(id, { entry, parents: new Set(depends) });
      } else if (draw < 0.5) {
        addReconnected(mirror, model, random, txid(next++), [...new Set([pick(), pick()])]);
      } else if (draw < 0.65) {
        const id = pick();
        const modifiedFee = model.get(id)!.entry.fee + Math.floor(random() * 10_000);
        mirror.setModifiedFee(id, modifiedFee, 0);
        model.get(id)!.entry = { ...model.get(id)!.entry, modifiedFee };
      } else {
        const id = pick();
        mirror.remove(id, random() < 0.5 ? 'mined' : 'removed', 0);
        model.delete(id);
        for (const tx of model.values()) tx.parents.delete(id);
      }
    }
    const { snapshot } = mirror.snapshot(reuse);
    assertMatchesModel(mirror, model, snapshot);
    const decoded = decode(snapshot);
    const ids = Array.from({ length: snapshot.count }, (_, i) => txidAt(snapshot, i));
    const bySlot = new Map(ids.map((id, i) => [snapshot.identity!.slots[i]!, { version: snapshot.identity!.versions[i]!, content: JSON.stringify({ id, ...decoded.get(id), parents: [...decoded.get(id)!.parents].sort() }) }]));
    assert.deepEqual([...bySlot.keys()], ids.map((id) => mirror.slotOf(id)), 'slots are the mirror\'s, ascending');
    for (const [slot, previous] of before?.bySlot ?? []) {
      const current = bySlot.get(slot);
      if (current) assert.equal(current.version === previous.version, current.content === previous.content, `round ${round}, slot ${slot}: the version changes exactly when the content does`);
    }
    before = { bySlot };
    reuse = snapshot;
  }
});

test('an entry whose vsize is below what its weight makes it is held at that floor, in the snapshot, the totals and the projection', () => {
  // The node's vsize is sigop-adjusted and never below ceil(weight / 4): two 3,000 WU transactions reported at 400 vB are 750 vB each.
  const mirror = new MempoolMirror();
  for (const n of [1, 2]) mirror.add(txid(n), { fee: 10_000, modifiedFee: 10_000, vsize: 400, weight: 3_000, time: 1_700_000_000, depends: [], spentby: [] }, 0);
  const { snapshot } = mirror.snapshot();
  assertValidSnapshot(snapshot);
  assert.deepEqual([...snapshot.vsize], [750, 750]);
  assert.equal(mirror.get(txid(1))?.vsize, 750);
  assert.equal(mirror.totals.vsize, 1_500);
  // Room for 1,000 vB after the coinbase's reserve: one of them, not both.
  const maxBlockWeight = 8_000 + 4 * 1_000 + 1;
  const projection = assembleBlocks(snapshot, { maxBlockWeight, lastBlockCollectsRest: false });
  assert.equal(projection.blocks[0]!.txCount, 1);
  assert.ok(8_000 + projection.blocks[0]!.weight < maxBlockWeight, `block weight ${projection.blocks[0]!.weight} fits`);
  mirror.remove(txid(1), 'removed', 0);
  assert.equal(mirror.removal(txid(1))?.vsize, 750);
  assert.equal(mirror.totals.vsize, 750);
});

/** A cluster-mempool node's entry: its chunk's fee (sats) and weight with it. */
const chunked = (fee: number, vsize: number, chunk: [number, number], links: { depends?: string[]; spentby?: string[] } = {}): MirrorEntry => ({
  fee,
  modifiedFee: fee,
  vsize,
  weight: 4 * vsize,
  time: 1_700_000_000,
  depends: links.depends ?? [],
  spentby: links.spentby ?? [],
  chunkFee: chunk[0],
  chunkWeight: chunk[1],
});

/** Per txid, the chunk a snapshot holds, or undefined when it carries none. */
function chunksOf(snapshot: MempoolSnapshot): Map<string, [number, number]> | undefined {
  if (!snapshot.chunkFee || !snapshot.chunkWeight) return undefined;
  return new Map(Array.from({ length: snapshot.count }, (_, i) => [txidAt(snapshot, i), [snapshot.chunkFee![i]!, snapshot.chunkWeight![i]!] as [number, number]]));
}

test('a Core 31 node\'s chunks reach the snapshot when every transaction has one; a node without them gets none, and is never asked again', () => {
  const mirror = new MempoolMirror();
  mirror.add(txid(1), chunked(1_000, 100, [1_000, 400]), 0);
  mirror.add(txid(2), chunked(3_000, 200, [3_000, 800]), 0);
  assert.deepEqual(chunksOf(mirror.snapshot().snapshot), new Map([[txid(1), [1_000, 400]], [txid(2), [3_000, 800]]]));
  // One without a chunk (an entry from a node before cluster mempool): none at all.
  const { chunkFee: _f, chunkWeight: _w, ...plain } = chunked(500, 100, [0, 0]);
  mirror.add(txid(3), plain, 0);
  assert.equal(chunksOf(mirror.snapshot().snapshot), undefined);

  const knots = new MempoolMirror();
  knots.add(txid(1), { ...plain, spentby: [txid(2)] }, 0);
  knots.add(txid(2), { ...plain, depends: [txid(1)] }, 0);
  knots.remove(txid(1), 'mined', 0);
  assert.equal(chunksOf(knots.snapshot().snapshot), undefined);
  assert.deepEqual(knots.staleChunkTxids(), [], 'no chunk to ask a node without cluster mempool for');
});

test('a child joining a cluster forgets every chunk of the cluster until the node says them again', () => {
  const mirror = new MempoolMirror();
  // G → P at 1 sat/vB each, and a stranger U, from one mempool list (as a resynchronisation fills a mirror).
  mirror.chunksFollowLinks = false;
  mirror.add(txid(1), chunked(100, 100, [100, 400], { spentby: [txid(2)] }), 0);
  mirror.add(txid(2), chunked(100, 100, [100, 400], { depends: [txid(1)] }), 0);
  mirror.add(txid(9), chunked(2_000, 100, [2_000, 400]), 0);
  mirror.chunksFollowLinks = true;
  assert.ok(mirror.chunksComplete);
  // C pays for both: the node's chunk is now G + P + C.
  mirror.add(txid(3), chunked(5_800, 100, [6_000, 1_200], { depends: [txid(2)] }), 0);
  assert.equal(mirror.chunksComplete, false);
  assert.equal(chunksOf(mirror.snapshot().snapshot), undefined, 'no snapshot with chunks that may be stale');
  assert.deepEqual(mirror.staleChunkTxids().sort(), [txid(1), txid(2), txid(3)]);
  for (const [n, named] of [[1, 1], [2, 2], [3, 1]] as const) assert.ok(mirror.setChunk(txid(n), 6_000, 1_200, named, 1));
  assert.deepEqual(mirror.staleChunkTxids(), []);
  assert.deepEqual(chunksOf(mirror.snapshot().snapshot), new Map([[txid(1), [6_000, 1_200]], [txid(2), [6_000, 1_200]], [txid(9), [2_000, 400]], [txid(3), [6_000, 1_200]]]));
});

test('a chunk counts only while the mirror holds every parent and child its entry named', () => {
  const mirror = new MempoolMirror();
  // P's entry names a child X the mirror does not hold: P's chunk counts X's fee.
  mirror.add(txid(1), chunked(100, 100, [3_100, 800], { spentby: [txid(7)] }), 0);
  assert.equal(mirror.chunksComplete, false);
  assert.deepEqual(mirror.staleChunkTxids(), [txid(1)]);
  // X never comes (it left before its entry was read); asked again, the node names no child.
  assert.ok(mirror.setChunk(txid(1), 100, 400, 0, 1));
  assert.ok(mirror.chunksComplete);
  assert.deepEqual(chunksOf(mirror.snapshot().snapshot), new Map([[txid(1), [100, 400]]]));

  // Or it does come: linked, the cluster's chunks are asked for again, and then count.
  const other = new MempoolMirror();
  other.add(txid(1), chunked(100, 100, [3_100, 800], { spentby: [txid(7)] }), 0);
  other.add(txid(7), chunked(3_000, 100, [3_100, 800], { depends: [txid(1)] }), 0);
  assert.deepEqual(other.staleChunkTxids().sort(), [txid(1), txid(7)]);
  other.setChunk(txid(1), 3_100, 800, 1, 1);
  other.setChunk(txid(7), 3_100, 800, 1, 1);
  assert.ok(other.chunksComplete);
});

test('a transaction leaving, or a fee delta, forgets the chunks of its cluster', () => {
  const mirror = new MempoolMirror();
  mirror.add(txid(1), chunked(100, 100, [3_100, 800], { spentby: [txid(2)] }), 0);
  mirror.add(txid(2), chunked(3_000, 100, [3_100, 800], { depends: [txid(1)] }), 0);
  mirror.setChunk(txid(1), 3_100, 800, 1, 0);
  mirror.setChunk(txid(2), 3_100, 800, 1, 0);
  assert.ok(mirror.chunksComplete);
  mirror.setModifiedFee(txid(2), 13_000, 1);
  assert.deepEqual(mirror.staleChunkTxids().sort(), [txid(1), txid(2)]);
  mirror.setChunk(txid(1), 13_100, 800, 1, 1);
  mirror.setChunk(txid(2), 13_100, 800, 1, 1);
  mirror.remove(txid(1), 'mined', 2);
  assert.equal(mirror.chunksComplete, false);
  assert.deepEqual(mirror.staleChunkTxids(), [txid(2)], 'the child left behind is a cluster of its own now');
  mirror.setChunk(txid(2), 13_000, 400, 0, 3);
  assert.deepEqual(chunksOf(mirror.snapshot().snapshot), new Map([[txid(2), [13_000, 400]]]));
});

test('a fresh mirror filled from one mempool list keeps the chunks its entries gave, linked or not', () => {
  const mirror = new MempoolMirror();
  mirror.chunksFollowLinks = false;
  // The child first: its parent is not held yet, then is.
  mirror.add(txid(2), chunked(3_000, 100, [3_100, 800], { depends: [txid(1)] }), 0);
  mirror.add(txid(1), chunked(100, 100, [3_100, 800], { spentby: [txid(2)] }), 0);
  mirror.chunksFollowLinks = true;
  assert.deepEqual(mirror.staleChunkTxids(), []);
  assert.deepEqual(chunksOf(mirror.snapshot().snapshot), new Map([[txid(2), [3_100, 800]], [txid(1), [3_100, 800]]]));
});

test('snapshots into the last one\'s memory carry chunk changes; a compacted mirror keeps its chunks', () => {
  const random = seededRandom(11);
  const mirror = new MempoolMirror();
  for (let n = 1; n <= 300; n++) mirror.add(txid(n), chunked(1_000 + n, 100, [1_000 + n, 400]), 0);
  let reuse = mirror.snapshot().snapshot;
  for (let round = 0; round < 20; round++) {
    for (let k = 0; k < 10; k++) {
      const n = 1 + Math.floor(random() * 300);
      if (mirror.has(txid(n))) mirror.setChunk(txid(n), 5_000 + round, 400, 0, round);
    }
    mirror.remove(txid(1 + Math.floor(random() * 300)), 'removed', round);
    const taken = mirror.snapshot(reuse).snapshot;
    assert.deepEqual(chunksOf(taken), chunksOf(mirror.compacted().snapshot().snapshot), `round ${round}`);
    reuse = taken;
  }
});
