/**
 * Typed arrays kept from one projection to the next. A projection of a large
 * mempool needs some sixty per-transaction arrays; allocating (and zeroing,
 * and faulting in) them afresh every time costs more than some of the work
 * done in them. The pool hands out views of the length asked for, over
 * buffers grown with headroom, so a mempool that grows a little does not
 * reallocate everything. Contents are whatever the last user left: callers
 * initialise what they read before writing, or ask for a fill.
 */
export class ArrayPool {
  private readonly buffers = new Map<string, Float64Array | Int32Array | Uint32Array | Int16Array>();

  float64(name: string, length: number, fill?: number): Float64Array {
    return this.take(name, length, fill, (size) => new Float64Array(size));
  }

  int32(name: string, length: number, fill?: number): Int32Array {
    return this.take(name, length, fill, (size) => new Int32Array(size));
  }

  /**
   * An array whose every element is `initial` when first handed out (and
   * after any reallocation): for marks the caller puts back itself, rather
   * than filling on every use.
   */
  int32Kept(name: string, length: number, initial: number): Int32Array {
    return this.take(name, length, undefined, (size) => new Int32Array(size).fill(initial));
  }

  /** Drops every buffer: after a failure that may have left marks half set. */
  clear(): void {
    this.buffers.clear();
  }

  uint32(name: string, length: number, fill?: number): Uint32Array {
    return this.take(name, length, fill, (size) => new Uint32Array(size));
  }

  int16(name: string, length: number, fill?: number): Int16Array {
    return this.take(name, length, fill, (size) => new Int16Array(size));
  }

  /** Bytes held, for the benchmark's memory report. */
  get byteLength(): number {
    let total = 0;
    for (const buffer of this.buffers.values()) total += buffer.byteLength;
    return total;
  }

  private take<T extends Float64Array | Int32Array | Uint32Array | Int16Array>(name: string, length: number, fill: number | undefined, make: (size: number) => T): T {
    let buffer = this.buffers.get(name) as T | undefined;
    if (!buffer || buffer.length < length) {
      buffer = make(Math.ceil(length * 1.25) + 16);
      this.buffers.set(name, buffer);
    }
    const view = buffer.subarray(0, length) as T;
    if (fill !== undefined) view.fill(fill);
    return view;
  }
}
