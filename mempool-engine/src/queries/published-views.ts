import type { MempoolDashboardState } from './mempool-feed.ts';
import type { MempoolView } from './mempool-view.ts';

/**
 * The latest view the engine published, and the callers waiting for a newer
 * one: for the view that includes a given change (`synced` consistency, the
 * first view), or for one whose projection includes a given transaction.
 */

export interface Published {
  view: MempoolView;
  /** The change (ProjectionScheduler.changeSeq) the view includes. */
  changeSeq: number;
  histogram: MempoolDashboardState['histogram'];
}

interface Waiter {
  changeSeq: number;
  resolve: (view: MempoolView) => void;
  reject: (error: Error) => void;
}

interface TxWaiter {
  txid: string;
  fallback: MempoolView;
  resolve: (view: MempoolView) => void;
}

export class PublishedViews {
  latest: Published | undefined;
  private waiters: Waiter[] = [];
  private txWaiters: TxWaiter[] = [];
  private readonly schedule: () => void;
  private readonly timedOut: (message: string) => Error;

  /** `schedule`: asks for a projection (a waiter arrived); `timedOut`: the error for a view that did not come in time. */
  constructor(schedule: () => void, timedOut: (message: string) => Error) {
    this.schedule = schedule;
    this.timedOut = timedOut;
  }

  /** Someone waits on a view newer than the latest. */
  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /** The new latest view: the waiters it satisfies get it. */
  publish(published: Published): void {
    this.latest = published;
    const { view, changeSeq: seq } = published;
    const ready = this.waiters.filter((w) => w.changeSeq <= seq);
    this.waiters = this.waiters.filter((w) => w.changeSeq > seq);
    for (const waiter of ready) waiter.resolve(view);
    const found = this.txWaiters.filter((w) => view.transaction(w.txid)?.projected);
    this.txWaiters = this.txWaiters.filter((w) => !found.includes(w));
    for (const waiter of found) waiter.resolve(view);
  }

  /** Resolves with the first view at or after change `seq`. */
  at(seq: number, timeoutMs: number): Promise<MempoolView> {
    const { latest } = this;
    if (latest && latest.changeSeq >= seq) return Promise.resolve(latest.view);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        changeSeq: seq,
        resolve: (view) => {
          clearTimeout(deadline);
          resolve(view);
        },
        reject: (error) => {
          clearTimeout(deadline);
          reject(error);
        },
      };
      const deadline = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(this.timedOut(`No mempool projection within ${timeoutMs} ms`));
      }, timeoutMs);
      deadline.unref();
      this.waiters.push(waiter);
      this.schedule();
    });
  }

  /** The first view whose projection includes `txid`, waiting up to `timeoutMs` for one (else the latest, or `current`). */
  withTx(txid: string, current: MempoolView, timeoutMs: number): Promise<MempoolView> {
    return new Promise((resolve) => {
      const entry: TxWaiter = {
        txid,
        fallback: current,
        resolve: (v: MempoolView) => {
          clearTimeout(deadline);
          resolve(v);
        },
      };
      const deadline = setTimeout(() => {
        this.txWaiters = this.txWaiters.filter((w) => w !== entry);
        resolve(this.latest?.view ?? current);
      }, timeoutMs);
      deadline.unref();
      this.txWaiters.push(entry);
    });
  }

  /** A projection failed: those waiting for the next one fail with it. */
  failWaiters(error: Error): void {
    const failed = this.waiters;
    this.waiters = [];
    for (const waiter of failed) waiter.reject(error);
  }

  /** The engine stopped: waiters fail with `error`, those waiting for a transaction get what there is. */
  close(error: Error): void {
    this.failWaiters(error);
    for (const waiter of this.txWaiters) waiter.resolve(this.latest?.view ?? waiter.fallback);
    this.txWaiters = [];
  }
}
