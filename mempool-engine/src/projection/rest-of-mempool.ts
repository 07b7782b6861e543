import type { ArrayPool } from './array-pool.ts';
import type { ProjectedBlock } from './block-assembler.ts';
import type { AnswersByLabel } from './block-selection.ts';
import { belowMinimumFee, sortForBlock } from './block-packages.ts';
import type { LabelledMempool } from './ranking/labelled-mempool.ts';
import { median } from './rate-stats.ts';
import type { ScoreOrder } from './ranking/score-order.ts';

/**
 * The last projected block: everything the projected blocks before it left,
 * summarised in one pass rather than assembled.
 *
 * The product shows a row of projected blocks (8, as mempool.space does);
 * the last one stands for the rest of the mempool. Assembling hundreds of
 * thousands of transactions by Core's algorithm (block-assembler.ts)
 * re-scores every descendant of every package taken, through a heap: most
 * of a full projection's time, spent on an order nobody reads closely. Here
 * instead, in one pass:
 * - the transactions left are visited in Core's mapTx order at the start of
 *   this block (ancestor score, with the ancestor state that excludes the
 *   earlier blocks), exactly as block-assembler.ts would start it;
 * - each one not placed yet goes in with its ancestors not placed yet, in
 *   SortForBlock order, all at that package's rate (its functional rate);
 * - a package paying less than -blockmintxfee ends the block, as in Core.
 * What it leaves out is the re-scoring of a transaction whose ancestors
 * went in with an earlier package of this block (Core's mapModifiedTx): such
 * a transaction is placed at its score from the start of the block, so it
 * may come somewhat later than Core would take it, and its package rate
 * counts only what was still left. No weight or sigop limit applies: it is
 * the rest of the mempool, not a block. Its fees, weight and sigops are the
 * mempool's totals less the blocks before and whatever was left out.
 *
 * So for a transaction in it, `position.block` is this block's index and
 * `position.vsize` how many vbytes of the rest go before it (itself
 * included): a depth, which is what the status page shows past the next
 * blocks. Cost: one pass over what is left, O(n + e).
 */

export interface RestOfMempool {
  block: ProjectedBlock | undefined;
  /** Transactions in `order` after it. */
  projected: number;
}

/** Core's mapTx at this block's start: the settled labels in order, less those moved to `rescored` (a sorted run of fresh and re-scored labels: those marked `rescoredMark` in `rescoredIn`). */
export interface MapTxRuns {
  mainOrder: ScoreOrder;
  rescored: Int32Array;
  rescoredIn: Int32Array;
  rescoredMark: number;
}

/**
 * `taken`: the labels the blocks before took, and `takenBlocks` those
 * blocks. Answers go into `answers` by label; `order` gets snapshot indices
 * from `taken.length` on.
 */
