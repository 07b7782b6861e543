import type { MempoolMirror } from '../mirror/mempool-mirror.ts';
import { mirrorHealth, noteError, type MirrorHealth } from './sync-health.ts';
import { openStream, requestResync, syncNow, tick } from './sync-loop.ts';
import { createSyncState, type MirrorSyncOptions, type RelayRates } from './sync-state.ts';

/**
 * Keeps a MempoolMirror equal to the node's mempool, incrementally.
 *
 * Two ways to learn of changes:
 * - ZMQ `sequence` notifications (zmq-sequence.ts), where the node publishes
 *   them: an `A` names a new transaction, whose entry is then fetched (one
 *   JSON-RPC batch for all the notifications that queued meanwhile); `R`
 *   removes one; `C` fetches the block's txids and removes those (a block
 *   takes transactions without `R` notifications); `D` moves the tip back
 *   (the transactions the node puts back arrive as `A`).
 * - Polling: `getrawmempool false true` (txids and the mempool sequence),
 *   then entries only for txids not held, in batches; held txids the node no
 *   longer lists are removed. Used when no ZMQ endpoint is configured, while
 *   the ZMQ connection is down, and as the repair when ZMQ drifted. At 300,000
 *   transactions one poll carries some 20 MB of txids, so the interval
 *   stretches to five times the last poll's duration.
 *
 * The two agree through the mempool sequence (Core's
 * CTxMemPool::GetAndIncrementSequence): getrawmempool answers the next
 * sequence number S, so `A`/`R` notifications numbered below S are already in
 * its list, and those from S on are newer; a poll's result is applied, then
 * the notifications queued while it ran, dropping those below S.
 *
 * Resynchronisation from scratch (a fresh mirror filled by one poll, swapped
 * in when complete, the old one serving until then): at start, on every ZMQ
 * (re)connection (what happened while disconnected is unknown), on a skipped
 * ZMQ message sequence (notifications were lost), and when the node
 * restarted (its uptime went back, or its mempool sequence did).
 *
 * Checks while ZMQ is connected (every `checkIntervalMs`): the node's
 * mempool size and tip against the mirror's; a difference seen twice with no
 * notification in between means ZMQ missed something: one poll repairs it,
 * and three repairs in a row restart the ZMQ connection (polling meanwhile).
 * The same check applies prioritisetransaction deltas
 * (getprioritisedtransactions), which no notification announces.
 *
 * One task at a time runs against the mirror (a poll, a batch of
 * notifications, a check), so changes are applied in the node's order.
 *
 * The parts: sync-loop.ts (the tasks, the timer's tick, resynchronisation),
 * node-poll.ts (polls), notification-pump.ts (ZMQ notifications applied),
 * drift-check.ts (the checks), sync-health.ts (health); sync-state.ts holds
 * what they share.
 */

export type { MirrorSyncOptions, RelayRates } from './sync-state.ts';
export type { MirrorHealth, SyncMode } from './sync-health.ts';

export interface MirrorSync {
  /** The mirror, once the first resynchronisation completed (a resync replaces it). */
  readonly mirror: MempoolMirror | undefined;
  /** False while a poll is half applied to the mirror: a snapshot now would mix two states. */
  readonly settled: boolean;
  readonly relay: RelayRates | undefined;
  start(): void;
  stop(): Promise<void>;
  /** Catches up with the node now: resolves once a poll started after this call has been applied. Rejects with the node's error. */
  sync(): Promise<void>;
  health(): MirrorHealth;
}

export function createMirrorSync(options: MirrorSyncOptions): MirrorSync {
  const s = createSyncState(options);
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  return {
    get mirror() {
      return s.mirror;
    },
    get relay() {
      return s.relay;
    },
    get settled() {
      return !s.applying;
    },
    start() {
      if (started) return;
      started = true;
      // With ZMQ, the connection's own resync is the first (the timer starts one if ZMQ does not connect).
      if (s.zmqUrl) openStream(s, s.zmqUrl);
      else requestResync(s, 'first synchronisation').catch((error: unknown) => noteError(s, error, 'synchronising'));
      timer = setInterval(() => tick(s), Math.min(s.pollIntervalMs, s.checkIntervalMs));
      timer.unref();
    },
    async stop() {
      s.stopped = true;
      clearInterval(timer);
      s.stream?.close();
      s.queue.length = 0;
      await s.tail;
    },
    sync: () => syncNow(s),
    health: () => mirrorHealth(s),
  };
}
