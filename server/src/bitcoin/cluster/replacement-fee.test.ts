import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chunksOf, compareDiagrams, type FeeFrac } from './feerate-diagram.ts';
import { ancestorSetLinearization, chunkOf, diagramOf, leastImprovingFee, linearize, type ClusterTx } from './replacement-fee.ts';

/**
 * The exact linearization against a brute force over every order parents
 * allow, and the least replacement fee against the same brute force: an
 * oracle that shares nothing with the code under test but the diagram
 * comparison (feerate-diagram.test.ts checks that one against Core's
 * cases).
 */

/** mulberry32: a seeded PRNG, so a failure names a case that replays. */
function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random set of `n` transactions with random DAG parents (often more
 * than one cluster), fees from a few values so that feerates tie, and
 * txids shuffled so that txid order is not the parents-first order.
 */
function randomTxs(random: () => number, n: number): ClusterTx[] {
  const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const names = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));
  for (let i = n - 1; i > 0; i--) {
    const j = int(0, i);
    [names[i], names[j]] = [names[j]!, names[i]!];
  }
  const txs: ClusterTx[] = [];
  for (let i = 0; i < n; i++) {
    const parents = txs.filter(() => random() < 0.4).map((tx) => tx.txid);
    txs.push({ txid: names[i]!, fee: int(0, 12) * 100, vsize: int(1, 5) * 100, parents });
  }
  return txs;
}

/** Every order of `txs` that puts each transaction after its parents among them. */
function* topologicalOrders(txs: readonly ClusterTx[]): Generator<ClusterTx[]> {
  const ids = new Set(txs.map((tx) => tx.txid));
  const order: ClusterTx[] = [];
  const placed = new Set<string>();
  function* place(): Generator<ClusterTx[]> {
    if (order.length === txs.length) {
      yield [...order];
      return;
    }
    for (const tx of txs) {
      if (placed.has(tx.txid) || !tx.parents.every((p) => !ids.has(p) || placed.has(p))) continue;
      placed.add(tx.txid);
      order.push(tx);
      yield* place();
      order.pop();
      placed.delete(tx.txid);
    }
  }
  yield* place();
}

const diagramOfOrder = (order: readonly ClusterTx[]): FeeFrac[] => chunksOf(order.map((tx) => ({ fee: tx.fee, size: tx.vsize })));

/** The first order (if any) whose diagram is somewhere above `diagram`. */
function orderAbove(txs: readonly ClusterTx[], diagram: readonly FeeFrac[]): ClusterTx[] | undefined {
  for (const order of topologicalOrders(txs)) {
    const cmp = compareDiagrams(diagram, diagramOfOrder(order));
    if (cmp !== 1 && cmp !== 0) return order;
  }
  return undefined;
}

/** The best diagram over every order, by brute force; asserts that one is nowhere below any other (an optimal linearization exists). */
function bestDiagram(txs: readonly ClusterTx[]): FeeFrac[] {
  let best: FeeFrac[] | undefined;
  for (const order of topologicalOrders(txs)) {
    const d = diagramOfOrder(order);
    if (!best || compareDiagrams(d, best) === 1) best = d;
  }
  assert.equal(orderAbove(txs, best!), undefined);
  return best!;
}

const isTopological = (order: readonly ClusterTx[]) => order.every((tx, i) => tx.parents.every((p) => !order.some((o) => o.txid === p) || order.findIndex((o) => o.txid === p) < i));

// The ancestor-set linearization is optimal for all but ~0.5% of such sets: enough of them for some of those.
const CLUSTERS = 1_000;
// The ancestor-set linearization asked more than the least fee in one of ~350 such families (3-7 transactions).
const FAMILIES = 600;

