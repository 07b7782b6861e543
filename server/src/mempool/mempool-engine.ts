import { RpcTransportError, type RpcClient } from '../bitcoin/rpc-client.ts';
import type { Logger } from '../lib/logger.ts';
import type { BlockAssemblerOptions } from './projection/block-assembler.ts';
import { createBlockTracker, type PoolOdds } from './queries/block-tracker.ts';
import { FEE_HISTOGRAM_BOUNDS, histogramBuckets } from './projection/fee-histogram.ts';
import type { MempoolDashboardState, MempoolFeed, ProjectedBlockSummary } from './queries/mempool-feed.ts';
import type { MempoolMirror, MirroredTx, MirrorSnapshot, RemovedTx } from './mirror/mempool-mirror.ts';
import { TXID_BYTES, txidAt, type MempoolSnapshot } from './mirror/mempool-snapshot.ts';
import { createMirrorSync, type MirrorHealth, type MirrorSyncOptions, type RelayRates } from './feed/mirror-sync.ts';
import { poolRecogniser, type PoolIdentity } from './queries/pool-identity.ts';
import { createProjectionWorker, type TimedProjection } from './projection/projection-worker.ts';
import { rateToBeat } from './queries/rate-to-beat.ts';

/**
 * The mempool engine: the mirror of the node's mempool (mirror-sync.ts) and
 * the projected blocks computed from it on a worker thread
 * (projection-worker.ts), published as immutable views; the pool's block
 * share (block-tracker.ts); and the /mempool/ dashboard's feed.
 *
 * Re-projection follows every change, coalesced: at most one projection in
 * flight, at most one every `projectEveryMs`; what changed meanwhile goes
 * into the next. The main thread's part per update is the mirror's snapshot
 * (copies of typed arrays) and building the view (a few small objects); the
 * per-transaction answers stay in the projection's typed arrays, read on
 * demand.
 *
 * The rate to beat (`marketRate`) is rate-to-beat.ts's: the lowest
 * functional rate in projected block 0 when it is full, else the node's
 * minimum to enter its mempool.
 *
 * Consistency: `latest` serves the newest view at once (production: it
 * trails the node by the time ZMQ and one projection take); `synced` first
 * catches up with the node and projects, as the tests need (a request sees
 * the effects of everything done before it).
 */

export interface MempoolTxView extends MirroredTx {
  /** False when it reached the mirror after this view's projection (position and rate unknown yet). */
  projected: boolean;
  /** Its projected block (0 = next) and the vbytes from the start of that block up to and including it; null when in no projected block (below the block minimum fee). */
  position: { block: number; vsize: number } | null;
  /** The package rate (modified fees, sat/vB) at which the projection selected it. */
  functionalRate: number | null;
}

export interface MempoolView {
  /** When the view was published (Unix ms). */
  updatedAtMs: number;
  /** How far it trails the node (ms): the oldest change it was the first to include, or the mirror's own lag. */
  lagMs: number;
  tip: { hash: string; height: number };
  /** The rate to beat (sat/vB). */
  marketRate: number;
  /** The node's minimum to enter its mempool (sat/vB). */
  minRelayRate: number;
  nextBlockFull: boolean;
  mempool: { txCount: number; vsize: number; totalFees: number };
  blocks: readonly ProjectedBlockSummary[];
  /** A transaction the mirror holds, with its place in this projection; undefined when not in the mempool. */
  transaction(txid: string): MempoolTxView | undefined;
  /** Projected block 0's txids, in block order. */
  nextBlockTxids(): string[];
}

export interface MempoolHealth extends MirrorHealth {
  projections: number;
  /** The last projection's worker round trip and the assembler's share of it (ms). */
  lastProjectionMs: number | undefined;
  lastAssembleMs: number | undefined;
  /** The last snapshot's main-thread cost (ms). */
  lastSnapshotMs: number | undefined;
}

