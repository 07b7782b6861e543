import type { ArrayPool } from './array-pool.ts';
import type { ProjectedBlock } from './block-assembler.ts';
import { BLOCK_FULL_ENOUGH_WEIGHT_DELTA, MAX_BLOCK_SIGOPS_COST, MAX_CONSECUTIVE_FAILURES, belowMinimumFee, sortForBlock, WITNESS_SCALE_FACTOR } from './block-packages.ts';
import { setAncestorScore, type LabelledMempool } from './ranking/labelled-mempool.ts';
import { beforeAcross, mergeByScore, sortByScore } from './ranking/score-order.ts';
import { maxOf, median, minOf } from './rate-stats.ts';
import type { MapTxRuns } from './rest-of-mempool.ts';
import { DEAD, restoreAncestors, SelectionWork, type AnswersByLabel } from './selection-work.ts';

export type { AnswersByLabel } from './selection-work.ts';

/**
 * Core's block assembly (node/miner.cpp, BlockAssembler::addPackageTxs),
 * block after block, over a ranked mempool (labelled-mempool.ts): the
 * projected blocks the dashboard shows one by one. block-assembler.ts
 * describes the algorithm and its data layout.
 *
 * Per block: the next candidate in Core's order (nextCandidate), the fit
 * test, the package gathered and sorted (collectPackage), added to the block
 * (addPackage), its descendants' ancestor state reduced (updateDescendants);
 * then the block's summary (finishBlock) and the next block's mapTx
 * (rescoreTouched). The working arrays and counters are one SelectionWork
 * (selection-work.ts).
 */

export interface SelectionLimits {
  maxBlockWeight: number;
  reservedWeight: number;
  coinbaseSigops: number;
  blockMinFeeRatePerKvB: number;
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
  const w = new SelectionWork(graph, answers, pool, marks.last);
  const blocks: ProjectedBlock[] = [];
  for (let b = 0; b < blockCount && w.remaining > 0; b++) {
    const block = selectBlock(w, limits, b, pool);
    if (!block) break; // nothing left fits or pays enough: later blocks would be empty too
    blocks.push(block);
    w.remaining -= block.txCount;
    rescoreTouched(w, pool);
  }
  w.modHeap.clear();
  marks.last = w.mark;

  return {
    blocks,
    order: w.order,
    projected: w.projected,
    remaining: w.remaining,
    packagesSelected: w.packagesSelected,
    descendantsUpdated: w.descendantsUpdated,
    mapTx: { mainOrder: w.mainOrder, rescored: w.rescored, rescoredIn: w.rescoredIn, rescoredMark: w.rescoredMark },
    restore: () => restoreAncestors(w),
  };
}

/** Block `b` as Core's addPackageTxs fills it; undefined when nothing is left that fits or pays enough. */
function selectBlock(w: SelectionWork, limits: SelectionLimits, b: number, pool: ArrayPool): ProjectedBlock | undefined {
  startBlock(w, limits);
  const { modFee, modSize, modSigops, ancestorFee, ancestorSize, ancestorSigops, modHeap, failedIn } = w;
  let consecutiveFailed = 0;
  for (;;) {
    const candidate = nextCandidate(w);
    if (candidate < 0) break;
    const usingModified = w.fromModified;

    // A mapTx candidate's ancestor state has not changed in this block: had it, it would be modified or failed.
    const packageFee = usingModified ? modFee[candidate]! : ancestorFee[candidate]!;
    const packageSize = usingModified ? modSize[candidate]! : ancestorSize[candidate]!;
    const packageSigops = usingModified ? modSigops[candidate]! : ancestorSigops[candidate]!;

    // Everything else ranks lower: the block is done (Core returns here).
    if (belowMinimumFee(packageFee, limits.blockMinFeeRatePerKvB, packageSize)) break;

    if (w.blockWeight + WITNESS_SCALE_FACTOR * packageSize >= limits.maxBlockWeight || w.blockSigops + packageSigops >= MAX_BLOCK_SIGOPS_COST) {
      if (usingModified) {
        modHeap.remove(candidate);
        failedIn[candidate] = w.blockMark;
      }
      consecutiveFailed++;
      if (consecutiveFailed > MAX_CONSECUTIVE_FAILURES && w.blockWeight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > limits.maxBlockWeight) break;
      continue;
    }
    consecutiveFailed = 0;

    const packageLength = collectPackage(w, candidate);
    addPackage(w, b, packageLength, packageFee / packageSize);
    updateDescendants(w, packageLength);
  }
  return finishBlock(w, pool);
}

function startBlock(w: SelectionWork, limits: SelectionLimits): void {
  w.blockMark = ++w.mark;
  w.touchedCount = 0;
  w.modHeap.clear();
  w.orderStart = w.projected;
  w.blockWeight = limits.reservedWeight;
  w.blockSigops = limits.coinbaseSigops;
  w.blockVsize = 0;
  w.blockTxWeight = 0;
  w.blockTxSigops = 0;
  w.blockFees = 0;
  w.mi = 0;
  w.ri = 0;
}

/**
 * The next candidate: mapTx's head (the better head of its two runs, once
 * stale entries are passed over: taken, modified, failed as modified, or
 * moved to the re-scored run, as Core's loop passes them) or the best
 * modified entry, whichever ranks first; -1 when neither is left.
 * `w.fromModified` says which.
 */