describe('exact linearization and the least improving fee (Core 31 cluster mempool)', () => {
  test(`optimal: no order parents allow has a diagram above it anywhere (${CLUSTERS} seeded sets of 1-8 transactions)`, () => {
    const random = prng(31);
    for (let k = 0; k < CLUSTERS; k++) {
      const txs = randomTxs(random, 1 + Math.floor(random() * 8));
      const order = linearize(txs);
      assert.deepEqual(order.map((tx) => tx.txid).sort(), txs.map((tx) => tx.txid).sort(), `case ${k}: a permutation`);
      assert.ok(isTopological(order), `case ${k}: parents first`);
      const diagram = diagramOf(txs);
      assert.deepEqual(chunksOf(order.map((tx) => ({ fee: tx.fee, size: tx.vsize }))), diagram, `case ${k}: linearize and diagramOf agree`);
      const above = orderAbove(txs, diagram);
      assert.equal(above, undefined, `case ${k}: ${JSON.stringify(txs)} has the better order ${above?.map((tx) => tx.txid).join(',')}`);
    }
  });

  test('the optimality check has teeth: the ancestor-set linearization fails it on some of the same seeded sets', () => {
    const random = prng(31);
    let beaten = 0;
    for (let k = 0; k < CLUSTERS; k++) {
      const txs = randomTxs(random, 1 + Math.floor(random() * 8));
      if (orderAbove(txs, diagramOfOrder(ancestorSetLinearization(txs)))) beaten += 1;
    }
    assert.ok(beaten > 0, 'no seeded set told the two apart');
  });

  test('a parent with two children, one with a child of its own: the best package is not an ancestor set', () => {
    // Ancestor sets: {a,b,d} 1,400/400 beats {a,b} 1,000/300, then c joins that chunk: 2,100/500 = 4.2 sat/vB.
    // Best: {a,b,c} 1,700/400 = 4.25 sat/vB, then d at 4: above it at 400 vB (1,700 against 1,680).
    const txs: ClusterTx[] = [
      { txid: 'a', fee: 0, vsize: 200, parents: [] },
      { txid: 'b', fee: 1_000, vsize: 100, parents: ['a'] },
      { txid: 'c', fee: 700, vsize: 100, parents: ['a'] },
      { txid: 'd', fee: 400, vsize: 100, parents: ['b'] },
    ];
    assert.deepEqual(diagramOfOrder(ancestorSetLinearization(txs)), [{ fee: 2_100, size: 500 }]);
    assert.deepEqual(linearize(txs).map((tx) => tx.txid), ['a', 'b', 'c', 'd']);
    assert.deepEqual(diagramOf(txs), [{ fee: 1_700, size: 400 }, { fee: 400, size: 100 }]);
  });

  test('beyond 12 transactions a cluster keeps the ancestor-set linearization', () => {
    const core: ClusterTx[] = [
      { txid: 'a', fee: 0, vsize: 200, parents: [] },
      { txid: 'b', fee: 1_000, vsize: 100, parents: ['a'] },
      { txid: 'c', fee: 700, vsize: 100, parents: ['a'] },
      { txid: 'd', fee: 400, vsize: 100, parents: ['b'] },
    ];
    // A chain of one-sat transactions below d, to 12 and to 13 transactions.
    const chain = (length: number) => Array.from({ length }, (_, i): ClusterTx => ({ txid: `e${String(i).padStart(2, '0')}`, fee: 1, vsize: 100, parents: [i === 0 ? 'd' : `e${String(i - 1).padStart(2, '0')}`] }));
    const twelve = [...core, ...chain(8)];
    const thirteen = [...core, ...chain(9)];
    assert.notDeepEqual(linearize(twelve).map((tx) => tx.txid), ancestorSetLinearization(twelve).map((tx) => tx.txid));
    assert.deepEqual(linearize(thirteen).map((tx) => tx.txid), ancestorSetLinearization(thirteen).map((tx) => tx.txid));
  });

  test('clusters that share no parent are chunked apart and their chunks merged by feerate (txgraph.cpp GetMainStagingDiagrams)', () => {
    // p, q and w are one chunk of 6.33 sat/vB; r, unrelated, pays 5.2. Put
    // after r (as given, or by ancestor sets: r, then p+q, then w) and
    // chunked end to end, w would lift them all into 2,420 sats in 400 vB.
    const txs: ClusterTx[] = [
      { txid: 'r', fee: 520, vsize: 100, parents: [] },
      { txid: 'p', fee: 0, vsize: 100, parents: [] },
      { txid: 'q', fee: 1_000, vsize: 100, parents: ['p'] },
      { txid: 'w', fee: 900, vsize: 100, parents: ['p'] },
    ];
    assert.deepEqual(diagramOf(txs), [{ fee: 1_900, size: 300 }, { fee: 520, size: 100 }]);
    assert.deepEqual(linearize(txs).map((tx) => tx.txid), ['p', 'q', 'w', 'r']);
    assert.deepEqual(chunkOf('r', txs), { fee: 520, size: 100 });
    assert.deepEqual(chunkOf('q', txs), { fee: 1_900, size: 300 });
  });

  test('a family where the ancestor-set diagram asked 1,400 sats: Core takes 1,301', () => {
    // Before: 1,800 in 700 vB, then 1,700 in 700 vB. Evicting d and e (1,300
    // sats) for a 300 vB child of c and b: at 1,301 the second chunk pays 1,701.
    const cluster: ClusterTx[] = [
      { txid: 'f', fee: 300, vsize: 200, parents: [] },
      { txid: 'c', fee: 1_200, vsize: 400, parents: ['f'] },
      { txid: 'b', fee: 400, vsize: 400, parents: ['f', 'c'] },
      { txid: 'd', fee: 500, vsize: 100, parents: ['c', 'b'] },
      { txid: 'a', fee: 300, vsize: 100, parents: ['f'] },
      { txid: 'e', fee: 800, vsize: 200, parents: ['c', 'd'] },
    ];
    assert.deepEqual(diagramOf(cluster), [{ fee: 1_800, size: 700 }, { fee: 1_700, size: 700 }]);
    assert.equal(leastImprovingFee(cluster, new Set(['d', 'e']), { vsize: 300, parents: ['c', 'b'] }), 1_301);
  });

  test('the least improving fee is exact: the brute-force diagram rule fails one sat below it and passes at it and above (seeded families)', () => {
    const random = prng(310);
    const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
    let raised = 0;
    for (let k = 0; k < FAMILIES; k++) {
      const cluster = randomTxs(random, int(3, 7));
      // Replace one transaction, evicting it and its descendants, as bump advice does.
      const replaced = cluster[int(0, cluster.length - 1)]!;
      const evicted = new Set([replaced.txid]);
      for (let size = 0; size !== evicted.size; ) {
        size = evicted.size;
        for (const tx of cluster) if (tx.parents.some((p) => evicted.has(p))) evicted.add(tx.txid);
      }
      const kept = cluster.filter((tx) => !evicted.has(tx.txid));
      const replacement = { vsize: int(1, 5) * 100, parents: random() < 0.7 ? replaced.parents : kept.filter(() => random() < 0.4).map((tx) => tx.txid) };
      const before = bestDiagram(cluster);
      const improves = (fee: number) => compareDiagrams(bestDiagram([...kept, { txid: 'z', fee, ...replacement }]), before) === 1;
      const fee = leastImprovingFee(cluster, evicted, replacement)!;
      const evictedFee = cluster.filter((tx) => evicted.has(tx.txid)).reduce((sum, tx) => sum + tx.fee, 0);
      if (fee > evictedFee + 1) raised += 1;
      const label = `case ${k}: ${JSON.stringify({ cluster, evicted: [...evicted], replacement })} asks ${fee}`;
      assert.ok(improves(fee), label);
      assert.ok(!improves(fee - 1), label);
      for (const above of [fee + 1, fee + int(2, 100), fee + int(101, 10_000), 2 * fee + 1, 10 * fee + 1]) assert.ok(improves(above), `${label}, fails at ${above}`);
    }
    // Some families must ask for more than the evicted fees plus one sat, or the search was not tried.
    assert.ok(raised > 10, `${raised}`);
  });

  test('Bitcoin Core rbf_tests.cpp calc_feerate_diagram_rbf "Conflict with the 2nd tx": replacing the child of a CPFP pair with an unrelated transaction', () => {
    // low_fee = CENT/100, high_fee = CENT (CENT = 1,000,000 sats); the three
    // one-input transactions are the same size (66 vB; only their equality matters).
    const [lowFee, highFee, size] = [10_000, 1_000_000, 66];
    const cluster: ClusterTx[] = [
      { txid: 'low_tx', fee: lowFee, vsize: size, parents: [] },
      { txid: 'high_tx', fee: highFee, vsize: size, parents: ['low_tx'] },
    ];
    assert.deepEqual(diagramOf(cluster), [{ fee: lowFee + highFee, size: 2 * size }]);
    // Core's expected new chunks: {high_fee, low_size}, {low_fee, low_size}.
    assert.deepEqual(diagramOf([cluster[0]!, { txid: 'replacement_tx', fee: highFee, vsize: size, parents: [] }]), [{ fee: highFee, size }, { fee: lowFee, size }]);
    // That diagram ends where the old one does and is above it before: high_fee is the least fee.
    assert.equal(leastImprovingFee(cluster, new Set(['high_tx']), { vsize: size, parents: [] }), highFee);
  });

  test('Bitcoin Core rbf_tests.cpp improves_feerate: a parent and child replaced by a package of the same sizes improves only with one sat more', () => {
    // low_fee = CENT/100 for tx1, normal_fee = CENT/10 for its child tx2.
    // tx1_conflict and tx3 are shaped as tx1 and tx2 (make_tx: 110 vB with
    // two inputs, 66 with one, 62 once tx3's witness is cleared); only
    // "the same" and "fewer" matter.
    const [tx1Fee, tx2Fee, tx1Size, tx2Size] = [10_000, 100_000, 110, 66];
    const before = diagramOf([
      { txid: 'tx1', fee: tx1Fee, vsize: tx1Size, parents: [] },
      { txid: 'tx2', fee: tx2Fee, vsize: tx2Size, parents: ['tx1'] },
    ]);
    const after = (conflictFee: number, childSize: number) => diagramOf([
      { txid: 'tx1_conflict', fee: conflictFee, vsize: tx1Size, parents: [] },
      { txid: 'tx3', fee: tx2Fee, vsize: childSize, parents: ['tx1_conflict'] },
    ]);
    // "It doesn't improve itself"; "With one more satoshi it does"; "With fewer vbytes it does" (tx3 without its witness).
    assert.equal(compareDiagrams(after(tx1Fee, tx2Size), before), 0);
    assert.equal(compareDiagrams(after(tx1Fee + 1, tx2Size), before), 1);
    assert.equal(compareDiagrams(after(tx1Fee, 62), before), 1);
  });
});
