/** A counting semaphore: at most `limit` holders at once, the rest wait in FIFO order. */
export class Semaphore {
  readonly limit: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`Semaphore limit must be a positive integer, got ${limit}`);
    this.limit = limit;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  acquire(): Promise<void> {
    if (this.#active < this.limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    // Hand the slot straight to the next waiter so the count never dips and overshoots.
    if (next) next();
    else this.#active--;
  }
}
