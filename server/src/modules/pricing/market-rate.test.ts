import { test } from 'node:test';
import assert from 'node:assert/strict';
import { btcPerKvbToSatPerVb, effectiveRates, summariseTemplate } from './market-rate.ts';

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

// Child pays for parent: the node selects by ancestor-package score (node/miner.cpp, addPackageTxs).

interface Tx {
  txid: string;
  fee: number;
  weight: number;
  sigops?: number;
  depends?: number[];
}

/** A tx of `vbytes` virtual bytes paying `rate` sat/vB, spending the 1-based template `depends`. */
const tx = (txid: string, rate: number, depends: number[] = [], vbytes = 100): Tx => ({ txid, fee: rate * vbytes, weight: vbytes * 4, depends });

/** Filler that makes the template full (3,960,000 WU at 500 sat/vB, above every scenario rate). */
const FILLER: Tx[] = Array.from({ length: 10 }, (_, i) => ({ txid: `fill${i}`, fee: 99_000 * 500, weight: 396_000 }));

/** The scenario after the filler in a full template (its 1-based depends shifted past the filler); one mempool tx left out. */
function fullTemplate(scenario: Tx[]) {
  const shifted = scenario.map((t) => ({ ...t, depends: (t.depends ?? []).map((d) => d + FILLER.length) }));
  const transactions = [...FILLER, ...shifted];
  return { template: { height: 102, transactions }, mempool: mempool(transactions.length + 1) };
}

/** Effective rates of the scenario's own transactions, in a full template. */
function scenarioRates(scenario: Tx[]): number[] {
  return [...effectiveRates(fullTemplate(scenario).template.transactions)].slice(FILLER.length);
}

function marketRateOf(scenario: Tx[]): number {
  const { template, mempool: info } = fullTemplate(scenario);
  const snap = summariseTemplate(template, info, 0);
  assert.equal(snap.nextBlockFull, true);
  return snap.marketRate;
}

test('a CPFP pair in a full block prices at the package rate, not the parent’s own rate', () => {
  const pair = [tx('parent', 1), tx('child', 100, [1])];
  assert.equal(marketRateOf(pair), (100 + 10_000) / 200);
  assert.deepEqual(scenarioRates(pair), [50.5, 50.5]);
});

test('a chain grandparent ← parent ← child is lifted to the child’s three-transaction package', () => {
  const chain = [tx('grandparent', 1), tx('parent', 2, [1]), tx('child', 60, [2])];
  const childPackage = (100 + 200 + 6_000) / 300;
  assert.deepEqual(scenarioRates(chain), [childPackage, childPackage, childPackage]);
  assert.equal(marketRateOf(chain), childPackage);
});

test('a parent with two children takes the better child’s package rate; each child keeps its own', () => {
  const family = [tx('parent', 1), tx('rich', 100, [1]), tx('modest', 50, [1])];
  const rich = (100 + 10_000) / 200;
  const modest = (100 + 5_000) / 200;
  assert.deepEqual(scenarioRates(family), [rich, rich, modest]);
  assert.equal(marketRateOf(family), modest);
});

test('a low child of a high parent is priced at its ancestor package rate, above its own rate', () => {
  const family = [tx('parent', 50), tx('child', 2, [1])];
  const childPackage = (5_000 + 200) / 200;
  assert.deepEqual(scenarioRates(family), [50, childPackage]);
  assert.equal(marketRateOf(family), childPackage);
});

test('a diamond counts the shared grandparent once', () => {
  // top ← left, top ← right, left + right ← bottom
  const diamond = [tx('top', 1), tx('left', 1, [1]), tx('right', 1, [1]), tx('bottom', 97, [2, 3])];
  const bottomPackage = (100 + 100 + 100 + 9_700) / 400;
  assert.deepEqual(scenarioRates(diamond), [bottomPackage, bottomPackage, bottomPackage, bottomPackage]);
});

test('a sigop-heavy transaction is measured by its sigop-adjusted vsize (bytespersigop 20)', () => {
  // 400 WU but 80 sigops: max(400, 80 × 20) / 4 = 400 vB, so 4,000 sats is 10 sat/vB, not 40.
  const heavy = { txid: 'heavy', fee: 4_000, weight: 400, sigops: 80, depends: [] };
  assert.equal(marketRateOf([heavy]), 10);
  // Few sigops change nothing: max(400, 4 × 20) = 400 WU is 100 vB.
  assert.equal(marketRateOf([{ ...heavy, sigops: 4 }]), 40);
  // The adjustment applies inside packages too.
  assert.deepEqual(scenarioRates([heavy, tx('child', 100, [1])]), [(4_000 + 10_000) / 500, (4_000 + 10_000) / 500]);
});

