import type { ArrayPool } from '../array-pool.ts';
import { ChildLinks, compactInto, grown, LabelArrays } from './label-arrays.ts';
import { setAncestorScore, walkAncestors, type LabelledMempool } from './labelled-mempool.ts';
import type { MempoolSnapshot } from '../../mirror/mempool-snapshot.ts';
import { rankFromScratch } from './scratch-ranking.ts';
import { exactTieRateFor, mergeByScore, ScoreOrder, sortByScore, TxidOrder, txidPrefixAt } from './score-order.ts';
import { SnapshotDiffer } from './snapshot-diff.ts';

/**
 * The mempool labelled in score order (labelled-mempool.ts), kept from one
 * projection to the next and updated from each new snapshot rather than
 * rebuilt.
 *
 * Ranking from scratch walks every transaction's ancestors, sorts hundreds
 * of thousands of scores and lays every field out in the new order: most of
 * a projection's time. Between two snapshots a few thousand transactions
 * come and go, so an update:
 * - finds what changed (snapshot-diff.ts): transactions new, changed or
 *   departed;
 * - kills the labels of the departed and changed, and of all their
 *   descendants (their ancestor state changes with them);
 * - gives the new and changed transactions, and the descendants still
 *   here, fresh labels after the others: their fields, a walk of their
 *   ancestors, their score; sorts only them, and merges them into the run of
 *   fresh labels. The settled labels stay where they are, untouched.
 * Once fresh and dead labels make up a tenth of the mempool, everything is
 * laid out afresh in score order (label-arrays.ts compactInto()): the
 * selection reads the labels nearly in sequence again, and dead ones no
 * longer take room. When more than a quarter of the mempool changed (a
 * fresh start, a resynchronised mirror) it is ranked from scratch.
 *
 * The result does not depend on the path taken: the order of live labels
 * is exact (score, then txid, as score-order.ts compares), and every label's
 * fields and ancestor state are the snapshot's. The incremental tests
 * compare projections this way with projections from scratch on random
 * mempools.
 */

/** Above this share of the mempool changed, ranking from scratch is cheaper than merging. */
const FULL_RANK_SHARE = 0.25;

export interface RankedMempoolTuning {
  /** Fresh and dead labels beyond this share of the transactions are laid out afresh (default 0.1). */
  compactShare?: number;
  /** … and beyond this many (default 1,024: a small mempool is cheap to lay out either way). */
  compactMinimum?: number;
}

export class RankedMempool {
  private readonly differ = new SnapshotDiffer();
  private arrays = new LabelArrays();
  private spare = new LabelArrays();
  private readonly links = new ChildLinks();
  private readonly compactShare: number;
  private readonly compactMinimum: number;
  /** Labels in use, live and dead; labels below `settled` are in score order. */
  private labels = 0;
  private settled = 0;
  /** Live labels: transactions. */
  private count = 0;
  /** Parent links in use (dead labels' included). */
  private edges = 0;
  /** Live labels from `settled` on, in score order. */
  private fresh = new Int32Array(0);
  private freshCount = 0;
  private dead = new Int32Array(0);
  private deadCount = 0;
  private deadFlag = new Uint8Array(0);
  /** Per label, the update in which it departed, and that last killed it: marks that need no clearing. */
  private goneIn = new Int32Array(0);
  private killedIn = new Int32Array(0);
  private stamp = 0;
  /** Snapshot index → label, for the previous snapshot and for this one. */
  private labelOfPrevious = new Int32Array(0);
  private labelOfIndex = new Int32Array(0);
  /** The largest ancestor size ranked since the last ranking from scratch (score-order.ts exactTieRate). */
  private maxAncestorSize = 1;
  private totals = { fee: 0, vsize: 0, weight: 0, sigops: 0 };
  /** How the last update went, for tests and the bench. */
  lastUpdate = { full: true, reranked: 0, compacted: true };

  constructor(tuning: RankedMempoolTuning = {}) {
    this.compactShare = tuning.compactShare ?? 0.1;
    this.compactMinimum = tuning.compactMinimum ?? 1_024;
  }

  /** Forgets everything: the next update ranks from scratch. */
  reset(): void {
    this.differ.reset();
    this.forgetLabels();
  }

  private forgetLabels(): void {
    this.labels = 0;
    this.settled = 0;
    this.count = 0;
    this.edges = 0;
    this.freshCount = 0;
    this.deadCount = 0;
    this.maxAncestorSize = 1;
    this.totals = { fee: 0, vsize: 0, weight: 0, sigops: 0 };
  }

