import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FamilyTx } from '@slipstream/mempool-engine';
import { portalFamily, relativesOf } from './portal-family.ts';

const tx = (txid: string, fee: number, vsize: number, parents: string[] = []): FamilyTx => ({ txid, fee, vsize, parents });

test('alone: its own rate, no relatives to ask about, nothing withheld', () => {
  const family = [tx('t', 432, 144)];
  assert.deepEqual(relativesOf(family), []);
  assert.deepEqual(portalFamily(family, new Set()), { rate: 3, ancestors: [], descendants: [], withOthers: false });
});

test('a rich child: counted when it is the portal\'s, left out (and the depth withheld) when it is not', () => {
  const family = [tx('t', 432, 144), tx('y', 5_000_000, 110, ['t'])];
  assert.deepEqual(relativesOf(family), ['y']);
  const privateChild = portalFamily(family, new Set());
  assert.equal(privateChild.rate, 3);
  assert.deepEqual(privateChild.descendants, []);
  assert.equal(privateChild.withOthers, true);
  const portalChild = portalFamily(family, new Set(['y']));
  assert.equal(portalChild.rate, (432 + 5_000_000) / (144 + 110));
  assert.deepEqual(portalChild.descendants.map((d) => d.txid), ['y']);
  assert.equal(portalChild.withOthers, false);
});

test('a cheap child does not lower its parent: the parent is taken first, at its own rate', () => {
  assert.equal(portalFamily([tx('t', 1_000, 100), tx('c', 100, 100, ['t'])], new Set(['c'])).rate, 10);
});

test('ancestors: the portal\'s are in its package (the lower of its own rate and the package\'s), a private one is not', () => {
  const family = [tx('t', 2_000, 100, ['p']), tx('p', 100, 100, ['g']), tx('g', 100, 100)];
  // Only the grandparent is the portal's: its package is the grandparent and itself, the private parent left out.
  const withGrandparent = portalFamily(family, new Set(['g']));
  assert.equal(withGrandparent.rate, (2_000 + 100) / 200);
  assert.deepEqual(withGrandparent.ancestors.map((a) => a.txid), ['g']);
  assert.equal(withGrandparent.withOthers, true);
  const all = portalFamily(family, new Set(['p', 'g']));
  assert.equal(all.rate, 2_200 / 300);
  assert.deepEqual(all.ancestors.map((a) => a.txid).sort(), ['g', 'p']);
});

test('a rich ancestor is taken on its own first, and no longer pays for its descendant', () => {
  assert.equal(portalFamily([tx('t', 300, 100, ['p']), tx('p', 10_000, 100)], new Set(['p'])).rate, 3);
});

test("a child's other parent: in the child's package when it is the portal's, not when it is private", () => {
  const family = [tx('t', 100, 100), tx('c', 5_000, 100, ['t', 'q']), tx('q', 100, 100)];
  assert.equal(portalFamily(family, new Set(['c', 'q'])).rate, 5_200 / 300);
  assert.equal(portalFamily(family, new Set(['c'])).rate, 5_100 / 200);
});

test('the best child lifts it: of two portal children, the package that pays more', () => {
  const family = [tx('t', 100, 100), tx('a', 1_000, 100, ['t']), tx('b', 3_000, 100, ['t'])];
  const own = portalFamily(family, new Set(['a', 'b']));
  assert.equal(own.rate, 3_100 / 200);
  assert.deepEqual(own.descendants.map((d) => d.txid), ['a', 'b']);
});

test('on a Core 31 node (cluster mempool) its rate is its chunk\'s: a sibling that pays more joins the chunk its parent and brother make', () => {
  // A 0-fee parent with two children: 1,000 sats and 600 sats, 100 vB each.
  const family = [tx('d', 600, 100, ['p']), tx('p', 0, 100), tx('c', 1_000, 100, ['p'])];
  const portal = new Set(['p', 'c']);
  // Ancestor scores (Core 30 and earlier): the parent goes with the richer child at 5 sat/vB, then this one alone at 6.
  assert.equal(portalFamily(family, portal, false).rate, 6);
  // Chunks (Core 31): after the parent and the richer child (5 sat/vB) comes 6 sat/vB, which merges: one chunk of 1,600 sats in 300 vB.
  assert.equal(portalFamily(family, portal, true).rate, 1_600 / 300);
  // Its relatives as before: the parent an ancestor, no descendants.
  assert.deepEqual(portalFamily(family, portal, true).ancestors.map((a) => a.txid), ['p']);
});