test('the existing behaviour holds for transactions without depends or sigops', () => {
  assert.equal(marketRateOf([{ txid: 'plain', fee: 1_234, weight: 401 }]), 1_234 / 101);
});

test('a template that depends on a missing or cyclic transaction fails loudly', () => {
  assert.throws(() => effectiveRates([tx('a', 1, [2])]), /depends on 2/);
  assert.throws(() => effectiveRates([tx('a', 1, [1])]), /depends on 1/);
  assert.throws(() => effectiveRates([tx('a', 1, [2]), tx('b', 1, [1])]), /cycle/);
});

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The definition, spelled out naively: ancestor sets by recursion, descendants by scanning. */
function referenceRates(txs: Tx[]): number[] {
  const vsize = txs.map((t) => Math.ceil(Math.max(t.weight, (t.sigops ?? 0) * 20) / 4));
  const ancestors: Array<Set<number>> = [];
  const ancestorsOf = (i: number): Set<number> => {
    if (ancestors[i]) return ancestors[i];
    const set = new Set<number>();
    for (const d of txs[i]!.depends ?? []) {
      set.add(d - 1);
      for (const a of ancestorsOf(d - 1)) set.add(a);
    }
    ancestors[i] = set;
    return set;
  };
  const packageRate = txs.map((t, i) => {
    const members = [i, ...ancestorsOf(i)];
    return members.reduce((a, m) => a + txs[m]!.fee, 0) / members.reduce((a, m) => a + vsize[m]!, 0);
  });
  return txs.map((_, i) => Math.max(packageRate[i]!, ...txs.map((__, j) => (ancestorsOf(j).has(i) ? packageRate[j]! : 0))));
}

test('a 10,000-transaction template with CPFP clusters agrees with the naive definition', () => {
  const next = random(2);
  const txs: Tx[] = [];
  const clusterStarts: number[] = [];
  // Clusters of 1–25 transactions (the node's ancestor limit), each member
  // spending up to three earlier members of its own cluster.
  while (txs.length < 10_000) {
    const start = txs.length;
    clusterStarts.push(start);
    const size = Math.min(1 + Math.floor(next() * 25), 10_000 - start);
    for (let k = 0; k < size; k++) {
      const depends = new Set<number>();
      if (k > 0) for (let p = Math.floor(next() * 4); p > 0; p--) depends.add(start + 1 + Math.floor(next() * k));
      const vbytes = 60 + Math.floor(next() * 2_000);
      txs.push({
        txid: `t${txs.length}`,
        fee: Math.floor(vbytes * (0.1 + next() * 200)),
        weight: vbytes * 4 - Math.floor(next() * 4),
        sigops: next() < 0.05 ? Math.floor(next() * 4_000) : Math.floor(next() * 8),
        depends: [...depends],
      });
    }
  }
  // The reference is quadratic: compare cluster by cluster.
  const ours = effectiveRates(txs);
  clusterStarts.forEach((start, c) => {
    const end = clusterStarts[c + 1] ?? txs.length;
    const cluster = txs.slice(start, end).map((t) => ({ ...t, depends: (t.depends ?? []).map((d) => d - start) }));
    assert.deepEqual([...ours.slice(start, end)], referenceRates(cluster), `cluster at ${start}`);
  });
  assert.ok(txs.some((t) => (t.depends ?? []).length > 1), 'the clusters include transactions with several parents');
  const snap = summariseTemplate({ height: 102, transactions: [...FILLER, ...txs] }, mempool(txs.length + 11), 0);
  assert.equal(snap.marketRate, Math.max(1, Math.min(...ours)));
});

test('a 10,000-transaction chain is lifted whole by its last child, without deep recursion', () => {
  const chain: Tx[] = Array.from({ length: 10_000 }, (_, i) => tx(`c${i}`, 1, i === 0 ? [] : [i]));
  // The last one also spends the first: its ancestry is walked once, the first counted once.
  chain[9_999] = tx('c9999', 20_001, [9_999, 1]);
  const lifted = (9_999 * 100 + 2_000_100) / 1_000_000;
  const rates = effectiveRates(chain);
  assert.ok(rates.every((r) => r === lifted));
});
