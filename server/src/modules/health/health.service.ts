import { isDatabaseUnavailable, type Queryable } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import { ping, waitingJobs } from './health.repository.ts';
import type { DatabaseCheck, HealthReport, JobsCheck, MempoolCheck, NodeCheck } from './health.schemas.ts';
import { TimedOut, within } from '../../lib/within.ts';

/**
 * The portal's health for load balancers and monitors: degraded when the
 * node has gone quiet, the database does not answer, or there is no mempool
 * projection to price submissions by. Nothing here waits on the node: its
 * state is what the mempool engine last heard (it asks the node every 1-2 s,
 * ZMQ or not), so a stopped node shows within `nodeSilentMs` plus one of
 * those intervals. The database gets `databaseTimeoutMs`, so the answer
 * comes in time even when a connection hangs.
 */

export interface HealthServiceDeps {
  db: Queryable;
  mempool: Pick<MempoolReader, 'health' | 'feed'>;
  clock: Clock;
  log: Logger;
  /** The node is degraded after this long without an answer (default 5 s: the mirror asks every 1-2 s). */
  nodeSilentMs?: number;
  /** The database's probe and the job-queue reading must answer within this (default 1 s). */
  databaseTimeoutMs?: number;
}

export interface HealthService {
  check(): Promise<HealthReport>;
}

export const DEFAULT_NODE_SILENT_MS = 5_000;
export const DEFAULT_DATABASE_TIMEOUT_MS = 1_000;

export function createHealthService(deps: HealthServiceDeps): HealthService {
  const { db, mempool, clock, log } = deps;
  const nodeSilentMs = deps.nodeSilentMs ?? DEFAULT_NODE_SILENT_MS;
  const databaseTimeoutMs = deps.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  // A monitor polling a failing database would log the same line every few seconds: say it when it changes.
  let lastDatabaseProblem: string | undefined;
  // Concurrent checks share one: however often the endpoint is called, at most one probe is on the database.
  let inFlight: Promise<HealthReport> | undefined;

  function nodeCheck(nowMs: number): NodeCheck {
    const health = mempool.health();
    const lastContact = health.lastContactAtMs;
    const base = { lag_ms: Math.max(0, Math.round(health.lagMs)), last_contact_at: lastContact === undefined ? null : new Date(lastContact).toISOString() };
    if (lastContact === undefined) return { ok: false, ...base, error: 'no answer from the node yet' };
    const silentMs = nowMs - lastContact;
    if (silentMs > nodeSilentMs) return { ok: false, ...base, error: `no answer from the node for ${Math.round(silentMs / 1000)} s` };
    if (health.lastError !== undefined) return { ok: false, ...base, error: 'the last exchange with the node failed' };
    return { ok: true, ...base };
  }

  function mempoolCheck(): MempoolCheck {
    const state = mempool.feed.current();
    return {
      ok: state !== null,
      mode: mempool.health().mode,
      tx_count: state?.mempool.txCount ?? null,
      updated_at: state ? new Date(state.updatedAtMs).toISOString() : null,
    };
  }

  function problem(error: unknown): string {
    if (error instanceof TimedOut) return 'timed out';
    return isDatabaseUnavailable(error) ? 'unreachable' : 'failed';
  }

  async function databaseChecks(): Promise<{ database: DatabaseCheck; jobs: JobsCheck }> {
    const started = performance.now();
    const timedPing = ping(db).then(() => Math.round((performance.now() - started) * 10) / 10);
    const [probe, jobs] = await Promise.allSettled([within(timedPing, databaseTimeoutMs), within(waitingJobs(db), databaseTimeoutMs)]);
    const failure: unknown = probe.status === 'rejected' ? probe.reason : jobs.status === 'rejected' ? jobs.reason : undefined;
    const summary = failure === undefined ? undefined : problem(failure);
    if (summary !== lastDatabaseProblem) {
      if (failure !== undefined) log.warn({ err: failure instanceof Error ? failure.message : 'unknown' }, `health: the database check ${summary === 'timed out' ? 'timed out' : 'failed'}`);
      else log.info({}, 'health: the database answers again');
      lastDatabaseProblem = summary;
    }
    return {
      database: probe.status === 'fulfilled' ? { ok: true, latency_ms: probe.value } : { ok: false, latency_ms: null, error: problem(probe.reason) },
      jobs: jobs.status === 'fulfilled' ? { queued: jobs.value.queued, oldest_age_s: Math.round(jobs.value.oldestAgeSeconds * 10) / 10 } : { queued: null, oldest_age_s: null },
    };
  }

  async function run(): Promise<HealthReport> {
    const { database, jobs } = await databaseChecks();
    // Read after the database's answer, so the node's state is as fresh as the response.
    const node = nodeCheck(clock.now().getTime());
    const pool = mempoolCheck();
    return { status: node.ok && database.ok && pool.ok ? 'ok' : 'degraded', checks: { node, database, mempool: pool, jobs } };
  }

  return {
    check() {
      inFlight ??= run().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
