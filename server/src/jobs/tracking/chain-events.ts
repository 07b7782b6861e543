import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MempoolReader } from '../../mempool/mempool-engine.ts';
import { enqueueJob, wakeJobs } from '../job-queue.ts';
import { waitingTrackedTxids } from './tracked-records.ts';

/**
 * Turns what the mempool engine hears from the node (ZMQ, or its own
 * polling) into job wake-ups, so tracking reacts to events instead of
 * polling the node per transaction: a new tip queues a block scan; tracked
 * transactions the mempool no longer holds have their jobs woken. Checks run
 * at most once per `minIntervalMs`, one at a time.
 */

export interface ChainEventsOptions {
  db: Queryable;
  mempool: MempoolReader;
  log: Logger;
  /** Called after jobs were queued or woken. */
  wake: () => void;
  minIntervalMs?: number;
  /** At most this many tracked transactions are matched per check (default 50,000). */
  maxTracked?: number;
}

export function followChainEvents(options: ChainEventsOptions): () => void {
  const { db, mempool, log, wake } = options;
  const minIntervalMs = options.minIntervalMs ?? 1_000;
  const maxTracked = options.maxTracked ?? 50_000;
  let lastTip: string | undefined;
  let checking = false;
  let again = false;
  let lastCheck = 0;
  let timer: NodeJS.Timeout | undefined;
  // While the node is down every check fails the same way: say so once.
  let lastError: string | undefined;

  async function check(): Promise<void> {
    const state = mempool.feed.current();
    const tip = state?.recentBlocks[0]?.hash;
    let woken = 0;
    if (tip && tip !== lastTip) {
      lastTip = tip;
      await enqueueJob(db, { kind: 'scan-blocks', key: 'scan-blocks' });
      woken++;
    }
    const tracked = await waitingTrackedTxids(db, maxTracked);
    if (tracked.length > 0) {
      const view = await mempool.view();
      const gone = tracked.filter((txid) => view.transaction(txid) === undefined);
      woken += await wakeJobs(db, gone.map((txid) => `track:${txid}`));
    }
    if (woken > 0) wake();
  }

  function run(): void {
    if (checking) {
      again = true;
      return;
    }
    const wait = lastCheck + minIntervalMs - Date.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = undefined;
        run();
      }, wait);
      timer.unref();
      return;
    }
    checking = true;
    lastCheck = Date.now();
    check()
      .then(() => {
        lastError = undefined;
      })
      .catch((error: unknown) => {
        const message = (error as Error).message;
        if (message !== lastError) log.warn({ err: message }, 'Matching mempool events with tracked transactions failed');
        lastError = message;
      })
      .finally(() => {
        checking = false;
        if (again) {
          again = false;
          run();
        }
      });
  }

  const unsubscribe = mempool.feed.subscribe(run);
  run();
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