export function collectRest(graph: LabelledMempool, mapTx: MapTxRuns, taken: Int32Array, takenBlocks: readonly ProjectedBlock[], answers: AnswersByLabel, order: Int32Array, blockIndexValue: number, blockMinFeeRatePerKvB: number, pool: ArrayPool): RestOfMempool {
  const settled = graph.settled;
  const { modifiedFee, fee, vsize, weight, sigops, parentStart, parents, txidOrder, snapshotIndex } = graph;
  const ancestorCount = graph.ancestors.count;
  const { mainOrder, rescored, rescoredIn, rescoredMark } = mapTx;
  const { blockIndex, positionVsize, functionalRate } = answers;
  // Placed (or dead) labels, one bit each: the checks of parents jump around, and 40 kB stay in cache where 600 kB would not.
  const placed = pool.int32('rest.placed', (graph.labels + 31) >>> 5, 0);
  for (const label of taken) placed[label >>> 5]! |= 1 << (label & 31);
  for (const label of graph.dead) placed[label >>> 5]! |= 1 << (label & 31);
  const stack = pool.int32('rest.stack', graph.labels);
  const packageTxs = pool.int32('rest.packageTxs', graph.labels);
  const packageCounts = pool.int32('rest.packageCounts', graph.labels);
  const rates = pool.float64('rest.rates', graph.count);
  let projected = taken.length;
  const orderStart = projected;
  let count = 0;
  let blockVsize = 0;
  let lowest = Number.POSITIVE_INFINITY;
  let highest = Number.NEGATIVE_INFINITY;
  let mi = 0;
  let ri = 0;
  /** The package that ended the rest by paying too little, if one did. */
  let left: Int32Array | undefined;

  for (;;) {
    // The next mapTx entry: the better head of the two runs, once entries placed (or moved to the re-scored run) are passed over.
    while (mi < settled && (rescoredIn[mi] === rescoredMark || (placed[mi >>> 5]! & (1 << (mi & 31))) !== 0)) mi++;
    while (ri < rescored.length && (placed[rescored[ri]! >>> 5]! & (1 << (rescored[ri]! & 31))) !== 0) ri++;
    let head: number;
    if (ri < rescored.length && (mi >= settled || mainOrder.before(rescored[ri]!, mi))) head = rescored[ri++]!;
    else if (mi < settled) head = mi++;
    else break;

    // Its package: it and its ancestors not placed yet (claimed as found, released if the package does not pay enough).
    placed[head >>> 5]! |= 1 << (head & 31);
    let top = 0;
    for (let e = parentStart[head]!; e < parentStart[head + 1]!; e++) {
      const p = parents[e]!;
      if ((placed[p >>> 5]! & (1 << (p & 31))) === 0) {
        placed[p >>> 5]! |= 1 << (p & 31);
        stack[top++] = p;
      }
    }
    if (top === 0) {
      // Alone: most of the rest, nothing to gather or sort.
      const fee = modifiedFee[head]!;
      const size = vsize[head]!;
      if (belowMinimumFee(fee, blockMinFeeRatePerKvB, size)) {
        packageTxs[0] = head;
        left = packageTxs.subarray(0, 1);
        break;
      }
      const rate = fee / size;
      if (rate < lowest) lowest = rate;
      if (rate > highest) highest = rate;
      order[projected++] = snapshotIndex[head]!;
      blockVsize += size;
      blockIndex[head] = blockIndexValue;
      positionVsize[head] = blockVsize;
      functionalRate[head] = rate;
      rates[count++] = rate;
      continue;
    }
    packageTxs[0] = head;
    let packageLength = 1;
    let packageFee = modifiedFee[head]!;
    let packageSize = vsize[head]!;
    while (top > 0) {
      const tx = stack[--top]!;
      packageTxs[packageLength++] = tx;
      packageFee += modifiedFee[tx]!;
      packageSize += vsize[tx]!;
      for (let e = parentStart[tx]!; e < parentStart[tx + 1]!; e++) {
        const p = parents[e]!;
        if ((placed[p >>> 5]! & (1 << (p & 31))) === 0) {
          placed[p >>> 5]! |= 1 << (p & 31);
          stack[top++] = p;
        }
      }
    }
    // Everything else ranks lower: the rest ends here, and what is left stays out of every block.
    if (belowMinimumFee(packageFee, blockMinFeeRatePerKvB, packageSize)) {
      left = packageTxs.subarray(0, packageLength);
      break;
    }
    for (let k = 0; k < packageLength; k++) packageCounts[k] = ancestorCount[packageTxs[k]!]!;
    sortForBlock(packageTxs, packageCounts, packageLength, txidOrder);
    const rate = packageFee / packageSize;
    if (rate < lowest) lowest = rate;
    if (rate > highest) highest = rate;
    for (let k = 0; k < packageLength; k++) {
      const label = packageTxs[k]!;
      order[projected++] = snapshotIndex[label]!;
      blockVsize += vsize[label]!;
      blockIndex[label] = blockIndexValue;
      positionVsize[label] = blockVsize;
      functionalRate[label] = rate;
      rates[count++] = rate;
    }
  }
  if (count === 0) return { block: undefined, projected };

  // Fees, weight and sigops: the mempool's totals less the blocks before and what was left out, rather
  // than three more reads per transaction (scattered, for the ancestors a package pulled in).
  const sums = { ...graph.totals };
  const subtract = (label: number) => {
    sums.fee -= fee[label]!;
    sums.weight -= weight[label]!;
    sums.sigops -= sigops[label]!;
  };
  for (const block of takenBlocks) {
    sums.fee -= block.fees;
    sums.weight -= block.weight;
    sums.sigops -= block.sigops;
  }
  if (left) {
    // The package that did not pay enough (still marked placed), then whatever both runs still hold.
    for (const label of left) subtract(label);
    for (; mi < settled; mi++) if (rescoredIn[mi] !== rescoredMark && (placed[mi >>> 5]! & (1 << (mi & 31))) === 0) subtract(mi);
    for (; ri < rescored.length; ri++) if ((placed[rescored[ri]! >>> 5]! & (1 << (rescored[ri]! & 31))) === 0) subtract(rescored[ri]!);
  }
  return {
    block: { orderStart, txCount: count, weight: sums.weight, sigops: sums.sigops, vsize: blockVsize, fees: sums.fee, minFeeRate: lowest, maxFeeRate: highest, medianFeeRate: median(rates.subarray(0, count)) },
    projected,
  };
}
