import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chunksOf, compareDiagrams, compareFeerate } from './feerate-diagram.ts';
import { leastImprovingFee, linearize } from './replacement-fee.ts';

/**
 * The feerate diagram as Bitcoin Core 31 compares it (util/feefrac.cpp
 * CompareChunks; the cases of src/test/feefrac_tests.cpp and rbf_tests.cpp
 * feerate_chunks_utilities, in their spirit: empty diagrams, a flat tail,
 * a strictly better one, incomparable ones), and the least replacement fee
 * the rule asks for.
 */

describe('feerate diagrams (Core 31 cluster mempool)', () => {
  test('feerates compare exactly, past 2^53 too (FeeFrac operators)', () => {
    assert.equal(compareFeerate({ fee: 1000, size: 100 }, { fee: 500, size: 300 }), 1);
    assert.equal(compareFeerate({ fee: 1000, size: 100 }, { fee: 2000, size: 200 }), 0);
    assert.equal(compareFeerate({ fee: 4_611_686_000_000, size: 4_000_000 }, { fee: 184_467_440_000_000, size: 100_000 }), -1);
    assert.equal(compareFeerate({ fee: 2_100_000_000_000_000, size: 2_147_483_647 }, { fee: 2_100_000_000_000_000, size: 2_147_483_647 }), 0);
  });

  test('chunks: a child paying more than its parent joins its chunk; one paying less starts its own (ChunkLinearization)', () => {
    assert.deepEqual(chunksOf([{ fee: 100, size: 100 }, { fee: 500, size: 100 }]), [{ fee: 600, size: 200 }]);
    assert.deepEqual(chunksOf([{ fee: 500, size: 100 }, { fee: 100, size: 100 }]), [{ fee: 500, size: 100 }, { fee: 100, size: 100 }]);
    // A chain whose third lifts both before it.
    assert.deepEqual(chunksOf([{ fee: 300, size: 100 }, { fee: 100, size: 100 }, { fee: 900, size: 100 }]), [{ fee: 1300, size: 300 }]);
  });

  test('empty diagrams are equal; a positive chunk beats nothing, a zero-fee one does not (CompareChunks: flat after the last chunk)', () => {
    assert.equal(compareDiagrams([], []), 0);
    assert.equal(compareDiagrams([{ fee: 1, size: 1 }], []), 1);
    assert.equal(compareDiagrams([], [{ fee: 1, size: 1 }]), -1);
    assert.equal(compareDiagrams([{ fee: 0, size: 1 }], []), 0);
  });

  test('identical diagrams are equal; more fee at the same sizes is better', () => {
    const d = [{ fee: 950, size: 300 }, { fee: 100, size: 100 }];
    assert.equal(compareDiagrams(d, d), 0);
    assert.equal(compareDiagrams([{ fee: 951, size: 300 }, { fee: 100, size: 100 }], d), 1);
    // Above the other's line at 300 vB, and above its end at 400 vB.
    assert.equal(compareDiagrams(d, [{ fee: 1000, size: 400 }]), 1);
    assert.equal(compareDiagrams([{ fee: 1000, size: 400 }], d), -1);
  });

  test('each above the other somewhere: incomparable, so no replacement is accepted on it', () => {
    // 1,000 sats in 100 vB, then flat; against 500 in 50, then 700 in 100 more.
    assert.equal(compareDiagrams([{ fee: 1000, size: 100 }], [{ fee: 500, size: 50 }, { fee: 700, size: 100 }]), undefined);
  });

  test('a linearization takes the best package first, parents before children', () => {
    const order = linearize([
      { txid: 'a', fee: 100, vsize: 100, parents: [] },
      { txid: 'b', fee: 900, vsize: 100, parents: ['a'] },
      { txid: 'c', fee: 400, vsize: 100, parents: [] },
    ]);
    assert.deepEqual(order.map((t) => t.txid), ['a', 'b', 'c']);
  });

  test('the least improving fee: a lone transaction is outbid by one sat more; one with a child must pay for both', () => {
    const lone = [{ txid: 'a', fee: 1_000, vsize: 200, parents: [] }];
    assert.equal(leastImprovingFee(lone, new Set(['a']), { vsize: 200, parents: [] }), 1_001);
    // A smaller replacement at a higher rate improves the diagram near its start but must still match the total.
    assert.equal(leastImprovingFee(lone, new Set(['a']), { vsize: 100, parents: [] }), 1_000);
    // The parent and its child are one chunk of 4,000 sats in 300 vB; a replacement of the parent evicts both.
    const family = [{ txid: 'a', fee: 1_000, vsize: 200, parents: [] }, { txid: 'c', fee: 3_000, vsize: 100, parents: ['a'] }];
    assert.equal(leastImprovingFee(family, new Set(['a', 'c']), { vsize: 200, parents: [] }), 4_000);
    // Replacing the child alone keeps the parent: the new chunk (parent and replacement) must beat 4,000 in 300 vB.
    assert.equal(leastImprovingFee(family, new Set(['c']), { vsize: 100, parents: ['a'] }), 3_001);
  });
});
