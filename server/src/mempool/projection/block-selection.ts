import type { ArrayPool } from './array-pool.ts';
import type { ProjectedBlock } from './block-assembler.ts';
import { BLOCK_FULL_ENOUGH_WEIGHT_DELTA, MAX_BLOCK_SIGOPS_COST, MAX_CONSECUTIVE_FAILURES, belowMinimumFee, sortForBlock, WITNESS_SCALE_FACTOR } from './block-packages.ts';
import { setAncestorScore, type LabelledMempool } from './ranking/labelled-mempool.ts';
import { maxOf, median, minOf } from './rate-stats.ts';
import type { MapTxRuns } from './rest-of-mempool.ts';
import { ScoreHeap } from './score-heap.ts';
import { beforeAcross, mergeByScore, ScoreOrder, sortByScore } from './ranking/score-order.ts';

/**
 * Core's block assembly (node/miner.cpp, BlockAssembler::addPackageTxs),
 * block after block, over a ranked mempool (labelled-mempool.ts): the
 * projected blocks the dashboard shows one by one. block-assembler.ts
 * describes the algorithm and its data layout.
 */

export interface SelectionLimits {
  maxBlockWeight: number;
  reservedWeight: number;
  coinbaseSigops: number;
  blockMinFeeRatePerKvB: number;
}

/** The projection's answers by label, written in place: per label, a block index (-1 until projected), a position and a rate. */
export interface AnswersByLabel {
  blockIndex: Int16Array;
  positionVsize: Float64Array;
  functionalRate: Float64Array;
}

export interface BlockSelection {
  blocks: ProjectedBlock[];
  /** Labels in block order; `projected` of them. */
  order: Int32Array;
  /** Transactions in `byLabel.order`, and left in no block. */
  projected: number;
  remaining: number;
  packagesSelected: number;
  descendantsUpdated: number;
  /** Core's mapTx at the start of the block after the last one selected. */
  mapTx: MapTxRuns;
  /** Puts back the ancestor state and scores the selection changed, as the ranked mempool must keep them. */
  restore(): void;
}

/** blockIndex of a dead label (labelled-mempool.ts): like a transaction already in a block, it is never a candidate. */
const DEAD = -2;

/**
 * Marks kept from one selection to the next: every walk, package, block and
 * selection draws a fresh number, so that the arrays marked with them need
 * no clearing between uses (ArrayPool.int32Kept()). Near 2^30 the caller
 * clears the pool and starts again from 0.
 */
export interface SelectionMarks {
  last: number;
}

/** Marks this high: time to clear the pool (Int32 marks). */
export const MARKS_LIMIT = 2 ** 30;

