import { createMirrorSync, type MirrorHealth, type MirrorSync, type MirrorSyncOptions } from './feed/mirror-sync.ts';
import type { RemovedTx } from './mirror/mempool-mirror.ts';
import type { BlockAssemblerOptions } from './projection/block-assembler.ts';
import { FEE_HISTOGRAM_BOUNDS, histogramBuckets } from './projection/fee-histogram.ts';
import { ProjectionScheduler, type FinishedProjection, type ProjectionStats } from './projection/projection-scheduler.ts';
import { createProjectionWorker, type ProjectionWorker } from './projection/projection-worker.ts';
import { createBlockTracker, type BlockTracker, type PoolOdds, type PoolRecogniser } from './queries/block-tracker.ts';
import { createDashboardFeed, type DashboardFeed } from './queries/dashboard-feed.ts';
import type { MempoolFeed } from './queries/mempool-feed.ts';
import { buildView, type MempoolView } from './queries/mempool-view.ts';
import { compareTemplate, fetchNodeTemplate, overlayTemplate, templateDiffers, type NodeTemplate, type TemplateComparison } from './queries/node-template.ts';
import { createPoolSettingsReader, type PoolSettingsReader } from './queries/pool-settings.ts';
import { PublishedViews } from './queries/published-views.ts';
import type { Logger } from './logger.ts';
import type { RpcCaller } from './rpc-caller.ts';

/**
 * The mempool engine, the one entry to the mempool for the rest of the
 * portal: the mirror of the node's mempool, kept equal to it by
 * feed/mirror-sync.ts; the projected blocks computed from it on a worker
 * thread (projection/projection-worker.ts), re-projected after every change
 * as projection/projection-scheduler.ts decides; the views published from
 * them (queries/mempool-view.ts: positions, functional rates, the rate to
 * beat); the pool's block share (queries/block-tracker.ts); and the
 * /mempool/ dashboard's feed (queries/dashboard-feed.ts).
 *
 * It is a package of its own (docs/architecture.md#the-mempool-engine):
 * what it needs from the portal (the node's RPC, a logger, which blocks are
 * the pool's) comes in through these options, by shape.
 *
 * Consistency: `latest` serves the newest view at once (production: it
 * trails the node by the time ZMQ and one projection take); `synced` first
 * catches up with the node and projects, as the tests need (a request sees
 * the effects of everything done before it).
 */

export type { MempoolTxView, MempoolView } from './queries/mempool-view.ts';
export type { FamilyTx } from './queries/mempool-family.ts';
export type { CoinbaseInfo, PoolRecogniser } from './queries/block-tracker.ts';
export type { RemovedTx } from './mirror/mempool-mirror.ts';
export type { TemplateComparison } from './queries/node-template.ts';
export type { Logger } from './logger.ts';
export type { RpcCaller } from './rpc-caller.ts';
export { minimumFee } from './projection/block-packages.ts';

export type MempoolHealth = MirrorHealth & ProjectionStats;

/** The last comparison of the projection's block 0 with the node's template (queries/node-template.ts). */
export interface TemplateCheck {
  /** Undefined before the first comparison (or when checks are off). */
  comparison: TemplateComparison | undefined;
  /** Whose block 0 the views answer with now. */
  following: 'projection' | 'node-template';
  /** The last getblocktemplate failure, cleared by the next success. */
  lastError: string | undefined;
  checks: number;
}

