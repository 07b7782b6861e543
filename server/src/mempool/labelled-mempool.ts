import type { ArrayPool } from './array-pool.ts';
import type { MempoolSnapshot } from './mempool-snapshot.ts';
import { exactTieRateFor, ScoreOrder, sortByScore, TxidOrder, txidPrefixes } from './score-order.ts';

/**
 * The snapshot relabelled so that label 0 is the best-scoring transaction,
 * label 1 the next, and so on, with its ancestor state and its children.
 *
 * Why relabel: the block assembler takes transactions roughly in score
 * order. In snapshot order its per-transaction arrays would be read at
 * random, and on a large mempool the time goes to waiting for memory, not to
 * arithmetic; in score order they are read nearly in sequence. The sort also
 * gives block 0 Core's mapTx order (ancestor_score index) for free: 0, 1, 2, …
 */

/** Per-transaction ancestor state: the mempool entry's *WithAncestors fields (modified fees, sigop-adjusted vsizes). */
export interface AncestorState {
  fee: Float64Array;
  size: Float64Array;
  sigops: Float64Array;
  count: Int32Array;
}

export interface LabelledMempool {
  count: number;
  /** Label → snapshot index. */
  snapshotIndex: Int32Array;
  fee: Float64Array;
  modifiedFee: Float64Array;
  vsize: Int32Array;
  weight: Int32Array;
  sigops: Int32Array;
  /** The parents of l are parents[parentStart[l] .. parentStart[l + 1] - 1]; children likewise. */
  parentStart: Int32Array;
  parents: Int32Array;
  childStart: Int32Array;
  children: Int32Array;
  ancestors: AncestorState;
  txidOrder: TxidOrder;
  /** Every transaction's ancestor score at the start (GetModFeeAndSize), by label. */
  scores: ScoreOrder;
}

/** Pool names are prefixed so that the assembler's own arrays never collide with these. */
export function labelByScore(snapshot: MempoolSnapshot, pool: ArrayPool): LabelledMempool {
  const n = snapshot.count;
  const edges = snapshot.parents.length;
  const { ancestors: byIndex, maxSize } = ancestorStateOf(snapshot, pool);
  const exactTieRate = exactTieRateFor(maxSize);

  // Sort by initial score, in snapshot numbering.
  const snapshotPrefix = txidPrefixes(snapshot.txids, pool.float64('label.snapshotPrefix', n));
  const byIndexScores = new ScoreOrder(pool.float64('label.scoreFee', n), pool.float64('label.scoreSize', n), pool.float64('label.scoreRate', n), new TxidOrder(snapshot.txids, snapshotPrefix), exactTieRate);
  for (let i = 0; i < n; i++) setAncestorScore(byIndexScores, i, snapshot.modifiedFee[i]!, snapshot.vsize[i]!, byIndex.fee[i]!, byIndex.size[i]!);
  const snapshotIndex = pool.int32('label.snapshotIndex', n);
  for (let i = 0; i < n; i++) snapshotIndex[i] = i;
  sortByScore(snapshotIndex, byIndexScores, pool);
  const labelOf = pool.int32('label.labelOf', n);
  for (let l = 0; l < n; l++) labelOf[snapshotIndex[l]!] = l;

  const txidOrder = new TxidOrder(snapshot.txids, pool.float64('label.prefix', n), snapshotIndex);
  const graph: LabelledMempool = {
    count: n,
    snapshotIndex,
    fee: pool.float64('label.fee', n),
    modifiedFee: pool.float64('label.modifiedFee', n),
    vsize: pool.int32('label.vsize', n),
    weight: pool.int32('label.weight', n),
    sigops: pool.int32('label.sigops', n),
    parentStart: pool.int32('label.parentStart', n + 1, 0),
    parents: pool.int32('label.parents', edges),
    childStart: pool.int32('label.childStart', n + 1, 0),
    children: pool.int32('label.children', edges),
    ancestors: { fee: pool.float64('label.ancestorFee', n), size: pool.float64('label.ancestorSize', n), sigops: pool.float64('label.ancestorSigops', n), count: pool.int32('label.ancestorCount', n) },
    txidOrder,
    scores: new ScoreOrder(pool.float64('label.labelScoreFee', n), pool.float64('label.labelScoreSize', n), pool.float64('label.labelScoreRate', n), txidOrder, exactTieRate),
  };

  // Scattered writes by label rather than gathered reads by snapshot index: the processor need not wait on them.
  const { fee, modifiedFee, vsize, weight, sigops, parentStart, parents, childStart, children, ancestors, scores } = graph;
  const prefix = txidOrder.prefix;
  for (let i = 0; i < n; i++) {
    const l = labelOf[i]!;
    fee[l] = snapshot.fee[i]!;
    modifiedFee[l] = snapshot.modifiedFee[i]!;
    vsize[l] = snapshot.vsize[i]!;
    weight[l] = snapshot.weight[i]!;
    sigops[l] = snapshot.sigops[i]!;
    ancestors.fee[l] = byIndex.fee[i]!;
    ancestors.size[l] = byIndex.size[i]!;
    ancestors.sigops[l] = byIndex.sigops[i]!;
    ancestors.count[l] = byIndex.count[i]!;
    prefix[l] = snapshotPrefix[i]!;
    const first = snapshot.parentStart[i]!;
    const end = snapshot.parentStart[i + 1]!;
    parentStart[l + 1] = end - first;
    for (let e = first; e < end; e++) childStart[labelOf[snapshot.parents[e]!]! + 1]!++;
  }
  for (let l = 0; l < n; l++) {
    // The same scores, recomputed in sequence: cheaper than three more scattered writes.
    setAncestorScore(scores, l, modifiedFee[l]!, vsize[l]!, ancestors.fee[l]!, ancestors.size[l]!);
    parentStart[l + 1]! += parentStart[l]!;
    childStart[l + 1]! += childStart[l]!;
  }
  const childFill = pool.int32('label.childFill', n);
  childFill.set(childStart.subarray(0, n));
  for (let i = 0; i < n; i++) {
    const l = labelOf[i]!;
    let at = parentStart[l]!;
    for (let e = snapshot.parentStart[i]!; e < snapshot.parentStart[i + 1]!; e++) {
      const parent = labelOf[snapshot.parents[e]!]!;
      parents[at++] = parent;
      children[childFill[parent]!++] = l;
    }
  }
  return graph;
}

