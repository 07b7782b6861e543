import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exactlyBefore, exactTieRateFor, mergeByScore, ScoreOrder, sortByScore, TxidOrder, txidPrefixes } from './score-order.ts';

/** A deterministic generator, so that a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

interface Scored {
  order: ScoreOrder;
  count: number;
}

/** `count` scores drawn to collide: few sizes, round rates, negative fees, shared txid prefixes, huge packages. */
function scores(count: number, seed: number, maxSize = 4_000_000): Scored {
  const next = random(seed);
  const txids = new Uint8Array(count * 32);
  for (let i = 0; i < txids.length; i++) txids[i] = Math.floor(next() * 256);
  // Every fifth txid shares its first 6 bytes with the one before: the prefix shortcut must not decide those.
  for (let i = 5; i < count; i += 5) txids.copyWithin(i * 32, (i - 1) * 32, (i - 1) * 32 + 6);
  const txidOrder = new TxidOrder(txids, txidPrefixes(txids, new Float64Array(count)));
  const order = new ScoreOrder(new Float64Array(count), new Float64Array(count), new Float64Array(count), txidOrder, exactTieRateFor(maxSize));
  const sizes = [1, 3, 100, 141, 250, 1_000, 99_999, maxSize];
  for (let i = 0; i < count; i++) {
    const size = sizes[Math.floor(next() * sizes.length)]!;
    const draw = next();
    let fee: number;
    if (draw < 0.4) fee = Math.floor(next() * 5) * size; // round rates: exact ties
    else if (draw < 0.45) fee = -Math.floor(next() * 1_000); // prioritised below zero
    else if (draw < 0.5) fee = 0;
    else if (draw < 0.55) fee = Math.floor(next() * 2 ** 31) * 3; // huge rates, beyond the quotient shortcut
    else fee = Math.floor(next() * 1_000 * size);
    order.set(i, fee, size);
  }
  return { order, count };
}

const exact = (order: ScoreOrder) => (a: number, b: number) =>
  exactlyBefore(order.fee[a]!, order.size[a]!, a, order.fee[b]!, order.size[b]!, b, order.txidOrder) ? -1 : 1;

test('the quotient shortcut orders exactly as Core\'s cross-multiplication', () => {
  const { order, count } = scores(3_000, 1);
  for (let a = 0; a < count; a += 7) {
    for (let b = 0; b < count; b += 3) {
      if (a === b) continue;
      assert.equal(order.before(a, b), exact(order)(a, b) < 0, `${a} vs ${b}`);
    }
  }
});

test('the radix sort of a large list gives the exact comparison order', () => {
  for (const seed of [2, 3, 4]) {
    const { order, count } = scores(20_000, seed);
    const txs = Int32Array.from({ length: count }, (_, i) => i);
    sortByScore(txs, order);
    const expected = Array.from({ length: count }, (_, i) => i).sort(exact(order));
    assert.deepEqual([...txs], expected);
  }
});

test('a small list is sorted by comparison, to the same order', () => {
  const { order } = scores(500, 5);
  const txs = Int32Array.from({ length: 500 }, (_, i) => 499 - i);
  sortByScore(txs, order);
  assert.deepEqual([...txs], Array.from({ length: 500 }, (_, i) => i).sort(exact(order)));
});

test('merging a few re-scored transactions into many keeps the order', () => {
  const { order, count } = scores(10_000, 6);
  const all = Array.from({ length: count }, (_, i) => i).sort(exact(order));
  const few = all.filter((_, i) => i % 97 === 0 || i < 3 || i > count - 3);
  const many = all.filter((_, i) => !(i % 97 === 0 || i < 3 || i > count - 3));
  const out = new Int32Array(count);
  mergeByScore(Int32Array.from(many), Int32Array.from(few), out, order);
  assert.deepEqual([...out], all);
  const none = new Int32Array(many.length);
  mergeByScore(Int32Array.from(many), new Int32Array(0), none, order);
  assert.deepEqual([...none], many);
  // As many on each side (merged element by element), and into nothing.
  const odd = all.filter((_, i) => i % 2 === 1);
  const even = all.filter((_, i) => i % 2 === 0);
  mergeByScore(Int32Array.from(even), Int32Array.from(odd), out, order);
  assert.deepEqual([...out], all);
  mergeByScore(new Int32Array(0), Int32Array.from(all), out, order);
  assert.deepEqual([...out], all);
});
