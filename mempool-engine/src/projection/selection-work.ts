import type { ArrayPool } from './array-pool.ts';
import { setAncestorScore, type AncestorState, type LabelledMempool } from './ranking/labelled-mempool.ts';
import { ScoreOrder, type TxidOrder } from './ranking/score-order.ts';
import { ScoreHeap } from './score-heap.ts';

/**
 * What one block selection (block-selection.ts) works with: the ranked
 * mempool's arrays, the answers it writes, its working arrays from the pool,
 * and its cursors and counters. One object, made once per selection, so that
 * the selection's steps are functions of their own without a closure per
 * block or per package; each step reads the fields it needs into locals
 * first, as the hot loops must.
 */

/** blockIndex of a dead label (labelled-mempool.ts): like a transaction already in a block, it is never a candidate. */
export const DEAD = -2;

/** The projection's answers by label, written in place: per label, a block index (-1 until projected), a position and a rate. */
export interface AnswersByLabel {
  blockIndex: Int16Array;
  positionVsize: Float64Array;
  functionalRate: Float64Array;
}

export class SelectionWork {
  // The ranked mempool. Per-label arrays cover every label, dead ones included; the main run is the settled labels.
  readonly settled: number;
  readonly fee: Float64Array;
  readonly modifiedFee: Float64Array;
  readonly vsize: Int32Array;
  readonly weight: Int32Array;
  readonly sigops: Int32Array;
  readonly parentStart: Int32Array;
  readonly parents: Int32Array;
  readonly childStart: Int32Array;
  readonly children: Int32Array;
  readonly linkHead: Int32Array;
  readonly linkNext: Int32Array;
  readonly linkChild: Int32Array;
  readonly txidOrder: TxidOrder;
  /** The ranked mempool's ancestor state, changed as ancestors go into blocks (and put back by restoreAncestors()). */
  readonly ancestorFee: Float64Array;
  readonly ancestorSize: Float64Array;
  readonly ancestorSigops: Float64Array;
  readonly ancestorCount: Int32Array;

  // The answers.
  readonly blockIndex: Int16Array;
  readonly positionVsize: Float64Array;
  readonly functionalRate: Float64Array;
  /** Labels in block order. */
  readonly order: Int32Array;

  // Core's mapTx, ancestor_score index: what is left, best first, by ancestor state at the block's start.
  // Two sorted runs merged as they are read: the settled labels (the initial order), and the fresh
  // labels with the transactions re-scored since because an ancestor went into an earlier block.
  readonly mainOrder: ScoreOrder;
  /** Whether the transaction has left the label run for the re-scored run: marked with this selection's number. */
  readonly rescoredIn: Int32Array;
  readonly rescoredMark: number;
  rescored: Int32Array;
  rescoredBuffer: Int32Array;
  spareBuffer: Int32Array;
  readonly keptBuffer: Int32Array;

  // Core's mapModifiedTx: ancestor state reduced by what this block took.
  readonly modOrder: ScoreOrder;
  readonly modFee: Float64Array;
  readonly modSize: Float64Array;
  readonly modSigops: Float64Array;
  readonly modHeap: ScoreHeap;
  /** The block mark of the block in which a modified entry did not fit (Core's failedTx, per block). */
  readonly failedIn: Int32Array;
  /** The block mark of the block in which the transaction's ancestor state first changed; `start*` then hold its state at the block's start. */
  readonly touchedIn: Int32Array;
  readonly touched: Int32Array;
  readonly startFee: Float64Array;
  readonly startSize: Float64Array;
  readonly startSigops: Float64Array;
  readonly startCount: Int32Array;

  // The ranked mempool's ancestor state, as it was before this selection changed it (not touched yet in it),
  // listed in the order changed: written in sequence rather than by label.
  readonly changedLabels: Int32Array;
  readonly savedFee: Float64Array;
  readonly savedSize: Float64Array;
  readonly savedSigops: Float64Array;
  readonly savedCount: Int32Array;
  changedLabelCount = 0;

  // Walks and packages mark what they reached with a fresh number: no clearing between walks.
  readonly reached: Int32Array;
  readonly stack: Int32Array;
  readonly packageTxs: Int32Array;
  readonly packageCounts: Int32Array;
  readonly packageMark: Int32Array;

  /** The last mark drawn (SelectionMarks). */
  mark: number;
  /** Blocks are numbered from here on: a touchedIn below it was set by an earlier selection. */
  readonly firstBlockMark: number;
  remaining: number;
  projected = 0;
  packagesSelected = 0;
  descendantsUpdated = 0;

  // The block being selected.
  blockMark = 0;
  touchedCount = 0;
  orderStart = 0;
  blockWeight = 0;
  blockSigops = 0;
  blockVsize = 0;
  blockTxWeight = 0;
  blockTxSigops = 0;
  blockFees = 0;
  /** Cursors in the settled run (label = position) and the re-scored run. */
  mi = 0;
  ri = 0;
  /** The package being added: its mark, and whether its candidate came from the modified entries. */
  pkg = 0;
  fromModified = false;