/** What the HTTP layer reads (never starts or stops anything). */
export interface MempoolReader {
  readonly feed: MempoolFeed;
  /** The current view; waits for the first. In `synced` mode, catches up with the node first. Rejects with the options' `unavailableError` (or the RPC caller's own error) when the node is unreachable. */
  view(): Promise<MempoolView>;
  /** A view whose projection includes `txid`, waiting up to `timeoutMs` for one (else the latest). */
  viewWith(txid: string, timeoutMs: number): Promise<MempoolView>;
  /** The pool's block share and the latest blocks, with the current pool settings. */
  odds(): Promise<PoolOdds>;
  /** What the mirror remembers of a transaction that left the mempool. */
  removal(txid: string): RemovedTx | undefined;
  /**
   * The block, of the last 1,008 the engine follows (queries/block-tracker.ts),
   * that holds `txid` by its txid index; undefined when none does. Asks the
   * node nothing in `latest` mode (in `synced` mode the tracker catches up
   * with the latest view's tip first, as odds() does).
   */
  minedBlockOf(txid: string): Promise<{ hash: string; height: number } | undefined>;
  health(): MempoolHealth;
  /** How the projection's block 0 compares with the node's own template. */
  templateCheck(): TemplateCheck;
}

export interface MempoolEngine extends MempoolReader {
  /** Starts following the node (ZMQ or polling) and projecting; returns at once. */
  start(): void;
  stop(): Promise<void>;
  /** What the block tracker's txid index holds: txids, and the bytes of their keys. */
  txidIndex(): { txids: number; bytes: number };
}

export interface MempoolEngineOptions {
  rpc: RpcCaller;
  network: string;
  /** Which coinbases are the pool's, read when odds are computed (the server makes it from the pool's settings). */
  poolRecogniser: () => Promise<PoolRecogniser>;
  /**
   * The error view() rejects with when it has no view to serve (the node silent
   * too long, the engine stopped): the server passes its RPC transport error,
   * so that its callers answer as they do for a node that is down.
   */
  unavailableError: (message: string) => Error;
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
  /** Ask the node for its block template (and follow it for block 0 when it differs) at most this often (default 30 s; 0: never). */
  templateCheckEveryMs?: number;
  sync?: Partial<Pick<MirrorSyncOptions, 'pollIntervalMs' | 'checkIntervalMs' | 'entryBatchSize' | 'zmqDropMessage'>>;
  now?: () => number;
}

/** A projection trailing the node by more than this is worth a line in the log (at most one a minute). */
const LAG_WARNING_MS = 10_000;

/** The engine's parts and settings, as its functions below use them. */
interface Engine {
  options: MempoolEngineOptions;
  log: Logger;
  now: () => number;
  consistency: 'latest' | 'synced';
  maxStaleMs: number;
  firstViewTimeoutMs: number;
  sync: MirrorSync;
  worker: ProjectionWorker;
  tracker: BlockTracker;
  settings: PoolSettingsReader;
  views: PublishedViews;
  scheduler: ProjectionScheduler;
  dashboard: DashboardFeed;
  started: boolean;
  stopped: boolean;
  lagWarnedAtMs: number;
  template: TemplateState;
}

interface TemplateState {
  everyMs: number;
  timer: NodeJS.Timeout | undefined;
  running: boolean;
  latest: NodeTemplate | undefined;
  comparison: TemplateComparison | undefined;
  lastError: string | undefined;
  checks: number;
  /** The last view answered through the template, kept while neither changes. */
  overlaid: { view: MempoolView; template: NodeTemplate; result: MempoolView } | undefined;
}

export function createMempoolEngine(options: MempoolEngineOptions): MempoolEngine {
  const engine = assemble(options);
  return {
    feed: engine.dashboard.feed,
    view: () => view(engine),
    viewWith: (txid, timeoutMs) => viewWith(engine, txid, timeoutMs),
    odds: () => odds(engine),
    removal: (txid) => engine.sync.mirror?.removal(txid),
    minedBlockOf: (txid) => minedBlockOf(engine, txid),
    txidIndex: () => engine.tracker.indexed(),
    health: () => ({ ...engine.sync.health(), ...engine.scheduler.stats }),
    templateCheck: () => templateCheck(engine),
    start() {
      if (engine.started || engine.stopped) return;
      engine.started = true;
      engine.sync.start();
      const { template } = engine;
      if (template.everyMs > 0) {
        template.timer = setInterval(() => void checkTemplate(engine), template.everyMs);
        template.timer.unref();
      }
    },
    stop: () => stop(engine),
  };
}