/**
 * CompareTxMemPoolEntryByAncestorFee's GetModFeeAndSize (txmempool.h): the
 * lower of a transaction's own rate and its ancestor rate, as a fee / size pair.
 */
export function setAncestorScore(scores: ScoreOrder, tx: number, ownFee: number, ownSize: number, ancestorFee: number, ancestorSize: number): void {
  if (ownFee * ancestorSize > ancestorFee * ownSize) scores.set(tx, ancestorFee, ancestorSize);
  else scores.set(tx, ownFee, ownSize);
}

/** Every transaction's ancestor state, walking its ancestors once (they are few: Core limits them to 25 by default). */
function ancestorStateOf(snapshot: MempoolSnapshot, pool: ArrayPool): { ancestors: AncestorState; maxSize: number } {
  const n = snapshot.count;
  const { modifiedFee, vsize, sigops, parentStart, parents } = snapshot;
  const ancestors: AncestorState = {
    fee: pool.float64('ancestry.fee', n),
    size: pool.float64('ancestry.size', n),
    sigops: pool.float64('ancestry.sigops', n),
    count: pool.int32('ancestry.count', n),
  };
  const reached = pool.int32('ancestry.reached', n, -1);
  const stack = pool.int32('ancestry.stack', n);
  let maxSize = 1;
  for (let i = 0; i < n; i++) {
    reached[i] = i;
    let feeSum = modifiedFee[i]!;
    let sizeSum = vsize[i]!;
    let sigopSum = sigops[i]!;
    let count = 1;
    let top = 0;
    for (let e = parentStart[i]!; e < parentStart[i + 1]!; e++) {
      const p = parents[e]!;
      if (reached[p] !== i) {
        reached[p] = i;
        stack[top++] = p;
      }
    }
    while (top > 0) {
      const a = stack[--top]!;
      feeSum += modifiedFee[a]!;
      sizeSum += vsize[a]!;
      sigopSum += sigops[a]!;
      count++;
      for (let e = parentStart[a]!; e < parentStart[a + 1]!; e++) {
        const p = parents[e]!;
        if (p === i) throw new RangeError(`The snapshot's dependencies have a cycle through transaction ${i}`);
        if (reached[p] !== i) {
          reached[p] = i;
          stack[top++] = p;
        }
      }
    }
    ancestors.fee[i] = feeSum;
    ancestors.size[i] = sizeSum;
    ancestors.sigops[i] = sigopSum;
    ancestors.count[i] = count;
    if (sizeSum > maxSize) maxSize = sizeSum;
  }
  return { ancestors, maxSize };
}
