import type { Database } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { followThrottled } from '../../lib/throttled-follower.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import { announceNextBlock, waitingSubscriptions } from './webhooks.repository.ts';

/**
 * The "next_block" event: when the engine's projection first puts a waiting
 * transaction in projected block 0, each of its webhooks is told once. Looked
 * at on the engine's updates, at most every `minIntervalMs`; the database's
 * unique index keeps it to one event per subscription across instances.
 */
export function startNextBlockWatch(deps: { db: Database; mempool: MempoolReader; log: Logger; minIntervalMs?: number }): () => void {
  const { db, mempool, log } = deps;
  const minIntervalMs = deps.minIntervalMs ?? 1_000;
  async function check(): Promise<void> {
    const waiting = await waitingSubscriptions(db, 1_000);
    if (waiting.length === 0) return;
    const view = await mempool.view();
    const inNextBlock = waiting.filter((w) => view.transaction(w.txid)?.position?.block === 0);
    if (inNextBlock.length > 0) await announceNextBlock(db, inNextBlock.map((w) => w.subscriptionId), view.tip.height + 1);
  }

  return followThrottled({
    subscribe: (onChange) => mempool.feed.subscribe(onChange),
    check,
    minIntervalMs,
    log,
    failure: 'Looking for webhook transactions in the next block failed',
  });
}