function nextCandidate(w: SelectionWork): number {
  const { settled, rescored, rescoredIn, rescoredMark, blockIndex, modHeap, failedIn, blockMark, mainOrder } = w;
  let mi = w.mi;
  let ri = w.ri;
  while (mi < settled && (rescoredIn[mi] === rescoredMark || blockIndex[mi] !== -1 || modHeap.has(mi) || failedIn[mi] === blockMark)) mi++;
  while (ri < rescored.length) {
    const tx = rescored[ri]!;
    if (blockIndex[tx] === -1 && !modHeap.has(tx) && failedIn[tx] !== blockMark) break;
    ri++;
  }
  let next = mi < settled ? mi : -1;
  const fromRescored = ri < rescored.length && (next < 0 || mainOrder.before(rescored[ri]!, next));
  if (fromRescored) next = rescored[ri]!;
  let candidate = -1;
  if (next >= 0 || modHeap.size > 0) {
    const best = modHeap.size > 0 ? modHeap.peek() : -1;
    if (best >= 0 && (next < 0 || beforeAcross(w.modOrder, best, mainOrder, next))) {
      candidate = best;
      w.fromModified = true;
    } else {
      candidate = next;
      w.fromModified = false;
      if (fromRescored) ri++;
      else mi++;
    }
  }
  w.mi = mi;
  w.ri = ri;
  return candidate;
}

/**
 * The package: the candidate and its ancestors not in a block yet
 * (ancestors of a projected transaction are all projected), into
 * `packageTxs` in Core's SortForBlock order; returns its length.
 */
function collectPackage(w: SelectionWork, candidate: number): number {
  const { stack, reached, packageTxs, packageCounts, packageMark, touchedIn, startCount, ancestorCount, parentStart, parents, blockIndex, blockMark } = w;
  const walkMark = ++w.mark;
  const pkg = ++w.mark;
  w.pkg = pkg;
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
  sortForBlock(packageTxs, packageCounts, packageLength, w.txidOrder);
  return packageLength;
}

/** The package into block `b` at its package rate: each member's block, position and functional rate, and the block's totals. */
function addPackage(w: SelectionWork, b: number, packageLength: number, rate: number): void {
  const { packageTxs, blockIndex, modHeap, order, positionVsize, functionalRate, vsize, weight, sigops, fee } = w;
  let { projected, blockVsize, blockWeight, blockTxWeight, blockSigops, blockTxSigops, blockFees } = w;
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
  w.projected = projected;
  w.blockVsize = blockVsize;
  w.blockWeight = blockWeight;
  w.blockTxWeight = blockTxWeight;
  w.blockSigops = blockSigops;
  w.blockTxSigops = blockTxSigops;
  w.blockFees = blockFees;
  w.packagesSelected++;
}

/**
 * Core's UpdatePackagesForAdded: every descendant of every package member,
 * once per member, loses that member from its ancestor state, and becomes
 * (or stays) a modified entry with its state at the block's start less what
 * the block took.
 */
function updateDescendants(w: SelectionWork, packageLength: number): void {
  const { packageTxs, modifiedFee, vsize, sigops, settled, childStart, children, linkHead, linkNext, linkChild, reached, stack, blockIndex, packageMark, pkg } = w;
  const { touchedIn, touched, blockMark, firstBlockMark, startFee, startSize, startSigops, startCount, ancestorFee, ancestorSize, ancestorSigops, ancestorCount } = w;
  const { changedLabels, savedFee, savedSize, savedSigops, savedCount, modFee, modSize, modSigops, modOrder, modHeap } = w;
  let { mark, touchedCount, changedLabelCount, descendantsUpdated } = w;
  for (let k = 0; k < packageLength; k++) {
    const added = packageTxs[k]!;
    const addedFee = modifiedFee[added]!;
    const addedSize = vsize[added]!;
    const addedSigops = sigops[added]!;
    const walk = ++mark;
    let top = 0;
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
  w.mark = mark;
  w.touchedCount = touchedCount;
  w.changedLabelCount = changedLabelCount;
  w.descendantsUpdated = descendantsUpdated;
}

/** The block's summary, or undefined when it took nothing. */
function finishBlock(w: SelectionWork, pool: ArrayPool): ProjectedBlock | undefined {
  const { orderStart, order, functionalRate } = w;
  const txCount = w.projected - orderStart;
  if (txCount === 0) return undefined;
  const rates = pool.float64('assemble.rates', txCount);
  for (let k = 0; k < txCount; k++) rates[k] = functionalRate[order[orderStart + k]!]!;
  return { orderStart, txCount, weight: w.blockTxWeight, sigops: w.blockTxSigops, vsize: w.blockVsize, fees: w.blockFees, minFeeRate: minOf(rates), maxFeeRate: maxOf(rates), medianFeeRate: median(rates) };
}

/** The next block's mapTx: the touched and still left re-scored, merged into the re-scored run. */
function rescoreTouched(w: SelectionWork, pool: ArrayPool): void {
  const { touched, touchedCount, touchedIn, blockIndex, blockMark, mainOrder, modifiedFee, vsize, ancestorFee, ancestorSize, rescoredIn, rescoredMark, rescored, keptBuffer } = w;
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
  const merged = w.spareBuffer.subarray(0, keptCount + changedCount);
  mergeByScore(keptBuffer.subarray(0, keptCount), changed, merged, mainOrder);
  [w.rescoredBuffer, w.spareBuffer] = [w.spareBuffer, w.rescoredBuffer];
  w.rescored = merged;
}