/** The parts, wired: the sync's changes schedule projections; each projection is published as a view and a dashboard state. */
function assemble(options: MempoolEngineOptions): Engine {
  const { rpc, log, network } = options;
  const now = options.now ?? Date.now;
  const sync = createMirrorSync({ rpc, zmqUrl: options.zmqUrl, log, now, ...options.sync, onChange: () => scheduler.noteChange() });
  const worker = createProjectionWorker({ assembler: options.assembler ?? {}, histogramBounds: FEE_HISTOGRAM_BOUNDS });
  const tracker = createBlockTracker({ rpc, log });
  const settings = createPoolSettingsReader(options.poolRecogniser, log);
  const views = new PublishedViews(() => scheduler.schedule(), options.unavailableError);
  const scheduler: ProjectionScheduler = new ProjectionScheduler({
    sync,
    worker,
    log,
    now,
    projectEveryMs: options.projectEveryMs ?? 500,
    urgent: () => views.waiting,
    publishedSeq: () => views.latest?.changeSeq,
    onProjected: (finished) => publish(engine, finished),
    onFailed: (error) => views.failWaiters(error),
  });
  const dashboard = createDashboardFeed({ network, log, tracker, settings, latest: () => views.latest });
  const engine: Engine = {
    options,
    log,
    now,
    consistency: options.consistency ?? 'latest',
    maxStaleMs: options.maxStaleMs ?? 60_000,
    firstViewTimeoutMs: options.firstViewTimeoutMs ?? 30_000,
    sync,
    worker,
    tracker,
    settings,
    views,
    scheduler,
    dashboard,
    started: false,
    stopped: false,
    lagWarnedAtMs: Number.NEGATIVE_INFINITY,
    template: { everyMs: options.templateCheckEveryMs ?? 30_000, timer: undefined, running: false, latest: undefined, comparison: undefined, lastError: undefined, checks: 0, overlaid: undefined },
  };
  return engine;
}

/** A finished projection as the new latest view, then the dashboard's state (again once the block tracker has followed its tip). */
function publish(engine: Engine, finished: FinishedProjection): void {
  const view = buildView(finished, engine.now(), engine.options.assembler);
  if (view.lagMs > LAG_WARNING_MS && view.updatedAtMs - engine.lagWarnedAtMs > 60_000) {
    engine.lagWarnedAtMs = view.updatedAtMs;
    engine.log.warn({ lagMs: Math.round(view.lagMs), mode: engine.sync.health().mode }, 'mempool engine: the projection trails the node');
  }
  const { histogram } = finished.projection;
  engine.views.publish({ view, changeSeq: finished.seq, histogram: histogram ? histogramBuckets(histogram) : [] });
  void engine.tracker.follow(view.tip).then(() => engine.dashboard.publish());
  engine.dashboard.publish();
}


async function view(engine: Engine): Promise<MempoolView> {
  return followTemplate(engine, await projectedView(engine));
}

/** The projection's view, as published. */
async function projectedView(engine: Engine): Promise<MempoolView> {
  const { sync, views, now } = engine;
  if (engine.stopped) throw engine.options.unavailableError('The mempool engine is stopped');
  if (engine.consistency === 'synced') {
    await sync.sync();
    return views.at(engine.scheduler.changeSeq, engine.firstViewTimeoutMs);
  }
  const health = sync.health();
  const silentFor = health.lastContactAtMs === undefined ? 0 : now() - health.lastContactAtMs;
  const latest = views.latest;
  if (latest && silentFor > engine.maxStaleMs) throw engine.options.unavailableError(`The node has not answered for ${Math.round(silentFor / 1000)} s`);
  if (latest) return latest.view;
  // Not one view yet: waiting makes sense while the first synchronisation runs, not while the node is unreachable.
  if (health.lastError !== undefined) throw engine.options.unavailableError(health.lastError);
  return views.at(1, engine.firstViewTimeoutMs);
}