/** `answers` must hold -1 in blockIndex for every label. */
export function selectBlocks(graph: LabelledMempool, limits: SelectionLimits, blockCount: number, answers: AnswersByLabel, pool: ArrayPool, marks: SelectionMarks): BlockSelection {
  // Per-label arrays cover every label, dead ones included; the main run is the settled labels.
  const n = graph.labels;
  const settled = graph.settled;
  const { fee, modifiedFee, vsize, weight, sigops, parentStart, parents, childStart, children, txidOrder } = graph;
  const { head: linkHead, next: linkNext, child: linkChild } = graph.childLinks;
  const { fee: ancestorFee, size: ancestorSize, sigops: ancestorSigops, count: ancestorCount } = graph.ancestors;

  // Core's mapTx, ancestor_score index: what is left, best first, by ancestor state at the block's start.
  // Two sorted runs merged as they are read: the settled labels (the initial order), and the fresh
  // labels with the transactions re-scored since because an ancestor went into an earlier block.
  const mainOrder = graph.scores;
  let mark = marks.last;
  /** Whether the transaction has left the label run for the re-scored run: marked with this selection's number. */
  const rescoredIn = pool.int32Kept('assemble.rescoredIn', n, 0);
  const rescoredMark = ++mark;
  /** Blocks are numbered from here on: a touchedIn below it was set by an earlier selection. */
  const firstBlockMark = mark + 1;
  let rescoredBuffer = pool.int32('assemble.rescored', n);
  let spareBuffer = pool.int32('assemble.rescoredSpare', n);
  rescoredBuffer.set(graph.fresh);
  let rescored = rescoredBuffer.subarray(0, graph.fresh.length);
  const keptBuffer = pool.int32('assemble.kept', n);
  let remaining = graph.count;
  // Core's mapModifiedTx: ancestor state reduced by what this block took.
  const modOrder = new ScoreOrder(pool.float64('assemble.modScoreFee', n), pool.float64('assemble.modScoreSize', n), pool.float64('assemble.modScoreRate', n), txidOrder, mainOrder.exactTieRate);
  const modFee = pool.float64('assemble.modFee', n);
  const modSize = pool.float64('assemble.modSize', n);
  const modSigops = pool.float64('assemble.modSigops', n);
  const modHeap = new ScoreHeap(
    // Slots all -1 between selections: the heap is emptied at the end of each.
    { heap: pool.int32('heap.tx', n), rate: pool.float64('heap.rate', n), tie: pool.float64('heap.tie', n), slot: pool.int32Kept('heap.slot', n, -1) },
    modOrder,
  );
  /** The block mark of the block in which a modified entry did not fit (Core's failedTx, per block). */
  const failedIn = pool.int32Kept('assemble.failedIn', n, 0);
  /** The block mark of the block in which the transaction's ancestor state first changed; `start*` then hold its state at the block's start. */
  const touchedIn = pool.int32Kept('assemble.touchedIn', n, 0);
  const touched = pool.int32('assemble.touched', n);
  const startFee = pool.float64('assemble.startFee', n);
  const startSize = pool.float64('assemble.startSize', n);
  const startSigops = pool.float64('assemble.startSigops', n);
  const startCount = pool.int32('assemble.startCount', n);
  // The ranked mempool's ancestor state, as it was before this selection changed it (not touched yet in it),
  // listed in the order changed: written in sequence rather than by label.
  const changedLabels = pool.int32('assemble.changedLabels', n);
  let changedLabelCount = 0;
  const savedFee = pool.float64('assemble.savedFee', n);
  const savedSize = pool.float64('assemble.savedSize', n);
  const savedSigops = pool.float64('assemble.savedSigops', n);
  const savedCount = pool.int32('assemble.savedCount', n);

  const { blockIndex, positionVsize, functionalRate } = answers;
  for (const label of graph.dead) blockIndex[label] = DEAD;
  const order = pool.int32('assemble.order', n);
  let projected = 0;
  let packagesSelected = 0;
  let descendantsUpdated = 0;

  // Walks and packages mark what they reached with a fresh number: no clearing between walks.
  const reached = pool.int32Kept('assemble.reached', n, 0);
  const stack = pool.int32('assemble.stack', n);
  const packageTxs = pool.int32('assemble.packageTxs', n);
  const packageCounts = pool.int32('assemble.packageCounts', n);
  const packageMark = pool.int32Kept('assemble.packageMark', n, 0);
  const blocks: ProjectedBlock[] = [];

  for (let b = 0; b < blockCount && remaining > 0; b++) {
    const blockMark = ++mark;
    let touchedCount = 0;
    modHeap.clear();

    const orderStart = projected;
    let blockWeight = limits.reservedWeight;
    let blockSigops = limits.coinbaseSigops;
    let blockVsize = 0;
    let blockTxWeight = 0;
    let blockTxSigops = 0;
    let blockFees = 0;
    let consecutiveFailed = 0;
    /** Cursors in the settled run (label = position) and the re-scored run. */
    let mi = 0;
    let ri = 0;

    for (;;) {
      // The next mapTx entry: the better head of the two runs, once stale entries (taken, modified,
      // failed as modified, or moved to the re-scored run) are passed over, as Core's loop does.
      while (mi < settled && (rescoredIn[mi] === rescoredMark || blockIndex[mi] !== -1 || modHeap.has(mi) || failedIn[mi] === blockMark)) mi++;
      while (ri < rescored.length) {
        const tx = rescored[ri]!;
        if (blockIndex[tx] === -1 && !modHeap.has(tx) && failedIn[tx] !== blockMark) break;
        ri++;
      }
      let next = mi < settled ? mi : -1;
      const fromRescored = ri < rescored.length && (next < 0 || mainOrder.before(rescored[ri]!, next));
      if (fromRescored) next = rescored[ri]!;
      if (next < 0 && modHeap.size === 0) break;

      let candidate: number;
      let usingModified = false;
      const best = modHeap.size > 0 ? modHeap.peek() : -1;
      if (best >= 0 && (next < 0 || beforeAcross(modOrder, best, mainOrder, next))) {
        candidate = best;
        usingModified = true;
      } else {
        candidate = next;
        if (fromRescored) ri++;
        else mi++;
      }

      // A mapTx candidate's ancestor state has not changed in this block: had it, it would be modified or failed.
      const packageFee = usingModified ? modFee[candidate]! : ancestorFee[candidate]!;
      const packageSize = usingModified ? modSize[candidate]! : ancestorSize[candidate]!;
      const packageSigops = usingModified ? modSigops[candidate]! : ancestorSigops[candidate]!;

      // Everything else ranks lower: the block is done (Core returns here).
      if (belowMinimumFee(packageFee, limits.blockMinFeeRatePerKvB, packageSize)) break;

      if (blockWeight + WITNESS_SCALE_FACTOR * packageSize >= limits.maxBlockWeight || blockSigops + packageSigops >= MAX_BLOCK_SIGOPS_COST) {
        if (usingModified) {
          modHeap.remove(candidate);
          failedIn[candidate] = blockMark;
        }
        consecutiveFailed++;
        if (consecutiveFailed > MAX_CONSECUTIVE_FAILURES && blockWeight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > limits.maxBlockWeight) break;
        continue;
      }
      consecutiveFailed = 0;

      // The package: the candidate and its ancestors not in a block yet (ancestors of a projected transaction are all projected).
      const walkMark = ++mark;
      const pkg = ++mark;
      let packageLength = 0;
      let top = 0;
      stack[top++] = candidate;
      reached[candidate] = walkMark;
      while (top > 0) {
        const tx = stack[--top]!;
        packageTxs[packageLength] = tx;
        // SortForBlock orders by the mempool's ancestor count, as it stood when the block started.
        packageCounts[packageLength++] = touchedIn[tx] === blockMark ? startCount[tx]! : ancestorCount[tx]!;
        packageMark[tx] = pkg;
        for (let e = parentStart[tx]!; e < parentStart[tx + 1]!; e++) {
          const p = parents[e]!;
          if (reached[p] !== walkMark && blockIndex[p] === -1) {
            reached[p] = walkMark;
            stack[top++] = p;
          }
        }
      }
      sortForBlock(packageTxs, packageCounts, packageLength, txidOrder);

      const rate = packageFee / packageSize;
      for (let k = 0; k < packageLength; k++) {
        const tx = packageTxs[k]!;
        blockIndex[tx] = b;
        modHeap.remove(tx);
        order[projected++] = tx;
        blockVsize += vsize[tx]!;
        positionVsize[tx] = blockVsize;
        functionalRate[tx] = rate;
        blockWeight += weight[tx]!;
        blockTxWeight += weight[tx]!;
        blockSigops += sigops[tx]!;
        blockTxSigops += sigops[tx]!;
        blockFees += fee[tx]!;
      }
      packagesSelected++;

      // UpdatePackagesForAdded: every descendant of every package member,
      // once per member, loses that member from its ancestor state.
      for (let k = 0; k < packageLength; k++) {
        const added = packageTxs[k]!;
        const addedFee = modifiedFee[added]!;
        const addedSize = vsize[added]!;
        const addedSigops = sigops[added]!;
        const walk = ++mark;
        top = 0;
        // Children: a settled label's from the compacted lists, then anyone's added since; dead ones are not descendants.
        let d = added;
        for (;;) {
          if (d < settled) {
            for (let e = childStart[d]!; e < childStart[d + 1]!; e++) {
              const c = children[e]!;
              if (reached[c] !== walk && blockIndex[c] !== DEAD) {
                reached[c] = walk;
                stack[top++] = c;
              }
            }
          }
          for (let x = linkHead[d]!; x >= 0; x = linkNext[x]!) {
            const c = linkChild[x]!;
            if (reached[c] !== walk && blockIndex[c] !== DEAD) {
              reached[c] = walk;
              stack[top++] = c;
            }
          }
          if (top === 0) break;
          d = stack[--top]!;
          if (packageMark[d] === pkg) continue;
          descendantsUpdated++;
          if (touchedIn[d] !== blockMark) {
            if (touchedIn[d]! < firstBlockMark) {
              savedFee[changedLabelCount] = ancestorFee[d]!;
              savedSize[changedLabelCount] = ancestorSize[d]!;
              savedSigops[changedLabelCount] = ancestorSigops[d]!;
              savedCount[changedLabelCount] = ancestorCount[d]!;
              changedLabels[changedLabelCount++] = d;
            }
            touchedIn[d] = blockMark;
            touched[touchedCount++] = d;
            startFee[d] = ancestorFee[d]!;
            startSize[d] = ancestorSize[d]!;
            startSigops[d] = ancestorSigops[d]!;
            startCount[d] = ancestorCount[d]!;
          }
          ancestorFee[d]! -= addedFee;
          ancestorSize[d]! -= addedSize;
          ancestorSigops[d]! -= addedSigops;
          ancestorCount[d]!--;
          const fresh = !modHeap.has(d);
          if (fresh) {
            // A new modified entry starts from the block-start (mapTx) state, as CTxMemPoolModifiedEntry(desc) does.
            modFee[d] = startFee[d]!;
            modSize[d] = startSize[d]!;
            modSigops[d] = startSigops[d]!;
          }
          modFee[d]! -= addedFee;
          modSize[d]! -= addedSize;
          modSigops[d]! -= addedSigops;
          setAncestorScore(modOrder, d, modifiedFee[d]!, vsize[d]!, modFee[d]!, modSize[d]!);
          if (fresh) modHeap.push(d);
          else modHeap.update(d);
        }
      }
    }

    const txCount = projected - orderStart;
    if (txCount === 0) break; // nothing left fits or pays enough: later blocks would be empty too
    const rates = pool.float64('assemble.rates', txCount);
    for (let k = 0; k < txCount; k++) rates[k] = functionalRate[order[orderStart + k]!]!;
    blocks.push({ orderStart, txCount, weight: blockTxWeight, sigops: blockTxSigops, vsize: blockVsize, fees: blockFees, minFeeRate: minOf(rates), maxFeeRate: maxOf(rates), medianFeeRate: median(rates) });

    // The next block's mapTx: the touched and still left re-scored, merged into the re-scored run.
    remaining -= txCount;
    let changedCount = 0;
    for (let k = 0; k < touchedCount; k++) {
      const tx = touched[k]!;
      if (blockIndex[tx] !== -1) continue;
      setAncestorScore(mainOrder, tx, modifiedFee[tx]!, vsize[tx]!, ancestorFee[tx]!, ancestorSize[tx]!);
      rescoredIn[tx] = rescoredMark;
      touched[changedCount++] = tx;
    }
    let keptCount = 0;
    for (let k = 0; k < rescored.length; k++) {
      const tx = rescored[k]!;
      if (blockIndex[tx] === -1 && touchedIn[tx] !== blockMark) keptBuffer[keptCount++] = tx;
    }
    const changed = touched.subarray(0, changedCount);
    sortByScore(changed, mainOrder, pool);
    const merged = spareBuffer.subarray(0, keptCount + changedCount);
    mergeByScore(keptBuffer.subarray(0, keptCount), changed, merged, mainOrder);
    [rescoredBuffer, spareBuffer] = [spareBuffer, rescoredBuffer];
    rescored = merged;
  }
  modHeap.clear();
  marks.last = mark;

  return {
    blocks,
    order,
    projected,
    remaining,
    packagesSelected,
    descendantsUpdated,
    mapTx: { mainOrder, rescored, rescoredIn, rescoredMark },
    restore() {
      for (let k = 0; k < changedLabelCount; k++) {
        const d = changedLabels[k]!;
        ancestorFee[d] = savedFee[k]!;
        ancestorSize[d] = savedSize[k]!;
        ancestorSigops[d] = savedSigops[k]!;
        ancestorCount[d] = savedCount[k]!;
        setAncestorScore(mainOrder, d, modifiedFee[d]!, vsize[d]!, ancestorFee[d], ancestorSize[d]);
      }
    },
  };
}
