import type { ArrayPool } from '../array-pool.ts';

/**
 * The ranked mempool's per-label arrays (ranked-mempool.ts): one set of
 * typed arrays, grown with headroom and kept from one update to the next.
 * Two of them take turns when the labels are laid out afresh (compact()).
 */
export class LabelArrays {
  capacity = 0;
  fee = new Float64Array(0);
  modifiedFee = new Float64Array(0);
  prefix = new Float64Array(0);
  ancestorFee = new Float64Array(0);
  ancestorSize = new Float64Array(0);
  ancestorSigops = new Float64Array(0);
  scoreFee = new Float64Array(0);
  scoreSize = new Float64Array(0);
  scoreRate = new Float64Array(0);
  vsize = new Int32Array(0);
  weight = new Int32Array(0);
  sigops = new Int32Array(0);
  ancestorCount = new Int32Array(0);
  snapshotIndex = new Int32Array(0);
  /** Parents of label l: parents[parentStart[l] .. parentStart[l + 1] - 1], for every label. */
  parentStart = new Int32Array(1);
  parents = new Int32Array(0);
  /** Children, likewise, of the labels laid out by the last compaction only (later ones: ChildLinks). */
  childStart = new Int32Array(1);
  children = new Int32Array(0);

  get byteLength(): number {
    const arrays = [this.fee, this.modifiedFee, this.prefix, this.ancestorFee, this.ancestorSize, this.ancestorSigops, this.scoreFee, this.scoreSize, this.scoreRate,
      this.vsize, this.weight, this.sigops, this.ancestorCount, this.snapshotIndex, this.parentStart, this.parents, this.childStart, this.children];
    return arrays.reduce((a, x) => a + x.byteLength, 0);
  }

  /** Room for `count` labels, keeping the first `keep` (and their parent links). */
  reserve(count: number, keep: number): void {
    if (count <= this.capacity) return;
    const capacity = grown(count);
    const widen = <T extends Float64Array | Int32Array>(old: T, make: (size: number) => T, extra = 0): T => {
      const next = make(capacity + extra);
      next.set(old.subarray(0, keep + extra));
      return next;
    };
    const f64 = (size: number) => new Float64Array(size);
    const i32 = (size: number) => new Int32Array(size);
    this.fee = widen(this.fee, f64);
    this.modifiedFee = widen(this.modifiedFee, f64);
    this.prefix = widen(this.prefix, f64);
    this.ancestorFee = widen(this.ancestorFee, f64);
    this.ancestorSize = widen(this.ancestorSize, f64);
    this.ancestorSigops = widen(this.ancestorSigops, f64);
    this.scoreFee = widen(this.scoreFee, f64);
    this.scoreSize = widen(this.scoreSize, f64);
    this.scoreRate = widen(this.scoreRate, f64);
    this.vsize = widen(this.vsize, i32);
    this.weight = widen(this.weight, i32);
    this.sigops = widen(this.sigops, i32);
    this.ancestorCount = widen(this.ancestorCount, i32);
    this.snapshotIndex = widen(this.snapshotIndex, i32);
    this.parentStart = widen(this.parentStart, i32, 1);
    this.childStart = widen(this.childStart, i32, 1);
    this.capacity = capacity;
  }

  /** Room for `edges` parent links, keeping the first `keep` (labels are appended with their links). */
  reserveParentLinks(edges: number, keep: number): void {
    if (this.parents.length >= edges) return;
    const parents = new Int32Array(grown(edges));
    parents.set(this.parents.subarray(0, keep));
    this.parents = parents;
  }

  /** Room for `edges` links each way, nothing kept: for laying everything out afresh. */
  reserveAllLinks(edges: number): void {
    if (this.parents.length < edges) this.parents = new Int32Array(grown(edges));
    if (this.children.length < edges) this.children = new Int32Array(grown(edges));
  }

  /** Labels start .. start + length - 1 to labels at .. of `to`; links excepted. */
  copyTo(to: LabelArrays, start: number, at: number, length: number): void {
    if (length < 16) {
      // Short runs element by element: no subarray views to allocate.
      for (let k = 0; k < length; k++) this.copyOne(to, start + k, at + k);
      return;
    }
    const end = start + length;
    to.fee.set(this.fee.subarray(start, end), at);
    to.modifiedFee.set(this.modifiedFee.subarray(start, end), at);
    to.prefix.set(this.prefix.subarray(start, end), at);
    to.ancestorFee.set(this.ancestorFee.subarray(start, end), at);
    to.ancestorSize.set(this.ancestorSize.subarray(start, end), at);
    to.ancestorSigops.set(this.ancestorSigops.subarray(start, end), at);
    to.scoreFee.set(this.scoreFee.subarray(start, end), at);
    to.scoreSize.set(this.scoreSize.subarray(start, end), at);
    to.scoreRate.set(this.scoreRate.subarray(start, end), at);
    to.vsize.set(this.vsize.subarray(start, end), at);
    to.weight.set(this.weight.subarray(start, end), at);
    to.sigops.set(this.sigops.subarray(start, end), at);
    to.ancestorCount.set(this.ancestorCount.subarray(start, end), at);
    to.snapshotIndex.set(this.snapshotIndex.subarray(start, end), at);
  }