async function viewWith(engine: Engine, txid: string, timeoutMs: number): Promise<MempoolView> {
  const current = await view(engine);
  const tx = current.transaction(txid);
  if (tx?.projected || (!tx && engine.consistency === 'synced')) return current;
  return followTemplate(engine, await engine.views.withTx(txid, current, timeoutMs));
}

/**
 * `projected`, with block 0 as the node's template has it when the last
 * comparison found them different and the template is still for this tip
 * (queries/node-template.ts). A new block ends it at once: the template's
 * transactions are mined or stale.
 */
function followTemplate(engine: Engine, projected: MempoolView): MempoolView {
  const { template } = engine;
  const latest = template.latest;
  if (!latest || !followsNode(template, projected.tip.hash)) return projected;
  const cached = template.overlaid;
  if (cached && cached.view === projected && cached.template === latest) return cached.result;
  const result = overlayTemplate(projected, latest);
  template.overlaid = { view: projected, template: latest, result };
  return result;
}

/** One getblocktemplate, compared with the latest view; skipped while one runs or before the first view. */
async function checkTemplate(engine: Engine): Promise<void> {
  const { template } = engine;
  const current = engine.views.latest?.view;
  if (template.running || engine.stopped || !current) return;
  template.running = true;
  try {
    const fetched = await fetchNodeTemplate(engine.options.rpc, engine.now);
    const against = engine.views.latest?.view ?? current;
    const differed = template.comparison !== undefined && templateDiffers(template.comparison);
    template.latest = fetched;
    template.comparison = compareTemplate(against, fetched);
    template.lastError = undefined;
    template.checks++;
    // Said when it starts to differ, not every check while it does.
    if (!differed && template.comparison && templateDiffers(template.comparison)) {
      const { templateOnly, projectionOnly, agreement } = template.comparison;
      engine.log.info({ templateOnly, projectionOnly, agreement: Number(agreement.toFixed(4)) }, "mempool engine: the node's block template differs from the projection; block 0 follows the node");
    }
  } catch (error) {
    template.lastError = (error as Error).message;
  } finally {
    template.running = false;
  }
}

function templateCheck(engine: Engine): TemplateCheck {
  const { template } = engine;
  const following = followsNode(template, engine.views.latest?.view.tip.hash) ? 'node-template' : 'projection';
  return { comparison: template.comparison, following, lastError: template.lastError, checks: template.checks };
}

/** Block 0 follows the node: the last comparison found a difference, and its template is for `tipHash`. */
function followsNode(template: TemplateState, tipHash: string | undefined): boolean {
  return template.comparison !== undefined && templateDiffers(template.comparison) && template.latest?.previousBlockHash === tipHash;
}

async function odds(engine: Engine): Promise<PoolOdds> {
  // The latest view's tip: a caller in `synced` mode has just caught up (no second poll for the odds).
  const current = engine.views.latest?.view ?? (await view(engine));
  const recogniser = await engine.settings.read();
  // In `synced` mode the share must be the chain's now, not the last refresh's.
  if (engine.consistency === 'synced') await engine.tracker.follow(current.tip);
  return engine.tracker.odds(recogniser);
}

async function minedBlockOf(engine: Engine, txid: string): Promise<{ hash: string; height: number } | undefined> {
  if (engine.consistency === 'synced') await engine.tracker.follow((engine.views.latest?.view ?? (await view(engine))).tip);
  return engine.tracker.holding(txid);
}

async function stop(engine: Engine): Promise<void> {
  if (engine.stopped) return;
  engine.stopped = true;
  clearInterval(engine.template.timer);
  engine.scheduler.stop();
  engine.views.close(engine.options.unavailableError('The mempool engine stopped'));
  engine.dashboard.close();
  await engine.sync.stop();
  await engine.worker.close();
}
