import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ASSUMED_CHILD_VSIZE, childLimit, childVsizeFor, diagramMinimum } from './bump-advice.ts';

test("a child's size by the script of the output it spends: one input of that kind, one P2WPKH output", () => {
  assert.equal(childVsizeFor('witness_v0_keyhash'), 110); // 10.5 + 68 + 31 = 109.5
  assert.equal(childVsizeFor('witness_v1_taproot'), 99); // 10.5 + 57.5 + 31
  assert.equal(childVsizeFor('pubkeyhash'), 190); // 10.5 + 148 + 31 = 189.5
  assert.equal(childVsizeFor('scripthash'), 133); // 10.5 + 91 + 31 = 132.5
  assert.equal(childVsizeFor('witness_v0_scripthash'), ASSUMED_CHILD_VSIZE, 'unknown spend: the P2WPKH-sized assumption');
  assert.equal(childVsizeFor('nonstandard'), ASSUMED_CHILD_VSIZE);
});

test('a child fits the node\'s limits: 25 ancestors before Core 31, a cluster of 64 and 101 kvB from it (relatives submitted here counted)', () => {
  const relative = (i: number) => ({ txid: `r${i}`, fee: 100, vsize: 150, parents: [] });
  const chain = (n: number) => Array.from({ length: n }, (_, i) => relative(i));
  const tx = { vsize: 200 };
  // 23 ancestors + it + the child = 25: allowed; 24 ancestors: 26, refused.
  assert.equal(childLimit(tx, { ancestors: chain(23), descendants: [] }, false), undefined);
  assert.match(childLimit(tx, { ancestors: chain(24), descendants: [] }, false) ?? '', /more unconfirmed ancestors than the pool node allows \(25 transactions/);
  // Core 31 counts the whole cluster, descendants too: 62 relatives + it + the child = 64.
  assert.equal(childLimit(tx, { ancestors: chain(24), descendants: chain(38) }, true), undefined);
  assert.match(childLimit(tx, { ancestors: chain(24), descendants: chain(39) }, true) ?? '', /cluster .* limit \(64 transactions, 101,000 vB; Bitcoin Core 31\)/);
  // And its size: a 100,000 vB transaction leaves no room for a 110 vB child beside a 1,000 vB relative.
  assert.match(childLimit({ vsize: 100_000 }, { ancestors: [{ txid: 'p', fee: 1, vsize: 1_000, parents: [] }], descendants: [] }, true) ?? '', /cluster/);
});

test('Core 31 replacement: the feerate diagram of its cluster as submitted here must improve', () => {
  // Alone: one sat more than it pays.
  assert.equal(diagramMinimum({ txid: 't', fee: 1_000, vsize: 200 }, { ancestors: [], descendants: [] }, []), 1_001);
  // With a child that pays for it, a replacement evicts both and must pay what the two paid together.
  const child = { txid: 'c', fee: 3_000, vsize: 100, parents: ['t'] };
  assert.equal(diagramMinimum({ txid: 't', fee: 1_000, vsize: 200 }, { ancestors: [], descendants: [child] }, []), 4_000);
  // A parent it pays for stays: the replacement's chunk with it must beat the chunk they make now.
  const parent = { txid: 'p', fee: 100, vsize: 100, parents: [] };
  assert.equal(diagramMinimum({ txid: 't', fee: 1_000, vsize: 200 }, { ancestors: [parent], descendants: [] }, ['p']), 1_001);
});
