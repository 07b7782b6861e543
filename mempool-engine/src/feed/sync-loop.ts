import { MempoolMirror } from '../mirror/mempool-mirror.ts';
import { checkAgainstNode } from './drift-check.ts';
import { poll } from './node-poll.ts';
import { pump } from './notification-pump.ts';
import { NodeRestarted, noteError } from './sync-health.ts';
import { compactIfSparse, type SyncState } from './sync-state.ts';
import { openSequenceStream } from './zmq-sequence.ts';

/**
 * The synchronisation's loop (mirror-sync.ts describes the whole): tasks run
 * one at a time against the mirror (a poll, a batch of notifications, a
 * check, a resync), started by the timer's tick, by ZMQ, or by a caller
 * catching up; and the resynchronisations from scratch.
 */

/** Notifications held while a task runs; beyond this, they are dropped for a resync. */
const MAX_QUEUE = 200_000;
/** Drift repairs in a row after which the ZMQ connection is made anew. */
const MAX_REPAIRS_IN_A_ROW = 3;

/** Runs `task` after every task queued before it: one at a time against the mirror. */
function exclusive<T>(s: SyncState, task: () => Promise<T>): Promise<T> {
  const run = s.tail.then(async () => {
    s.busy++;
    try {
      return await task();
    } finally {
      s.busy--;
    }
  });
  s.tail = run.catch(() => {});
  return run;
}

/** The timer's turn: whatever the synchronisation needs next, unless a task runs. */
export function tick(s: SyncState): void {
  if (s.stopped || s.busy > 0) return;
  const at = s.now();
  if (s.zmqAwaitsResync && s.stream?.connected) {
    resyncForZmq(s);
    return;
  }
  if (!s.mirror) {
    requestResync(s, 'first synchronisation').catch((error: unknown) => noteError(s, error, 'synchronising'));
    return;
  }
  if (s.zmqLive) {
    if (at < s.nextCheckAtMs) return;
    s.nextCheckAtMs = at + s.checkIntervalMs;
    exclusive(s, () => check(s)).catch((error: unknown) => noteError(s, error, 'checking the mirror'));
    return;
  }
  // Polling: at most every pollIntervalMs, and no more than a fifth of the time spent polling.
  if (s.lastPollStartMs !== undefined && at - s.lastPollStartMs < Math.max(s.pollIntervalMs, 5 * s.lastPollMs)) return;
  exclusive(s, () => pollOrResync(s)).catch((error: unknown) => noteError(s, error, 'polling the node'));
}

/** Catches up with the node: resolves once a poll queued now has been applied. */
export function syncNow(s: SyncState): Promise<void> {
  s.syncQueued ??= exclusive(s, async () => {
    s.syncQueued = undefined;
    await pollOrResync(s);
  });
  return s.syncQueued;
}

export function requestResync(s: SyncState, why: string): Promise<void> {
  s.resyncQueued ??= exclusive(s, async () => {
    s.resyncQueued = undefined;
    if (!s.stopped) await fullResync(s, why);
  });
  return s.resyncQueued;
}

/** A fresh mirror filled by one poll, swapped in whole. */
async function fullResync(s: SyncState, why: string): Promise<void> {
  const fresh = new MempoolMirror();
  s.knownDeltas = new Map();
  s.resyncStartedAtMs = s.now();
  try {
    await poll(s, fresh, true);
  } catch (error) {
    if (error instanceof NodeRestarted) await poll(s, fresh, true);
    else throw error;
  } finally {
    s.resyncStartedAtMs = undefined;
  }
  const { mirror } = s;
  mirror?.rememberInto(fresh);
  fresh.version = (mirror?.version ?? 0) + 1;
  s.mirror = fresh;
  s.counters.fullResyncs++;
  if (s.counters.fullResyncs > 1) s.log.info({ why, transactions: fresh.count }, 'mempool mirror resynchronised from scratch');
  s.changed();
  // Notifications that queued meanwhile: those from the poll's sequence on are newer than it.
  if (s.queue.length > 0) schedulePump(s);
}

/** A poll against the current mirror; a restarted node makes it a full resync. */
async function pollOrResync(s: SyncState): Promise<void> {
  if (!s.mirror) return fullResync(s, 'first synchronisation');
  try {
    await poll(s, s.mirror, false);
  } catch (error) {
    if (!(error instanceof NodeRestarted)) throw error;
    await fullResync(s, error.message);
    return;
  }
  compactIfSparse(s);
  s.changed();
}

/** The check while ZMQ is trusted, and what its outcome calls for. */
async function check(s: SyncState): Promise<void> {
  const outcome = await checkAgainstNode(s);
  if (outcome.kind === 'restarted') {
    await fullResync(s, outcome.why);
    return;
  }
  if (outcome.kind !== 'drifted') return;
  await pollOrResync(s);
  if (++s.repairsInARow >= MAX_REPAIRS_IN_A_ROW && s.zmqUrl) {
    // Silent or broken: a new connection (and its resync); polling covers the meantime.
    s.repairsInARow = 0;
    s.zmqLive = false;
    s.stream?.close();
    openStream(s, s.zmqUrl);
  }
}

function schedulePump(s: SyncState): void {
  if (s.pumpQueued) return;
  s.pumpQueued = true;
  exclusive(s, async () => {
    s.pumpQueued = false;
    await pump(s, (why) => requestResync(s, why));
  }).catch((error: unknown) => {
    noteError(s, error, 'applying ZMQ notifications');
    // What could not be applied is unknown now: start again from the node's state.
    requestResync(s, 'notifications could not be applied').catch((e: unknown) => noteError(s, e, 'resynchronising'));
  });
}

/** Follows the node's ZMQ notifications: every (re)connection resynchronises, every notification is queued for the pump. */
export function openStream(s: SyncState, url: string): void {
  s.stream = openSequenceStream(
    { url, ...(s.zmqDropMessage ? { dropMessage: s.zmqDropMessage } : {}), now: s.now },
    {
      onConnected() {
        // Whatever happened while we were not listening is unknown: start again from the node's state.
        s.zmqAwaitsResync = true;
        resyncForZmq(s);
      },
      onEvent(event, at) {
        s.eventsReceived++;
        if (s.queue.length >= MAX_QUEUE) {
          s.queue.length = 0;
          requestResync(s, 'too many notifications queued').catch((error: unknown) => noteError(s, error, 'resynchronising'));
          return;
        }
        s.queue.push({ event, at });
        schedulePump(s);
      },
      onGap({ expected, received }) {
        s.counters.gaps++;
        s.log.warn({ expected, received }, 'mempool mirror: ZMQ notifications were lost; resynchronising');
        requestResync(s, `ZMQ message ${expected} lost (got ${received})`).catch((error: unknown) => noteError(s, error, 'resynchronising after lost notifications'));
      },
      onDisconnected(error) {
        s.zmqLive = false;
        s.zmqAwaitsResync = false;
        if (!s.stopped) s.log.warn({ err: error?.message }, 'mempool mirror: ZMQ disconnected; polling until it is back');
      },
    },
  );
}

/** The resync a new ZMQ connection needs; retried by the timer until it succeeds. */
function resyncForZmq(s: SyncState): void {
  const connection = s.stream;
  requestResync(s, 'ZMQ connected')
    .then(() => {
      if (s.stream !== connection || !connection?.connected) return;
      s.zmqLive = true;
      s.zmqAwaitsResync = false;
      s.drifts = 0;
    })
    .catch((error: unknown) => noteError(s, error, 'resynchronising after the ZMQ connection'));
}