  /** Labels in use (dead ones included) and transactions, as of the last update. */
  get size(): { labels: number; count: number } {
    return { labels: this.labels, count: this.count };
  }

  get byteLength(): number {
    const own = [this.fresh, this.dead, this.deadFlag, this.goneIn, this.killedIn, this.labelOfPrevious, this.labelOfIndex].reduce((a, x) => a + x.byteLength, 0);
    return own + this.differ.byteLength + this.arrays.byteLength + this.spare.byteLength + this.links.byteLength;
  }

  /**
   * The snapshot, ranked. The arrays returned belong to this object and
   * stay valid until the next update; the caller must put back any ancestor
   * state or score it changes. Throws on a malformed snapshot (and then
   * starts from scratch next time).
   */
  update(snapshot: MempoolSnapshot, pool: ArrayPool): LabelledMempool {
    try {
      return this.rank(snapshot, pool);
    } catch (error) {
      this.reset();
      throw error;
    }
  }

  private rank(snapshot: MempoolSnapshot, pool: ArrayPool): LabelledMempool {
    const { previousIndex, changed, departed } = this.differ.diff(snapshot);
    const n = snapshot.count;
    const stamp = ++this.stamp;
    [this.labelOfPrevious, this.labelOfIndex] = [this.labelOfIndex, this.labelOfPrevious];
    if (this.labelOfIndex.length < n) this.labelOfIndex = new Int32Array(grown(n));
    const labelOfIndex = this.labelOfIndex;
    const a = this.arrays;
    if (this.labels === 0) return this.rankAll(snapshot, pool);

    // Still here: the same label, at its new index (written only where it moved: scattered writes).
    for (let i = 0; i < n; i++) {
      const j = previousIndex[i]!;
      if (j < 0) {
        labelOfIndex[i] = -1;
        continue;
      }
      const label = this.labelOfPrevious[j]!;
      labelOfIndex[i] = label;
      if (j !== i) a.snapshotIndex[label] = i;
    }
    for (const j of departed) this.goneIn[this.labelOfPrevious[j]!] = stamp;

    // Killed: the departed and changed, and their descendants. Ranked again: the changed, the new, and the descendants still here.
    const rerank = pool.int32('ranked.rerank', n);
    let rerankCount = 0;
    const killed = pool.int32('ranked.killed', this.labels);
    let killedCount = 0;
    const kill = (label: number) => {
      if (this.killedIn[label] === stamp || this.deadFlag[label] === 1) return;
      this.killedIn[label] = stamp;
      killed[killedCount++] = label;
    };
    for (const j of departed) kill(this.labelOfPrevious[j]!);
    for (const i of changed) {
      if (labelOfIndex[i]! >= 0) kill(labelOfIndex[i]!);
      else rerank[rerankCount++] = i;
    }
    for (let k = 0; k < killedCount; k++) {
      const label = killed[k]!;
      if (label < this.settled) for (let e = a.childStart[label]!; e < a.childStart[label + 1]!; e++) kill(a.children[e]!);
      for (let x = this.links.head[label]!; x >= 0; x = this.links.next[x]!) kill(this.links.child[x]!);
    }
    for (let k = 0; k < killedCount; k++) {
      const label = killed[k]!;
      if (this.goneIn[label] === stamp) continue;
      const i = a.snapshotIndex[label]!;
      labelOfIndex[i] = -1;
      rerank[rerankCount++] = i;
    }

    if (rerankCount > FULL_RANK_SHARE * n) return this.rankAll(snapshot, pool);
    this.reserveDead(this.deadCount + killedCount);
    const totals = this.totals;
    for (let k = 0; k < killedCount; k++) {
      const label = killed[k]!;
      this.deadFlag[label] = 1;
      this.dead[this.deadCount++] = label;
      totals.fee -= a.fee[label]!;
      totals.vsize -= a.vsize[label]!;
      totals.weight -= a.weight[label]!;
      totals.sigops -= a.sigops[label]!;
    }
    const scores = this.append(snapshot, rerank.subarray(0, rerankCount), pool);
    this.count = n;
    const compact = this.freshCount + this.deadCount > Math.max(this.compactMinimum, this.compactShare * n);
    if (compact) this.compact(scores, pool);
    this.lastUpdate = { full: false, reranked: rerankCount, compacted: compact };
    return this.view(snapshot, scores.exactTieRate);
  }

