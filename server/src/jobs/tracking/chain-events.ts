import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { followThrottled } from '../../lib/throttled-follower.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import { enqueueJob, wakeJobs } from '../job-queue.ts';
import { waitingTrackedTxids } from '../../modules/submission/submission-outcomes.repository.ts';

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

  return followThrottled({
    subscribe: (onChange) => mempool.feed.subscribe(onChange),
    check,
    minIntervalMs,
    log,
    failure: 'Matching mempool events with tracked transactions failed',
  });
}