/** What the HTTP layer reads (never starts or stops anything). */
export interface MempoolReader {
  readonly feed: MempoolFeed;
  /** The current view; waits for the first. In `synced` mode, catches up with the node first. Rejects with RpcTransportError when the node is unreachable. */
  view(): Promise<MempoolView>;
  /** A view whose projection includes `txid`, waiting up to `timeoutMs` for one (else the latest). */
  viewWith(txid: string, timeoutMs: number): Promise<MempoolView>;
  /** The pool's block share and the latest blocks, with the current pool settings. */
  odds(): Promise<PoolOdds>;
  /** What the mirror remembers of a transaction that left the mempool. */
  removal(txid: string): RemovedTx | undefined;
  health(): MempoolHealth;
}

export interface MempoolEngine extends MempoolReader {
  /** Starts following the node (ZMQ or polling) and projecting; returns at once. */
  start(): void;
  stop(): Promise<void>;
}

export interface MempoolEngineOptions {
  rpc: RpcClient;
  network: string;
  /** The pool's identification settings, read when odds are computed. */
  identity: () => Promise<Omit<PoolIdentity, 'network'>>;
  log: Logger;
  /** The node's -zmqpubsequence endpoint; without it, polling. */
  zmqUrl?: string | undefined;
  consistency?: 'latest' | 'synced';
  /** At most one projection started per this many ms (default 500; `synced` requests do not wait for it). */
  projectEveryMs?: number;
  /** In `latest` mode, a node silent for this long makes view() fail rather than serve an old view (default 60 s). */
  maxStaleMs?: number;
  /** How long view() waits for the first projection (default 30 s). */
  firstViewTimeoutMs?: number;
  assembler?: BlockAssemblerOptions;
  sync?: Partial<Pick<MirrorSyncOptions, 'pollIntervalMs' | 'checkIntervalMs' | 'entryBatchSize' | 'zmqDropMessage'>>;
  now?: () => number;
}

/** A projection trailing the node by more than this is worth a line in the log (at most one a minute). */
const LAG_WARNING_MS = 10_000;

interface Published {
  view: MempoolView;
  changeSeq: number;
  snapshotAddedUpTo: number;
  histogram: MempoolDashboardState['histogram'];
}