  /** Everything ranked from scratch, laid out in score order (scratch-ranking.ts). */
  private rankAll(snapshot: MempoolSnapshot, pool: ArrayPool): LabelledMempool {
    const n = snapshot.count;
    this.forgetLabels();
    const ranking = rankFromScratch(snapshot, this.arrays, this.labelOfIndex, pool);
    this.reserveFlags(n, 0);
    this.deadFlag.fill(0, 0, n);
    this.links.clear(n);
    this.labels = n;
    this.settled = n;
    this.count = n;
    this.edges = snapshot.parents.length;
    this.maxAncestorSize = ranking.maxAncestorSize;
    this.totals = ranking.totals;
    this.lastUpdate = { full: true, reranked: n, compacted: true };
    return this.view(snapshot, ranking.exactTieRate);
  }

  /** Fresh labels for `indices` (snapshot indices): fields, ancestor state, score, parent links; merged into the fresh run. */
  private append(snapshot: MempoolSnapshot, indices: Int32Array, pool: ArrayPool): ScoreOrder {
    const base = this.labels;
    const count = indices.length;
    this.reserveLabels(base + count);
    const a = this.arrays;
    const labelOfIndex = this.labelOfIndex;
    for (let k = 0; k < count; k++) labelOfIndex[indices[k]!] = base + k;

    const reached = pool.int32('ranked.reached', snapshot.count, -1);
    const stack = pool.int32('ranked.stack', snapshot.count);
    const ancestors = { fee: a.ancestorFee, size: a.ancestorSize, sigops: a.ancestorSigops, count: a.ancestorCount };
    let maxSize = this.maxAncestorSize;
    let newEdges = 0;
    const totals = this.totals;
    for (let k = 0; k < count; k++) {
      const i = indices[k]!;
      const label = base + k;
      a.fee[label] = snapshot.fee[i]!;
      a.modifiedFee[label] = snapshot.modifiedFee[i]!;
      a.vsize[label] = snapshot.vsize[i]!;
      a.weight[label] = snapshot.weight[i]!;
      a.sigops[label] = snapshot.sigops[i]!;
      a.prefix[label] = txidPrefixAt(snapshot.txids, i);
      a.snapshotIndex[label] = i;
      this.deadFlag[label] = 0;
      totals.fee += snapshot.fee[i]!;
      totals.vsize += snapshot.vsize[i]!;
      totals.weight += snapshot.weight[i]!;
      totals.sigops += snapshot.sigops[i]!;
      walkAncestors(snapshot, i, reached, stack, ancestors, label);
      if (a.ancestorSize[label]! > maxSize) maxSize = a.ancestorSize[label]!;
      newEdges += snapshot.parentStart[i + 1]! - snapshot.parentStart[i]!;
    }
    // Never lowered but from scratch: a larger maxSize only makes the quotient shortcut more cautious.
    this.maxAncestorSize = maxSize;
    const scores = new ScoreOrder(a.scoreFee, a.scoreSize, a.scoreRate, new TxidOrder(snapshot.txids, a.prefix, a.snapshotIndex), exactTieRateFor(maxSize));
    for (let label = base; label < base + count; label++) setAncestorScore(scores, label, a.modifiedFee[label]!, a.vsize[label]!, a.ancestorFee[label]!, a.ancestorSize[label]!);

    a.reserveParentLinks(this.edges + newEdges, this.edges);
    let edge = this.edges;
    for (let k = 0; k < count; k++) {
      const i = indices[k]!;
      const label = base + k;
      a.parentStart[label] = edge;
      for (let e = snapshot.parentStart[i]!; e < snapshot.parentStart[i + 1]!; e++) {
        const parent = labelOfIndex[snapshot.parents[e]!]!;
        a.parents[edge++] = parent;
        this.links.add(parent, label);
      }
    }
    a.parentStart[base + count] = edge;
    this.edges = edge;
    this.labels = base + count;

    // The fresh run: the live ones of the last, merged with these.
    const added = pool.int32('ranked.added', count);
    for (let k = 0; k < count; k++) added[k] = base + k;
    sortByScore(added, scores, pool);
    const kept = pool.int32('ranked.keptFresh', this.freshCount);
    let keptCount = 0;
    for (let k = 0; k < this.freshCount; k++) if (this.deadFlag[this.fresh[k]!] === 0) kept[keptCount++] = this.fresh[k]!;
    if (this.fresh.length < keptCount + count) this.fresh = new Int32Array(grown(keptCount + count));
    this.freshCount = keptCount + count;
    mergeByScore(kept.subarray(0, keptCount), added, this.fresh.subarray(0, this.freshCount), scores);
    return scores;
  }