  private copyOne(to: LabelArrays, from: number, at: number): void {
    to.fee[at] = this.fee[from]!;
    to.modifiedFee[at] = this.modifiedFee[from]!;
    to.prefix[at] = this.prefix[from]!;
    to.ancestorFee[at] = this.ancestorFee[from]!;
    to.ancestorSize[at] = this.ancestorSize[from]!;
    to.ancestorSigops[at] = this.ancestorSigops[from]!;
    to.scoreFee[at] = this.scoreFee[from]!;
    to.scoreSize[at] = this.scoreSize[from]!;
    to.scoreRate[at] = this.scoreRate[from]!;
    to.vsize[at] = this.vsize[from]!;
    to.weight[at] = this.weight[from]!;
    to.sigops[at] = this.sigops[from]!;
    to.ancestorCount[at] = this.ancestorCount[from]!;
    to.snapshotIndex[at] = this.snapshotIndex[from]!;
  }
}

/**
 * Lays the labels listed in `order` (score order) out as labels 0, 1, 2, …
 * of `to`, with their parent links renumbered and every child link rebuilt:
 * afterwards the labels read in sequence again. Runs of consecutive labels
 * go in one copy per array. Returns, per old label, its new one in
 * `newLabel` (labels not listed keep whatever was there).
 */
export function compactInto(from: LabelArrays, to: LabelArrays, order: Int32Array, newLabel: Int32Array, pool: ArrayPool): void {
  const n = order.length;
  for (let at = 0; at < n; ) {
    const start = order[at]!;
    let length = 1;
    while (at + length < n && order[at + length] === start + length) length++;
    from.copyTo(to, start, at, length);
    for (let k = 0; k < length; k++) newLabel[start + k] = at + k;
    at += length;
  }
  const { parentStart, parents, childStart, children } = to;
  let edges = 0;
  for (let label = 0; label < n; label++) {
    parentStart[label] = edges;
    const old = order[label]!;
    for (let e = from.parentStart[old]!; e < from.parentStart[old + 1]!; e++) parents[edges++] = newLabel[from.parents[e]!]!;
  }
  parentStart[n] = edges;
  childStart.fill(0, 0, n + 1);
  for (let e = 0; e < edges; e++) childStart[parents[e]! + 1]!++;
  for (let label = 0; label < n; label++) childStart[label + 1]! += childStart[label]!;
  const fill = pool.int32('labels.childFill', n);
  fill.set(childStart.subarray(0, n));
  for (let label = 0; label < n; label++) {
    for (let e = parentStart[label]!; e < parentStart[label + 1]!; e++) children[fill[parents[e]!]!++] = label;
  }
}

/**
 * Child links added since the last compaction, as linked lists: label l's
 * are child[k] for k = head[l], next[k], next[next[k]], … while k >= 0.
 */
export class ChildLinks {
  head = new Int32Array(0);
  next = new Int32Array(0);
  child = new Int32Array(0);
  count = 0;

  get byteLength(): number {
    return this.head.byteLength + this.next.byteLength + this.child.byteLength;
  }

  /** No links, for labels 0 .. labels - 1. */
  clear(labels: number): void {
    if (this.head.length < labels) this.head = new Int32Array(grown(labels));
    this.head.fill(-1, 0, labels);
    this.count = 0;
  }

  /** Room for labels 0 .. labels - 1, new ones without links. */
  reserveLabels(labels: number, used: number): void {
    if (this.head.length >= labels) {
      this.head.fill(-1, used, labels);
      return;
    }
    const head = new Int32Array(grown(labels)).fill(-1);
    head.set(this.head.subarray(0, used));
    this.head = head;
  }

  add(parent: number, child: number): void {
    if (this.count === this.next.length) {
      const size = grown(this.count + 1);
      const next = new Int32Array(size);
      const children = new Int32Array(size);
      next.set(this.next);
      children.set(this.child);
      this.next = next;
      this.child = children;
    }
    this.child[this.count] = child;
    this.next[this.count] = this.head[parent]!;
    this.head[parent] = this.count++;
  }
}

/** Room for a mempool that grows a little without reallocating, as ArrayPool gives. */
export function grown(length: number): number {
  return Math.ceil(length * 1.25) + 16;
}
