import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Queryable } from '../../db/database.ts';
import type { MempoolDashboardState } from '@slipstream/mempool-engine/queries/mempool-feed';
import type { MempoolHealth } from '@slipstream/mempool-engine';
import { createHealthService, type HealthServiceDeps } from './health.service.ts';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const quiet = { info() {}, warn() {}, error() {} };

function mirror(overrides: Partial<MempoolHealth> = {}): MempoolHealth {
  return {
    mode: 'zmq', zmqConnected: true, lagMs: 12, lastContactAtMs: NOW - 1_000, fullResyncs: 1, polls: 1, gaps: 0, sequenceGaps: 0, driftRepairs: 0, lastError: undefined,
    projections: 3, lastProjectionMs: 1, lastAssembleMs: 1, lastSnapshotMs: 1, ...overrides,
  };
}

const projected = { updatedAtMs: NOW - 500, mempool: { txCount: 42, vsize: 1, totalFees: 1 } } as MempoolDashboardState;

/** A database answering the two health queries, or failing the way `fail` says. */
function database(fail?: 'refused' | 'hang' | 'broken'): Queryable & { calls: number } {
  const db = {
    calls: 0,
    async query<T>(sql: string): Promise<{ rows: T[]; rowCount: number }> {
      db.calls++;
      if (fail === 'refused') throw Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED' });
      if (fail === 'broken') throw Object.assign(new Error('relation "jobs" does not exist'), { code: '42P01' });
      if (fail === 'hang') return new Promise(() => {});
      const row = sql.includes('FROM jobs') ? { queued: 3, oldest_age: 7.25 } : { '?column?': 1 };
      return { rows: [row as T], rowCount: 1 };
    },
    async exec() {},
  };
  return db;
}

function service(overrides: Partial<HealthServiceDeps> & { health?: MempoolHealth; state?: MempoolDashboardState | null } = {}) {
  const { health = mirror(), state = projected, ...rest } = overrides;
  return createHealthService({
    db: database(),
    mempool: { health: () => health, feed: { current: () => state, subscribe: () => () => {} } },
    clock: { now: () => new Date(NOW) },
    log: quiet,
    ...rest,
  });
}

test('all well: ok, with the node, database, mempool and job queue described', async () => {
  const report = await service().check();
  assert.equal(report.status, 'ok');
  assert.deepEqual(report.checks.node, { ok: true, lag_ms: 12, last_contact_at: new Date(NOW - 1_000).toISOString() });
  assert.equal(report.checks.database.ok, true);
  assert.ok(report.checks.database.latency_ms !== null && report.checks.database.latency_ms >= 0);
  assert.deepEqual(report.checks.mempool, { ok: true, mode: 'zmq', tx_count: 42, updated_at: new Date(NOW - 500).toISOString() });
  assert.deepEqual(report.checks.jobs, { queued: 3, oldest_age_s: 7.3 });
});

test('a node silent for longer than the limit is degraded, even with no error recorded yet (a hung node)', async () => {
  const justInTime = await service({ health: mirror({ lastContactAtMs: NOW - 5_000 }) }).check();
  assert.equal(justInTime.status, 'ok');
  const silent = await service({ health: mirror({ lastContactAtMs: NOW - 5_001 }) }).check();
  assert.equal(silent.status, 'degraded');
  assert.deepEqual(silent.checks.node, { ok: false, lag_ms: 12, last_contact_at: new Date(NOW - 5_001).toISOString(), error: 'no answer from the node for 5 s' });
  assert.equal(silent.checks.database.ok, true, 'the other checks still say how they are');
});

test('a failed exchange with the node degrades at once, without its message (host and port stay private)', async () => {
  const report = await service({ health: mirror({ lastError: 'polling the node: The Bitcoin node is unreachable (connect ECONNREFUSED 10.0.0.7:8332)' }) }).check();
  assert.equal(report.status, 'degraded');
  assert.equal(report.checks.node.error, 'the last exchange with the node failed');
  assert.doesNotMatch(JSON.stringify(report), /10\.0\.0\.7|ECONNREFUSED/);
});

test('a node never heard from, and no projection yet: degraded (a server still starting)', async () => {
  const report = await service({ health: mirror({ lastContactAtMs: undefined, mode: 'starting' }), state: null }).check();
  assert.equal(report.status, 'degraded');
  assert.equal(report.checks.node.last_contact_at, null);
  assert.deepEqual(report.checks.mempool, { ok: false, mode: 'starting', tx_count: null, updated_at: null });
});

test('a database refusing connections: degraded, "unreachable", and the job queue unknown', async () => {
  const report = await service({ db: database('refused') }).check();
  assert.equal(report.status, 'degraded');
  assert.deepEqual(report.checks.database, { ok: false, latency_ms: null, error: 'unreachable' });
  assert.deepEqual(report.checks.jobs, { queued: null, oldest_age_s: null });
  assert.doesNotMatch(JSON.stringify(report), /10\.1\.2\.3/);
  const broken = await service({ db: database('broken') }).check();
  assert.equal(broken.checks.database.error, 'failed');
});

test('a database that never answers: degraded after the timeout, not later', async () => {
  const started = performance.now();
  const report = await service({ db: database('hang'), databaseTimeoutMs: 200 }).check();
  const elapsed = performance.now() - started;
  assert.equal(report.status, 'degraded');
  assert.deepEqual(report.checks.database, { ok: false, latency_ms: null, error: 'timed out' });
  assert.ok(elapsed >= 190 && elapsed < 2_000, `answered after ${Math.round(elapsed)} ms`);
});

test('checks asked for at the same time share one visit to the database', async () => {
  const db = database();
  const health = service({ db });
  const reports = await Promise.all(Array.from({ length: 20 }, () => health.check()));
  assert.ok(reports.every((r) => r.status === 'ok'));
  assert.equal(db.calls, 2, 'one probe and one job-queue reading');
  await health.check();
  assert.equal(db.calls, 4, 'a later check looks again');
});
