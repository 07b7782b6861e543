import type { Logger } from '../logger.ts';
import type { MirrorSync, RelayRates } from '../feed/mirror-sync.ts';
import type { MempoolMirror, MirrorSnapshot } from '../mirror/mempool-mirror.ts';
import type { MempoolSnapshot } from '../mirror/mempool-snapshot.ts';
import type { ProjectionWorker, TimedProjection } from './projection-worker.ts';

/**
 * When the engine projects: re-projection follows every change, coalesced:
 * at most one projection in flight, at most one every `projectEveryMs`
 * (none while someone waits on a fresh view); what changed meanwhile goes
 * into the next. The main thread's part per update is the mirror's snapshot
 * (copies of typed arrays); the worker (projection-worker.ts) does the rest.
 */

/** A projection back from the worker, with what the mirror said when its snapshot was taken. */
export interface FinishedProjection {
  mirror: MempoolMirror;
  taken: MirrorSnapshot;
  projection: TimedProjection;
  relay: RelayRates;
  tip: { hash: string; height: number };
  totals: { txCount: number; vsize: number; totalFees: number };
  mirrorLagMs: number;
  /** The change (ProjectionScheduler.changeSeq) the snapshot includes. */
  seq: number;
}

export interface ProjectionStats {
  projections: number;
  /** The last projection's worker round trip and the assembler's share of it (ms). */
  lastProjectionMs: number | undefined;
  lastAssembleMs: number | undefined;
  /** The last snapshot's main-thread cost (ms). */
  lastSnapshotMs: number | undefined;
}

export interface ProjectionSchedulerOptions {
  sync: MirrorSync;
  worker: ProjectionWorker;
  log: Logger;
  now: () => number;
  projectEveryMs: number;
  /** Someone waits on a fresh view: no throttle. */
  urgent(): boolean;
  /** The change the latest published view includes; undefined before the first. */
  publishedSeq(): number | undefined;
  /** A projection came back: publish it (a throw fails it as the worker's failure would). */
  onProjected(finished: FinishedProjection): void;
  /** A projection failed: whoever waits on one fails with it. */
  onFailed(error: Error): void;
}

export class ProjectionScheduler {
  /** Counts changes to what a view depends on: the mirror (instance and version), its tip, the relay rates. */
  changeSeq = 0;
  readonly stats: ProjectionStats = { projections: 0, lastProjectionMs: undefined, lastAssembleMs: undefined, lastSnapshotMs: undefined };

  private readonly options: ProjectionSchedulerOptions;
  private lastKey = '';
  private readonly mirrorIds = new WeakMap<MempoolMirror, number>();
  private nextMirrorId = 0;
  private projecting = false;
  private timer: NodeJS.Timeout | undefined;
  /** The pending timer is the throttled kind (a waiter arriving cuts it short). */
  private timerThrottled = false;
  private lastStartMs = Number.NEGATIVE_INFINITY;
  /** The last snapshot the worker handed back: the next copy goes into its buffers. */
  private recycled: MempoolSnapshot | undefined;
  private stopped = false;

  constructor(options: ProjectionSchedulerOptions) {
    this.options = options;
  }

  /** The mirror sync's onChange: counts the change if it is one, and schedules a projection. */
  noteChange(): void {
    const { sync } = this.options;
    const mirror = sync.mirror;
    if (!mirror) return;
    const key = this.keyOf(mirror, sync.relay);
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.changeSeq++;
    }
    this.schedule();
  }

  /** Starts a projection when one is due: now for a waiter, else once the throttle allows. */
  schedule(): void {
    if (this.projecting || this.stopped) return;
    const { sync, now, projectEveryMs, log } = this.options;
    const urgent = this.options.urgent();
    if (this.timer && !(urgent && this.timerThrottled)) return;
    const mirror = sync.mirror;
    if (!mirror || !mirror.tip || !sync.relay || !sync.settled) return;
    if (this.options.publishedSeq() === this.changeSeq) return;
    clearTimeout(this.timer);
    // Someone waits on a fresh view: no throttle.
    const delay = urgent ? 0 : Math.max(0, this.lastStartMs + projectEveryMs - now());
    this.timerThrottled = !urgent;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.project().catch((error: unknown) => log.error({ err: (error as Error).message }, 'mempool engine: projection failed'));
    }, delay);
    if (!urgent) this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private keyOf(mirror: MempoolMirror, relay: RelayRates | undefined): string {
    let id = this.mirrorIds.get(mirror);
    if (id === undefined) this.mirrorIds.set(mirror, (id = this.nextMirrorId++));
    return `${id}:${mirror.version}:${mirror.tip?.hash}:${relay?.minRelayRate}:${relay?.mempoolMinRate}`;
  }

  /** The mirror's snapshot, projected on the worker, handed to onProjected. */
  private async project(): Promise<void> {
    const { sync, worker, now } = this.options;
    const mirror = sync.mirror;
    const relay = sync.relay;
    const tip = mirror?.tip;
    if (this.stopped || !mirror || !relay || !tip || !sync.settled) return;
    this.projecting = true;
    this.lastStartMs = now();
    const seq = this.changeSeq;
    const { stats } = this;
    try {
      const snapshotStarted = performance.now();
      const taken = mirror.snapshot(this.recycled);
      this.recycled = undefined;
      stats.lastSnapshotMs = performance.now() - snapshotStarted;
      const mirrorLagMs = sync.health().lagMs;
      const totals = mirror.totals;
      const roundTripStarted = performance.now();
      const projection = await worker.project(taken.snapshot);
      if (!projection || this.stopped) return;
      stats.projections++;
      stats.lastProjectionMs = performance.now() - roundTripStarted;
      stats.lastAssembleMs = projection.assembleMs;
      this.recycled = projection.snapshot;
      this.options.onProjected({ mirror, taken, projection, relay, tip, totals, mirrorLagMs, seq });
    } catch (error) {
      if (this.stopped) return; // the worker closed under it
      // The waiters fail with it rather than wait for a projection that may never come.
      this.options.onFailed(error as Error);
      throw error;
    } finally {
      this.projecting = false;
      if (!this.stopped) this.schedule();
    }
  }
}
