import type { MempoolSnapshot } from '../../mirror/mempool-snapshot.ts';
import type { ScoreOrder, TxidOrder } from './score-order.ts';

/**
 * The mempool as the block assembler reads it: relabelled so that the
 * labels read in score order, with its ancestor state and its links
 * (ranked-mempool.ts builds it and keeps it between projections).
 *
 * Why relabel: the block assembler takes transactions roughly in score
 * order. In snapshot order its per-transaction arrays would be read at
 * random, and on a large mempool the time goes to waiting for memory, not to
 * arithmetic; in score order they are read nearly in sequence.
 *
 * Core's mapTx order (ancestor_score index) is two sorted runs merged:
 * labels 0 .. settled - 1 in order, less the dead ones, and `fresh`, the
 * labels given since the last time everything was laid out afresh (new
 * transactions, and ones whose ancestor state changed). A label is dead
 * when its transaction left or was ranked again under a fresh label; dead
 * labels stay until the next compaction, linked to nothing alive.
 */

/** Per-transaction ancestor state: the mempool entry's *WithAncestors fields (modified fees, sigop-adjusted vsizes). */
export interface AncestorState {
  fee: Float64Array;
  size: Float64Array;
  sigops: Float64Array;
  count: Int32Array;
}

export interface LabelledMempool {
  /** Transactions: live labels. */
  count: number;
  /** Labels in use, dead ones included: every per-label array covers 0 .. labels - 1. */
  labels: number;
  /** Labels below this are in score order. */
  settled: number;
  /** The live labels from `settled` on, in score order. */
  fresh: Int32Array;
  /** Dead labels. */
  dead: Int32Array;
  /** Label → snapshot index (live labels). */
  snapshotIndex: Int32Array;
  /** Snapshot index → label. */
  labelOfIndex: Int32Array;
  fee: Float64Array;
  modifiedFee: Float64Array;
  vsize: Int32Array;
  weight: Int32Array;
  sigops: Int32Array;
  /** The parents of l are parents[parentStart[l] .. parentStart[l + 1] - 1]. */
  parentStart: Int32Array;
  parents: Int32Array;
  /**
   * The children of a settled label l are children[childStart[l] ..
   * childStart[l + 1] - 1] (some of them dead), then, for any label, the
   * list in `childLinks`.
   */
  childStart: Int32Array;
  children: Int32Array;
  childLinks: { head: Int32Array; next: Int32Array; child: Int32Array };
  /**
   * Ancestor state, by label. The assembler changes it (and `scores`) as
   * ancestors go into blocks, and must put it back before the next update.
   */
  ancestors: AncestorState;
  txidOrder: TxidOrder;
  /** Every transaction's ancestor score (GetModFeeAndSize), by label. */
  scores: ScoreOrder;
  /** Sums over the live labels, kept as labels come and go (integers: exact). */
  totals: { fee: number; vsize: number; weight: number; sigops: number };
}

/**
 * CompareTxMemPoolEntryByAncestorFee's GetModFeeAndSize (txmempool.h): the
 * lower of a transaction's own rate and its ancestor rate, as a fee / size pair.
 */
export function setAncestorScore(scores: ScoreOrder, tx: number, ownFee: number, ownSize: number, ancestorFee: number, ancestorSize: number): void {
  if (ownFee * ancestorSize > ancestorFee * ownSize) scores.set(tx, ancestorFee, ancestorSize);
  else scores.set(tx, ownFee, ownSize);
}

/**
 * Snapshot transaction i's ancestor state (itself included), walking its
 * ancestors once (they are few: Core limits them to 25 by default), into
 * `out` at `at`. `reached` (per snapshot index) must not hold i anywhere:
 * the walk marks what it reached with i. Throws on a cycle through i.
 */
export function walkAncestors(snapshot: MempoolSnapshot, i: number, reached: Int32Array, stack: Int32Array, out: AncestorState, at: number): void {
  const { modifiedFee, vsize, sigops, parentStart, parents } = snapshot;
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
  out.fee[at] = feeSum;
  out.size[at] = sizeSum;
  out.sigops[at] = sigopSum;
  out.count[at] = count;
}