  /** Lays every live label out afresh, in score order: the settled ones still live, merged with the fresh run. */
  private compact(scores: ScoreOrder, pool: ArrayPool): void {
    const n = this.count;
    const a = this.arrays;
    const settledLive = pool.int32('ranked.settledLive', n - this.freshCount);
    let k = 0;
    for (let label = 0; label < this.settled; label++) {
      if (this.deadFlag[label] === 1) continue;
      if (k === settledLive.length) throw new Error('Ranked mempool: more live labels than transactions');
      settledLive[k++] = label;
    }
    if (k !== settledLive.length) throw new Error('Ranked mempool: fewer live labels than transactions');
    const order = pool.int32('ranked.order', n);
    mergeByScore(settledLive, this.fresh.subarray(0, this.freshCount), order, scores);
    const newLabel = pool.int32('ranked.newLabel', this.labels);
    const to = this.spare;
    to.reserve(n, 0);
    to.reserveAllLinks(this.edges);
    compactInto(a, to, order, newLabel, pool);
    for (let label = 0; label < n; label++) this.labelOfIndex[to.snapshotIndex[label]!] = label;
    this.arrays = to;
    this.spare = a;
    this.labels = n;
    this.settled = n;
    this.edges = to.parentStart[n]!;
    this.freshCount = 0;
    this.deadCount = 0;
    this.deadFlag.fill(0, 0, n);
    this.links.clear(n);
  }

  private reserveLabels(labels: number): void {
    const keep = this.labels;
    this.arrays.reserve(labels, keep);
    this.links.reserveLabels(labels, keep);
    this.reserveFlags(labels, keep);
  }

  private reserveFlags(labels: number, keep: number): void {
    if (this.deadFlag.length < labels) {
      const capacity = grown(labels);
      const deadFlag = new Uint8Array(capacity);
      deadFlag.set(this.deadFlag.subarray(0, keep));
      this.deadFlag = deadFlag;
      const goneIn = new Int32Array(capacity);
      goneIn.set(this.goneIn.subarray(0, keep));
      this.goneIn = goneIn;
      const killedIn = new Int32Array(capacity);
      killedIn.set(this.killedIn.subarray(0, keep));
      this.killedIn = killedIn;
    }
  }

  private reserveDead(count: number): void {
    if (this.dead.length >= count) return;
    const dead = new Int32Array(grown(count));
    dead.set(this.dead.subarray(0, this.deadCount));
    this.dead = dead;
  }

  private view(snapshot: MempoolSnapshot, exactTieRate: number): LabelledMempool {
    const a = this.arrays;
    const labels = this.labels;
    // The arrays may have been laid out afresh since the update's ScoreOrder was made: a new one over the current ones.
    const txidOrder = new TxidOrder(snapshot.txids, a.prefix, a.snapshotIndex);
    return {
      count: this.count,
      labels,
      settled: this.settled,
      fresh: this.fresh.subarray(0, this.freshCount),
      dead: this.dead.subarray(0, this.deadCount),
      snapshotIndex: a.snapshotIndex.subarray(0, labels),
      labelOfIndex: this.labelOfIndex.subarray(0, this.count),
      fee: a.fee.subarray(0, labels),
      modifiedFee: a.modifiedFee.subarray(0, labels),
      vsize: a.vsize.subarray(0, labels),
      weight: a.weight.subarray(0, labels),
      sigops: a.sigops.subarray(0, labels),
      parentStart: a.parentStart.subarray(0, labels + 1),
      parents: a.parents.subarray(0, this.edges),
      childStart: a.childStart.subarray(0, this.settled + 1),
      children: a.children.subarray(0, a.childStart[this.settled]),
      childLinks: { head: this.links.head, next: this.links.next, child: this.links.child },
      ancestors: { fee: a.ancestorFee.subarray(0, labels), size: a.ancestorSize.subarray(0, labels), sigops: a.ancestorSigops.subarray(0, labels), count: a.ancestorCount.subarray(0, labels) },
      txidOrder,
      scores: new ScoreOrder(a.scoreFee, a.scoreSize, a.scoreRate, txidOrder, exactTieRate),
      totals: { ...this.totals },
    };
  }
}