export function createMempoolEngine(options: MempoolEngineOptions): MempoolEngine {
  const { rpc, log } = options;
  const now = options.now ?? Date.now;
  const consistency = options.consistency ?? 'latest';
  const projectEveryMs = options.projectEveryMs ?? 500;
  const maxStaleMs = options.maxStaleMs ?? 60_000;
  const firstViewTimeoutMs = options.firstViewTimeoutMs ?? 30_000;

  const sync = createMirrorSync({ rpc, zmqUrl: options.zmqUrl, log, now, ...options.sync, onChange: () => noteChange() });
  const worker = createProjectionWorker({ assembler: options.assembler ?? {}, histogramBounds: FEE_HISTOGRAM_BOUNDS });
  const tracker = createBlockTracker({ rpc, log });

  let latest: Published | undefined;
  let feedState: MempoolDashboardState | null = null;
  const feedListeners = new Set<(state: MempoolDashboardState) => void>();
  /** Counts changes to what a view depends on: the mirror (instance and version), its tip, the relay rates. */
  let changeSeq = 0;
  let lastKey = '';
  const mirrorIds = new WeakMap<MempoolMirror, number>();
  let nextMirrorId = 0;
  let projecting = false;
  let timer: NodeJS.Timeout | undefined;
  /** The pending timer is the throttled kind (a waiter arriving cuts it short). */
  let timerThrottled = false;
  let lastStartMs = Number.NEGATIVE_INFINITY;
  let recycled: MempoolSnapshot | undefined;
  let stopped = false;
  let started = false;
  const stats = { projections: 0, lastProjectionMs: undefined as number | undefined, lastAssembleMs: undefined as number | undefined, lastSnapshotMs: undefined as number | undefined };
  interface Waiter {
    changeSeq: number;
    resolve: (view: MempoolView) => void;
    reject: (error: Error) => void;
  }
  let waiters: Waiter[] = [];
  let txWaiters: Array<{ txid: string; fallback: MempoolView; resolve: (view: MempoolView) => void }> = [];

  function keyOf(mirror: MempoolMirror, relay: RelayRates | undefined): string {
    let id = mirrorIds.get(mirror);
    if (id === undefined) mirrorIds.set(mirror, (id = nextMirrorId++));
    return `${id}:${mirror.version}:${mirror.tip?.hash}:${relay?.minRelayRate}:${relay?.mempoolMinRate}`;
  }

  function noteChange(): void {
    const mirror = sync.mirror;
    if (!mirror) return;
    const key = keyOf(mirror, sync.relay);
    if (key !== lastKey) {
      lastKey = key;
      changeSeq++;
    }
    schedule();
  }

  function schedule(): void {
    if (projecting || stopped) return;
    const urgent = waiters.length > 0;
    if (timer && !(urgent && timerThrottled)) return;
    const mirror = sync.mirror;
    if (!mirror || !mirror.tip || !sync.relay || !sync.settled) return;
    if (latest && latest.changeSeq === changeSeq) return;
    clearTimeout(timer);
    // Someone waits on a fresh view: no throttle.
    const delay = urgent ? 0 : Math.max(0, lastStartMs + projectEveryMs - now());
    timerThrottled = !urgent;
    timer = setTimeout(() => {
      timer = undefined;
      project().catch((error: unknown) => log.error({ err: (error as Error).message }, 'mempool engine: projection failed'));
    }, delay);
    if (!urgent) timer.unref();
  }

  async function project(): Promise<void> {
    const mirror = sync.mirror;
    const relay = sync.relay;
    const tip = mirror?.tip;
    if (stopped || !mirror || !relay || !tip || !sync.settled) return;
    projecting = true;
    lastStartMs = now();
    const seq = changeSeq;
    let projection: TimedProjection | undefined;
    let taken: MirrorSnapshot;
    try {
      const snapshotStarted = performance.now();
      taken = mirror.snapshot(recycled);
      recycled = undefined;
      stats.lastSnapshotMs = performance.now() - snapshotStarted;
      const mirrorLagMs = sync.health().lagMs;
      const totals = mirror.totals;
      const roundTripStarted = performance.now();
      projection = await worker.project(taken.snapshot);
      if (!projection || stopped) return;
      stats.projections++;
      stats.lastProjectionMs = performance.now() - roundTripStarted;
      stats.lastAssembleMs = projection.assembleMs;
      recycled = projection.snapshot;
      publish(buildView(mirror, taken, projection, relay, tip, totals, mirrorLagMs), seq, taken.addedUpTo, projection);
    } catch (error) {
      if (stopped) return; // the worker closed under it
      // The waiters fail with it rather than wait for a projection that may never come.
      const failed = waiters;
      waiters = [];
      for (const waiter of failed) waiter.reject(error as Error);
      throw error;
    } finally {
      projecting = false;
      if (!stopped) schedule();
    }
  }

  function buildView(mirror: MempoolMirror, taken: MirrorSnapshot, projection: TimedProjection, relay: RelayRates, tip: { hash: string; height: number }, totals: MempoolView['mempool'], mirrorLagMs: number): MempoolView {
    const publishedAt = now();
    const blocks: ProjectedBlockSummary[] = projection.blocks.map((b, index) => ({
      index,
      txCount: b.txCount,
      weight: b.weight,
      vsize: b.vsize,
      totalFees: b.fees,
      minRate: b.minFeeRate,
      maxRate: b.maxFeeRate,
      medianRate: b.medianFeeRate,
    }));
    const { marketRate, minRelayRate, nextBlockFull } = rateToBeat(projection.blocks, relay, options.assembler);
    const first = projection.blocks[0];
    // Block 0's txids, copied now: the snapshot's buffers take the next copy.
    const firstCount = first?.txCount ?? 0;
    const nextTxidBytes = new Uint8Array(firstCount * TXID_BYTES);
    for (let k = 0; k < firstCount; k++) {
      const i = projection.order[k]!;
      nextTxidBytes.set(projection.snapshot.txids.subarray(i * TXID_BYTES, (i + 1) * TXID_BYTES), k * TXID_BYTES);
    }
    const { entryOf, blockIndex, positionVsize, functionalRate } = projection;
    const lagMs = Math.max(mirrorLagMs, taken.oldestChangeAtMs === undefined ? 0 : publishedAt - taken.oldestChangeAtMs);
    return {
      updatedAtMs: publishedAt,
      lagMs,
      tip,
      marketRate,
      minRelayRate,
      nextBlockFull,
      mempool: totals,
      blocks,
      transaction(txid) {
        const tx = mirror.get(txid);
        if (!tx) return undefined;
        const i = mirror.projectedIndex(txid, taken);
        if (i < 0) return { ...tx, projected: false, position: null, functionalRate: null };
        const entry = entryOf[i]!;
        const block = blockIndex[entry]!;
        if (block < 0) return { ...tx, projected: true, position: null, functionalRate: null };
        return { ...tx, projected: true, position: { block, vsize: positionVsize[entry]! }, functionalRate: functionalRate[entry]! };
      },
      nextBlockTxids: () => Array.from({ length: firstCount }, (_, k) => txidAt({ txids: nextTxidBytes }, k)),
    };
  }

  let lagWarnedAtMs = Number.NEGATIVE_INFINITY;
  function publish(view: MempoolView, seq: number, addedUpTo: number, projection: TimedProjection): void {
    if (view.lagMs > LAG_WARNING_MS && view.updatedAtMs - lagWarnedAtMs > 60_000) {
      lagWarnedAtMs = view.updatedAtMs;
      log.warn({ lagMs: Math.round(view.lagMs), mode: sync.health().mode }, 'mempool engine: the projection trails the node');
    }
    const histogram = projection.histogram ? histogramBuckets(projection.histogram) : [];
    latest = { view, changeSeq: seq, snapshotAddedUpTo: addedUpTo, histogram };
    const ready = waiters.filter((w) => w.changeSeq <= seq);
    waiters = waiters.filter((w) => w.changeSeq > seq);
    for (const waiter of ready) waiter.resolve(view);
    const found = txWaiters.filter((w) => view.transaction(w.txid)?.projected);
    txWaiters = txWaiters.filter((w) => !found.includes(w));
    for (const waiter of found) waiter.resolve(view);
    void tracker.follow(view.tip).then(() => publishFeed());
    publishFeed();
  }

  let lastIdentity: PoolIdentity | undefined;
  let identityFailure: string | undefined;
  /** The pool settings; when they cannot be read (database down), the last ones read, said once. */
  async function identity(): Promise<PoolIdentity> {
    try {
      lastIdentity = { ...(await options.identity()), network: options.network };
      identityFailure = undefined;
    } catch (error) {
      if (!lastIdentity) throw error;
      const message = (error as Error).message;
      if (message !== identityFailure) log.warn({ err: message }, 'mempool engine: reading the pool settings failed; using the last ones read');
      identityFailure = message;
    }
    return lastIdentity;
  }

  let feedVersion = 0;
  function publishFeed(): void {
    const current = latest;
    if (!current || stopped) return;
    const version = ++feedVersion;
    identity()
      .then((id) => {
        // A newer publication started meanwhile: it will say what this would have.
        if (version !== feedVersion || stopped) return;
        const odds = tracker.odds(poolRecogniser(id));
        const { view } = current;
        const state: MempoolDashboardState = {
          network: options.network,
          updatedAtMs: view.updatedAtMs,
          lagMs: view.lagMs,
          mempool: view.mempool,
          projectedBlocks: [...view.blocks],
          histogram: current.histogram,
          recentBlocks: odds.recentBlocks,
          poolShare: { last24h: odds.last24h, last7d: odds.last7d, expectedNextBlockSeconds: odds.expectedNextBlockSeconds },
        };
        feedState = state;
        for (const listener of feedListeners) {
          try {
            listener(state);
          } catch (error) {
            log.error({ err: (error as Error).message }, 'mempool feed listener failed');
          }
        }
      })
      .catch((error: unknown) => {
        const message = (error as Error).message;
        if (message !== identityFailure) log.warn({ err: message }, 'mempool feed: reading the pool settings failed');
        identityFailure = message;
      });
  }

  function unavailable(message: string): RpcTransportError {
    return new RpcTransportError('mempool', 'unreachable', message);
  }

  /** Resolves with the first view at or after change `seq`. */
  function viewAt(seq: number, timeoutMs: number): Promise<MempoolView> {
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
        waiters = waiters.filter((w) => w !== waiter);
        reject(unavailable(`No mempool projection within ${timeoutMs} ms`));
      }, timeoutMs);
      deadline.unref();
      waiters.push(waiter);
      schedule();
    });
  }

  async function view(): Promise<MempoolView> {
    if (stopped) throw unavailable('The mempool engine is stopped');
    if (consistency === 'synced') {
      await sync.sync();
      return viewAt(changeSeq, firstViewTimeoutMs);
    }
    const health = sync.health();
    const silentFor = health.lastContactAtMs === undefined ? 0 : now() - health.lastContactAtMs;
    if (latest && silentFor > maxStaleMs) throw unavailable(`The node has not answered for ${Math.round(silentFor / 1000)} s`);
    if (latest) return latest.view;
    // Not one view yet: waiting makes sense while the first synchronisation runs, not while the node is unreachable.
    if (health.lastError !== undefined) throw unavailable(health.lastError);
    return viewAt(1, firstViewTimeoutMs);
  }

  const feed: MempoolFeed = {
    current: () => feedState,
    subscribe(listener) {
      feedListeners.add(listener);
      return () => {
        feedListeners.delete(listener);
      };
    },
  };

  return {
    feed,
    view,
    async viewWith(txid, timeoutMs) {
      const current = await view();
      const tx = current.transaction(txid);
      if (tx?.projected || (!tx && consistency === 'synced')) return current;
      return new Promise((resolve) => {
        const entry = {
          txid,
          fallback: current,
          resolve: (v: MempoolView) => {
            clearTimeout(deadline);
            resolve(v);
          },
        };
        const deadline = setTimeout(() => {
          txWaiters = txWaiters.filter((w) => w !== entry);
          resolve(latest?.view ?? current);
        }, timeoutMs);
        deadline.unref();
        txWaiters.push(entry);
      });
    },
    async odds() {
      // The latest view's tip: a caller in `synced` mode has just caught up (no second poll for the odds).
      const current = latest?.view ?? (await view());
      const id = await identity();
      // In `synced` mode the share must be the chain's now, not the last refresh's.
      if (consistency === 'synced') await tracker.follow(current.tip);
      return tracker.odds(poolRecogniser(id));
    },
    removal: (txid) => sync.mirror?.removal(txid),
    health: () => ({ ...sync.health(), ...stats }),
    start() {
      if (started || stopped) return;
      started = true;
      sync.start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      const pending = waiters;
      waiters = [];
      for (const waiter of pending) waiter.reject(unavailable('The mempool engine stopped'));
      for (const waiter of txWaiters) waiter.resolve(latest?.view ?? waiter.fallback);
      txWaiters = [];
      feedListeners.clear();
      await sync.stop();
      await worker.close();
    },
  };
}
