/**
 * Each mirror slot's in-mempool parents, in typed arrays so that a snapshot
 * copies them without touching objects: slot s's parents are
 * pool[at[s] .. at[s] + count[s]], in a segment of cap[s] entries. A full
 * segment moves to the end of the pool at twice the size, and the pool is
 * packed when it is mostly garbage (segments of departed transactions, and
 * segments that moved). Slots are the mirror's (mempool-mirror.ts).
 */
export class ParentSegments {
  count = new Int32Array(0);
  cap = new Int32Array(0);
  at = new Int32Array(0);
  pool = new Int32Array(1_024);
  /** The first pool entry no segment uses. */
  top = 0;
  /** Parent links held, over every slot: the sum of `count`. */
  links = 0;

  /** Room for `capacity` slots, what they hold kept. */
  grow(capacity: number): void {
    this.count = widened(this.count, capacity);
    this.cap = widened(this.cap, capacity);
    this.at = widened(this.at, capacity);
  }

  /** A slot freed or (re)used: no parents, and its segment released. */
  clear(slot: number): void {
    this.links -= this.count[slot]!;
    this.count[slot] = 0;
    this.cap[slot] = 0;
  }

  /** The slot's parents, a view into the pool (valid until the next change). */
  of(slot: number): Int32Array {
    return this.pool.subarray(this.at[slot], this.at[slot]! + this.count[slot]!);
  }

  has(child: number, parent: number): boolean {
    const at = this.at[child]!;
    for (let e = 0; e < this.count[child]!; e++) if (this.pool[at + e] === parent) return true;
    return false;
  }

  /** Appends to a slot's segment, moving it to the pool's end at twice the size when full. */
  push(child: number, parent: number): void {
    const count = this.count[child]!;
    if (count === this.cap[child]) {
      const cap = Math.max(2, count * 2);
      this.reserve(cap);
      const at = this.at[child]!;
      this.pool.copyWithin(this.top, at, at + count);
      this.at[child] = this.top;
      this.cap[child] = cap;
      this.top += cap;
    }
    this.pool[this.at[child]! + count] = parent;
    this.count[child] = count + 1;
    this.links++;
  }

  /** Drops `parent` from a slot's segment; false when it was not there. */
  remove(child: number, parent: number): boolean {
    const at = this.at[child]!;
    const last = at + this.count[child]! - 1;
    for (let e = at; e <= last; e++) {
      if (this.pool[e] !== parent) continue;
      this.pool[e] = this.pool[last]!;
      this.count[child]!--;
      this.links--;
      return true;
    }
    return false;
  }

  /** Room for `size` more entries at the pool's end: packed when mostly garbage, else grown. */
  private reserve(size: number): void {
    if (this.top + size <= this.pool.length) return;
    const needed = this.links + size;
    if (this.top > 4 * needed) {
      // Each segment in use packed to its count (an empty one released); a freed slot's was released already.
      const packed = new Int32Array(Math.max(1_024, 2 * needed));
      let top = 0;
      for (let slot = 0; slot < this.cap.length; slot++) {
        if (this.cap[slot] === 0) continue;
        const count = this.count[slot]!;
        packed.set(this.pool.subarray(this.at[slot], this.at[slot]! + count), top);
        this.at[slot] = top;
        this.cap[slot] = count;
        top += count;
      }
      this.pool = packed;
      this.top = top;
      if (top + size <= packed.length) return;
    }
    const grown = new Int32Array(Math.max(2 * this.pool.length, this.top + size));
    grown.set(this.pool.subarray(0, this.top));
    this.pool = grown;
  }
}

function widened(old: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(old);
  return next;
}
