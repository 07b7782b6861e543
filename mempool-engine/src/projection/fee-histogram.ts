import type { FeeHistogramBucket } from '../queries/mempool-feed.ts';
import type { BlockProjection } from './block-assembler.ts';
import type { MempoolSnapshot } from '../mirror/mempool-snapshot.ts';

/**
 * The mempool's fee-rate histogram for the /mempool/ dashboard: transactions
 * and vbytes per fee-rate bucket.
 *
 * A transaction counts at its functional rate, the package rate the
 * projection selected it at (so a child-pays-for-parent parent sits with its
 * child, where a miner sees it), or at its own modified rate when it was not
 * projected (below -blockmintxfee). Buckets are fixed, roughly logarithmic,
 * from 0 to 2,000 sat/vB: the same bounds every update, so the dashboard can
 * animate from one to the next.
 */

export const FEE_HISTOGRAM_BOUNDS: readonly number[] = [
  0, 0.1, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100,
  125, 150, 175, 200, 250, 300, 350, 400, 500, 600, 700, 800, 900, 1_000, 1_200, 1_400, 1_600, 1_800, 2_000,
];

export interface FeeHistogramCounts {
  /** Per bucket (index of FEE_HISTOGRAM_BOUNDS): transactions. */
  txCount: Float64Array;
  /** Per bucket: sum of vsizes. */
  vsize: Float64Array;
}

/** One pass over the snapshot; runs on the projection worker. */
export function countFeeHistogram(snapshot: Pick<MempoolSnapshot, 'count' | 'modifiedFee' | 'vsize'>, projection: Pick<BlockProjection, 'entryOf' | 'functionalRate'>, bounds: readonly number[]): FeeHistogramCounts {
  const { entryOf, functionalRate } = projection;
  const txCount = new Float64Array(bounds.length);
  const vsize = new Float64Array(bounds.length);
  const last = bounds.length - 1;
  for (let i = 0; i < snapshot.count; i++) {
    const size = snapshot.vsize[i]!;
    let rate = functionalRate[entryOf[i]!]!;
    if (Number.isNaN(rate)) rate = snapshot.modifiedFee[i]! / size;
    // The last bound not above the rate: binary search over a few dozen bounds.
    let low = 0;
    let high = last;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (bounds[mid]! <= rate) low = mid;
      else high = mid - 1;
    }
    txCount[low]!++;
    vsize[low]! += size;
  }
  return { txCount, vsize };
}

export function histogramBuckets(counts: FeeHistogramCounts, bounds: readonly number[] = FEE_HISTOGRAM_BOUNDS): FeeHistogramBucket[] {
  return bounds.map((minRate, i) => ({ minRate, txCount: counts.txCount[i]!, vsize: counts.vsize[i]! }));
}