  /** `answers` must hold -1 in blockIndex for every label; `lastMark`: SelectionMarks.last. */
  constructor(graph: LabelledMempool, answers: AnswersByLabel, pool: ArrayPool, lastMark: number) {
    const n = graph.labels;
    this.settled = graph.settled;
    ({ fee: this.fee, modifiedFee: this.modifiedFee, vsize: this.vsize, weight: this.weight, sigops: this.sigops } = graph);
    ({ parentStart: this.parentStart, parents: this.parents, childStart: this.childStart, children: this.children, txidOrder: this.txidOrder } = graph);
    ({ head: this.linkHead, next: this.linkNext, child: this.linkChild } = graph.childLinks);
    const ancestors: AncestorState = graph.ancestors;
    ({ fee: this.ancestorFee, size: this.ancestorSize, sigops: this.ancestorSigops, count: this.ancestorCount } = ancestors);

    this.mainOrder = graph.scores;
    let mark = lastMark;
    this.rescoredIn = pool.int32Kept('assemble.rescoredIn', n, 0);
    this.rescoredMark = ++mark;
    this.firstBlockMark = mark + 1;
    this.mark = mark;
    this.rescoredBuffer = pool.int32('assemble.rescored', n);
    this.spareBuffer = pool.int32('assemble.rescoredSpare', n);
    this.rescoredBuffer.set(graph.fresh);
    this.rescored = this.rescoredBuffer.subarray(0, graph.fresh.length);
    this.keptBuffer = pool.int32('assemble.kept', n);
    this.remaining = graph.count;

    this.modOrder = new ScoreOrder(pool.float64('assemble.modScoreFee', n), pool.float64('assemble.modScoreSize', n), pool.float64('assemble.modScoreRate', n), this.txidOrder, this.mainOrder.exactTieRate);
    this.modFee = pool.float64('assemble.modFee', n);
    this.modSize = pool.float64('assemble.modSize', n);
    this.modSigops = pool.float64('assemble.modSigops', n);
    this.modHeap = new ScoreHeap(
      // Slots all -1 between selections: the heap is emptied at the end of each.
      { heap: pool.int32('heap.tx', n), rate: pool.float64('heap.rate', n), tie: pool.float64('heap.tie', n), slot: pool.int32Kept('heap.slot', n, -1) },
      this.modOrder,
    );
    this.failedIn = pool.int32Kept('assemble.failedIn', n, 0);
    this.touchedIn = pool.int32Kept('assemble.touchedIn', n, 0);
    this.touched = pool.int32('assemble.touched', n);
    this.startFee = pool.float64('assemble.startFee', n);
    this.startSize = pool.float64('assemble.startSize', n);
    this.startSigops = pool.float64('assemble.startSigops', n);
    this.startCount = pool.int32('assemble.startCount', n);
    this.changedLabels = pool.int32('assemble.changedLabels', n);
    this.savedFee = pool.float64('assemble.savedFee', n);
    this.savedSize = pool.float64('assemble.savedSize', n);
    this.savedSigops = pool.float64('assemble.savedSigops', n);
    this.savedCount = pool.int32('assemble.savedCount', n);

    ({ blockIndex: this.blockIndex, positionVsize: this.positionVsize, functionalRate: this.functionalRate } = answers);
    for (const label of graph.dead) this.blockIndex[label] = DEAD;
    this.order = pool.int32('assemble.order', n);

    this.reached = pool.int32Kept('assemble.reached', n, 0);
    this.stack = pool.int32('assemble.stack', n);
    this.packageTxs = pool.int32('assemble.packageTxs', n);
    this.packageCounts = pool.int32('assemble.packageCounts', n);
    this.packageMark = pool.int32Kept('assemble.packageMark', n, 0);
  }
}

/** Puts back the ancestor state and scores the selection changed (BlockSelection.restore()). */
export function restoreAncestors(w: SelectionWork): void {
  const { changedLabels, changedLabelCount, savedFee, savedSize, savedSigops, savedCount, ancestorFee, ancestorSize, ancestorSigops, ancestorCount, mainOrder, modifiedFee, vsize } = w;
  for (let k = 0; k < changedLabelCount; k++) {
    const d = changedLabels[k]!;
    ancestorFee[d] = savedFee[k]!;
    ancestorSize[d] = savedSize[k]!;
    ancestorSigops[d] = savedSigops[k]!;
    ancestorCount[d] = savedCount[k]!;
    setAncestorScore(mainOrder, d, modifiedFee[d]!, vsize[d]!, ancestorFee[d], ancestorSize[d]);
  }
}
