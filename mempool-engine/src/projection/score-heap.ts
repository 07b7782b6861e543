import { exactlyBefore, type ScoreOrder } from './ranking/score-order.ts';

/**
 * An indexed binary heap of transactions, best score (ScoreOrder) on top:
 * the block assembler's set of modified entries (Core's mapModifiedTx).
 *
 * Each slot keeps its transaction's quotient and txid prefix next to the
 * index, so sifting reads adjacent arrays rather than scattered ones; and
 * each transaction's slot is recorded, so that has(), update() after a score
 * change and remove() cost O(1) / O(log n).
 */
export class ScoreHeap {
  private readonly heap: Int32Array;
  private readonly rate: Float64Array;
  private readonly tie: Float64Array;
  /** Slot of each transaction in `heap`, -1 when absent. */
  private readonly slot: Int32Array;
  private readonly order: ScoreOrder;
  private length = 0;

  /** Arrays with a slot per transaction; `slot` filled with -1. */
  constructor(storage: { heap: Int32Array; rate: Float64Array; tie: Float64Array; slot: Int32Array }, order: ScoreOrder) {
    this.heap = storage.heap;
    this.rate = storage.rate;
    this.tie = storage.tie;
    this.slot = storage.slot;
    this.order = order;
  }

  get size(): number {
    return this.length;
  }

  has(tx: number): boolean {
    return this.slot[tx]! >= 0;
  }

  /** The best transaction; only when size > 0. */
  peek(): number {
    return this.heap[0]!;
  }

  clear(): void {
    for (let i = 0; i < this.length; i++) this.slot[this.heap[i]!] = -1;
    this.length = 0;
  }

  push(tx: number): void {
    const at = this.length++;
    this.place(tx, this.order.rate[tx]!, this.order.txidOrder.prefix[tx]!, at);
    this.siftUp(at);
  }

  remove(tx: number): void {
    const at = this.slot[tx]!;
    if (at < 0) return;
    this.slot[tx] = -1;
    const last = --this.length;
    if (at === last) return;
    this.place(this.heap[last]!, this.rate[last]!, this.tie[last]!, at);
    if (this.siftUp(at) === at) this.siftDown(at);
  }

  /** Restores the order after tx's score changed either way. */
  update(tx: number): void {
    const at = this.slot[tx]!;
    if (at < 0) return;
    this.rate[at] = this.order.rate[tx]!;
    if (this.siftUp(at) === at) this.siftDown(at);
  }

  private place(tx: number, rate: number, tie: number, at: number): void {
    this.heap[at] = tx;
    this.rate[at] = rate;
    this.tie[at] = tie;
    this.slot[tx] = at;
  }

  /** Whether the transaction in slot i ranks before tx (quotient r, txid prefix t): ScoreOrder.before, from the slot's copies. */
  private slotBefore(i: number, r: number, t: number, tx: number): boolean {
    const ri = this.rate[i]!;
    if (ri !== r) return ri > r;
    const order = this.order;
    const a = this.heap[i]!;
    if (Math.abs(r) < order.exactTieRate) {
      const ti = this.tie[i]!;
      if (ti !== t) return ti < t;
      return order.txidOrder.lessAfterPrefix(a, tx);
    }
    return exactlyBefore(order.fee[a]!, order.size[a]!, a, order.fee[tx]!, order.size[tx]!, tx, order.txidOrder);
  }

  /** Returns the slot the element ended in. */
  private siftUp(start: number): number {
    const heap = this.heap;
    const tx = heap[start]!;
    const r = this.rate[start]!;
    const t = this.tie[start]!;
    let at = start;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      if (this.slotBefore(parentAt, r, t, tx)) break;
      this.place(heap[parentAt]!, this.rate[parentAt]!, this.tie[parentAt]!, at);
      at = parentAt;
    }
    this.place(tx, r, t, at);
    return at;
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const length = this.length;
    const tx = heap[start]!;
    const r = this.rate[start]!;
    const t = this.tie[start]!;
    let at = start;
    for (;;) {
      let childAt = 2 * at + 1;
      if (childAt >= length) break;
      const right = childAt + 1;
      if (right < length && this.slotBefore(right, this.rate[childAt]!, this.tie[childAt]!, heap[childAt]!)) childAt = right;
      if (!this.slotBefore(childAt, r, t, tx)) break;
      this.place(heap[childAt]!, this.rate[childAt]!, this.tie[childAt]!, at);
      at = childAt;
    }
    this.place(tx, r, t, at);
  }
}
