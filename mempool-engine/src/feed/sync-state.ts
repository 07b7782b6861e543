import type { Logger } from '../logger.ts';
import type { RpcCaller } from '../rpc-caller.ts';
import type { MempoolMirror } from '../mirror/mempool-mirror.ts';
import type { SequenceEvent, SequenceStream, SequenceStreamOptions } from './zmq-sequence.ts';

/**
 * What the mirror's synchronisation (mirror-sync.ts) keeps between tasks,
 * shared by its parts: the loop and its resynchronisations (sync-loop.ts),
 * polls (node-poll.ts), ZMQ notifications (notification-pump.ts), the checks
 * while ZMQ is trusted (drift-check.ts) and its health (sync-health.ts).
 */

export interface MirrorSyncOptions {
  rpc: RpcCaller;
  /** The node's -zmqpubsequence endpoint; without it, polling only. */
  zmqUrl?: string | undefined;
  /** Polling interval (default 1,000 ms); also the period of the ZMQ checks' timer. */
  pollIntervalMs?: number;
  /** Interval of the checks while ZMQ is connected (default 2,000 ms). */
  checkIntervalMs?: number;
  /** Mempool entries per JSON-RPC batch (default 500). */
  entryBatchSize?: number;
  log: Logger;
  now?: () => number;
  /** Tests only: lose ZMQ notifications on purpose (zmq-sequence.ts). */
  zmqDropMessage?: SequenceStreamOptions['dropMessage'];
  /** Called after every change to the mirror, its tip or the relay rates, and when a resync swaps the mirror. */
  onChange?: () => void;
}

export interface RelayRates {
  /** -minrelaytxfee, sat/vB. */
  minRelayRate: number;
  /** The mempool's current minimum (mempoolminfee, rises when the mempool is full), sat/vB. */
  mempoolMinRate: number;
}

export interface QueuedEvent {
  event: SequenceEvent;
  at: number;
}

export interface SyncCounters {
  fullResyncs: number;
  polls: number;
  /** ZMQ message sequences that skipped. */
  gaps: number;
  /** Mempool sequence numbers skipped with no block in between (a notification lost at the start of a connection). */
  sequenceGaps: number;
  /** Polls made because ZMQ had drifted from the node. */
  driftRepairs: number;
}

export interface SyncState {
  readonly rpc: RpcCaller;
  readonly log: Logger;
  readonly now: () => number;
  readonly pollIntervalMs: number;
  readonly checkIntervalMs: number;
  readonly entryBatchSize: number;
  readonly zmqUrl: string | undefined;
  readonly zmqDropMessage: SequenceStreamOptions['dropMessage'] | undefined;
  readonly startedAtMs: number;
  /** MirrorSyncOptions.onChange. */
  readonly changed: () => void;

  /** The mirror, once the first resynchronisation completed (a resync replaces it). */
  mirror: MempoolMirror | undefined;
  relay: RelayRates | undefined;
  /** A poll is half applied to the mirror: a snapshot now would mix two states. */
  applying: boolean;
  /** prioritisetransaction deltas applied, by txid. */
  knownDeltas: Map<string, number>;
  /** Blocks whose transactions were already taken out (a `C` after a poll that saw the block). */
  readonly connectedBlocks: string[];

  stream: SequenceStream | undefined;
  /** Connected and resynchronised since: notifications are trusted. */
  zmqLive: boolean;
  /** Connected, but the resync that must follow has not succeeded yet. */
  zmqAwaitsResync: boolean;
  /** A block was connected or disconnected since the last A/R applied: the mempool sequence may have moved silently. */
  blockSinceLastTx: boolean;
  /** Notifications received, not applied yet. */
  readonly queue: QueuedEvent[];
  eventsReceived: number;

  /** The task running or last queued (sync-loop.ts exclusive()): one at a time against the mirror. */
  tail: Promise<unknown>;
  /** Tasks running (0 or 1). */
  busy: number;
  pumpQueued: boolean;
  resyncQueued: Promise<void> | undefined;
  syncQueued: Promise<void> | undefined;
  stopped: boolean;

  lastPollStartMs: number | undefined;
  /** How long the last poll took (ms): polls stretch to five times it. */
  lastPollMs: number;
  resyncStartedAtMs: number | undefined;
  nextCheckAtMs: number;
  /** Checks in a row that found the mirror differing from the node. */
  drifts: number;
  repairsInARow: number;

  /** When the node started, from its uptime (ms since the epoch). */
  nodeStartMs: number | undefined;
  lastContactAtMs: number | undefined;
  lastError: string | undefined;
  /** The failure last logged: the same one every second is said once. */
  lastLoggedError: string | undefined;
  readonly counters: SyncCounters;
}

export function createSyncState(options: MirrorSyncOptions): SyncState {
  const now = options.now ?? Date.now;
  return {
    rpc: options.rpc,
    log: options.log,
    now,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    checkIntervalMs: options.checkIntervalMs ?? 2_000,
    entryBatchSize: options.entryBatchSize ?? 500,
    zmqUrl: options.zmqUrl,
    zmqDropMessage: options.zmqDropMessage,
    startedAtMs: now(),
    changed: () => options.onChange?.(),
    mirror: undefined,
    relay: undefined,
    applying: false,
    knownDeltas: new Map(),
    connectedBlocks: [],
    stream: undefined,
    zmqLive: false,
    zmqAwaitsResync: false,
    blockSinceLastTx: true,
    queue: [],
    eventsReceived: 0,
    tail: Promise.resolve(),
    busy: 0,
    pumpQueued: false,
    resyncQueued: undefined,
    syncQueued: undefined,
    stopped: false,
    lastPollStartMs: undefined,
    lastPollMs: 0,
    resyncStartedAtMs: undefined,
    nextCheckAtMs: 0,
    drifts: 0,
    repairsInARow: 0,
    nodeStartMs: undefined,
    lastContactAtMs: undefined,
    lastError: undefined,
    lastLoggedError: undefined,
    counters: { fullResyncs: 0, polls: 0, gaps: 0, sequenceGaps: 0, driftRepairs: 0 },
  };
}

/** After a large drop, a mirror whose snapshots would walk mostly free slots is repacked. */
export function compactIfSparse(s: SyncState): void {
  const { mirror } = s;
  if (mirror && mirror.slotsInUse > 4_096 && mirror.slotsInUse > 2 * mirror.count) s.mirror = mirror.compacted();
}
