import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countFeeHistogram, FEE_HISTOGRAM_BOUNDS, histogramBuckets } from './fee-histogram.ts';

test('transactions count at their functional rate, or their own when not projected, in the last bucket not above it', () => {
  const snapshot = { count: 5, modifiedFee: new Float64Array([100, 1_000, 300, 50, 999_999]), vsize: new Int32Array([100, 100, 100, 100, 100]) };
  // Own rates 1, 10, 3, 0.5, 9999.99; the third is a CPFP parent selected at 20. The answers are per entry, in reverse.
  const projection = { entryOf: new Int32Array([4, 3, 2, 1, 0]), functionalRate: new Float64Array([9_999.99, Number.NaN, 20, 10, 1]) };
  const buckets = histogramBuckets(countFeeHistogram(snapshot, projection, FEE_HISTOGRAM_BOUNDS));
  assert.equal(buckets.length, FEE_HISTOGRAM_BOUNDS.length);
  const at = (rate: number) => buckets.find((b) => b.minRate === rate)!;
  assert.deepEqual([at(1).txCount, at(10).txCount, at(20).txCount, at(0.5).txCount, at(2_000).txCount], [1, 1, 1, 1, 1]);
  assert.equal(at(3).txCount, 0);
  assert.equal(buckets.reduce((a, b) => a + b.vsize, 0), 500);
  assert.deepEqual(FEE_HISTOGRAM_BOUNDS, [...FEE_HISTOGRAM_BOUNDS].sort((a, b) => a - b), 'ascending bounds');
});
