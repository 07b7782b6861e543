import type { ArrayPool } from '../array-pool.ts';
import type { LabelArrays } from './label-arrays.ts';
import { setAncestorScore, walkAncestors, type AncestorState } from './labelled-mempool.ts';
import type { MempoolSnapshot } from '../../mirror/mempool-snapshot.ts';
import { exactTieRateFor, ScoreOrder, sortByScore, TxidOrder, txidPrefixes } from './score-order.ts';

/**
 * A whole snapshot ranked at once (ranked-mempool.ts does it at start-up,
 * for a resynchronised mirror, and when too much changed to merge): every
 * transaction's ancestor state, one radix sort by score, then every field
 * written straight to its label. Reads go through the snapshot in order and
 * writes land by label: scattered writes rather than gathered reads, as the
 * processor need not wait on writes.
 */

export interface ScratchRanking {
  exactTieRate: number;
  maxAncestorSize: number;
  totals: { fee: number; vsize: number; weight: number; sigops: number };
}

/** Labels 0 .. n - 1 of `to`, in score order, with their links; `labelOfIndex` gets each snapshot index's label. */
export function rankFromScratch(snapshot: MempoolSnapshot, to: LabelArrays, labelOfIndex: Int32Array, pool: ArrayPool): ScratchRanking {
  const n = snapshot.count;
  const edges = snapshot.parents.length;
  to.reserve(n, 0);
  to.reserveAllLinks(edges);

  const byIndex: AncestorState = { fee: pool.float64('scratch.ancestorFee', n), size: pool.float64('scratch.ancestorSize', n), sigops: pool.float64('scratch.ancestorSigops', n), count: pool.int32('scratch.ancestorCount', n) };
  const reached = pool.int32('scratch.reached', n, -1);
  const stack = pool.int32('scratch.stack', n);
  let maxAncestorSize = 1;
  for (let i = 0; i < n; i++) {
    walkAncestors(snapshot, i, reached, stack, byIndex, i);
    if (byIndex.size[i]! > maxAncestorSize) maxAncestorSize = byIndex.size[i]!;
  }
  const exactTieRate = exactTieRateFor(maxAncestorSize);

  // Sort by score, in snapshot numbering.
  const prefix = txidPrefixes(snapshot.txids, pool.float64('scratch.prefix', n));
  const scores = new ScoreOrder(pool.float64('scratch.scoreFee', n), pool.float64('scratch.scoreSize', n), pool.float64('scratch.scoreRate', n), new TxidOrder(snapshot.txids, prefix), exactTieRate);
  for (let i = 0; i < n; i++) setAncestorScore(scores, i, snapshot.modifiedFee[i]!, snapshot.vsize[i]!, byIndex.fee[i]!, byIndex.size[i]!);
  const sorted = pool.int32('scratch.sorted', n);
  for (let i = 0; i < n; i++) sorted[i] = i;
  sortByScore(sorted, scores, pool);
  for (let label = 0; label < n; label++) labelOfIndex[sorted[label]!] = label;

  const { parentStart, parents, childStart, children } = to;
  parentStart.fill(0, 0, n + 1);
  childStart.fill(0, 0, n + 1);
  const totals = { fee: 0, vsize: 0, weight: 0, sigops: 0 };
  for (let i = 0; i < n; i++) {
    const label = labelOfIndex[i]!;
    to.fee[label] = snapshot.fee[i]!;
    to.modifiedFee[label] = snapshot.modifiedFee[i]!;
    to.vsize[label] = snapshot.vsize[i]!;
    to.weight[label] = snapshot.weight[i]!;
    to.sigops[label] = snapshot.sigops[i]!;
    to.prefix[label] = prefix[i]!;
    to.snapshotIndex[label] = i;
    to.ancestorFee[label] = byIndex.fee[i]!;
    to.ancestorSize[label] = byIndex.size[i]!;
    to.ancestorSigops[label] = byIndex.sigops[i]!;
    to.ancestorCount[label] = byIndex.count[i]!;
    totals.fee += snapshot.fee[i]!;
    totals.vsize += snapshot.vsize[i]!;
    totals.weight += snapshot.weight[i]!;
    totals.sigops += snapshot.sigops[i]!;
    const first = snapshot.parentStart[i]!;
    const end = snapshot.parentStart[i + 1]!;
    parentStart[label + 1] = end - first;
    for (let e = first; e < end; e++) childStart[labelOfIndex[snapshot.parents[e]!]! + 1]!++;
  }
  const labelScores = new ScoreOrder(to.scoreFee, to.scoreSize, to.scoreRate, new TxidOrder(snapshot.txids, to.prefix, to.snapshotIndex), exactTieRate);
  for (let label = 0; label < n; label++) {
    // The same scores, recomputed in sequence: cheaper than three more scattered writes.
    setAncestorScore(labelScores, label, to.modifiedFee[label]!, to.vsize[label]!, to.ancestorFee[label]!, to.ancestorSize[label]!);
    parentStart[label + 1]! += parentStart[label]!;
    childStart[label + 1]! += childStart[label]!;
  }
  const childFill = pool.int32('scratch.childFill', n);
  childFill.set(childStart.subarray(0, n));
  for (let i = 0; i < n; i++) {
    const label = labelOfIndex[i]!;
    let at = parentStart[label]!;
    for (let e = snapshot.parentStart[i]!; e < snapshot.parentStart[i + 1]!; e++) {
      const parent = labelOfIndex[snapshot.parents[e]!]!;
      parents[at++] = parent;
      children[childFill[parent]!++] = label;
    }
  }
  return { exactTieRate, maxAncestorSize, totals };
}
