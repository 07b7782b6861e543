import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimJobs, completeJob, enqueueJob, rescheduleJob, wakeJobs } from '../src/jobs/job-queue.ts';
import { createJobRunner, jobDone, runAgainAfter } from '../src/jobs/job-runner.ts';
import type { Database } from '../src/db/database.ts';
import { quietLog } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * The durable job queue on both engines: one open job per key, claims that
 * never hand one job to two workers (row locks, SKIP LOCKED), leases that
 * let another worker take over from a dead one, fencing of a worker whose
 * lease ran out, and wake-ups that are not lost while a job runs.
 */

const job = (db: Database, key: string) =>
  db.query<{ state: string; attempts: number; locked_by: string | null; run_due: boolean }>(
    `SELECT state, attempts, locked_by, run_at <= now() AS run_due FROM jobs WHERE key = $1 ORDER BY id DESC LIMIT 1`,
    [key],
  ).then((r) => r.rows[0]);

for (const engine of testDatabases()) {
  describe(`job queue (${engine.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(async () => db?.close());

    test('the same key queued twice (even at once) is one job', async () => {
      await Promise.all([1, 2, 3].map(() => enqueueJob(db, { kind: 'retry', key: 'retry:dup', payload: { failedTxId: 1 } })));
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE key = 'retry:dup'`);
      assert.equal(rows[0]?.n, 1);
      const [claimed] = await claimJobs(db, { worker: 'w1', limit: 10, leaseMs: 60_000, kinds: ['retry'] });
      assert.equal(claimed?.key, 'retry:dup');
      assert.equal(await completeJob(db, claimed, 'w1'), true);
      // Once done, the key may be queued again: a later retry of the same row.
      await enqueueJob(db, { kind: 'retry', key: 'retry:dup' });
      assert.equal((await job(db, 'retry:dup'))?.state, 'queued');
      await db.query(`DELETE FROM jobs`);
    });

    test('concurrent claims never hand one job to two workers', async () => {
      for (let i = 0; i < 40; i++) await enqueueJob(db, { kind: 'track', key: `track:${i}`, payload: { txid: String(i) } });
      const peer = await db.openPeer();
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, w) => claimJobs(w % 2 ? peer : db, { worker: `w${w}`, limit: 7, leaseMs: 60_000, kinds: ['track'] })),
      );
      const keys = claims.flat().map((c) => c.key);
      assert.equal(keys.length, 40, 'all 40 jobs claimed (8 × 7 slots)');
      assert.equal(new Set(keys).size, 40, 'no job claimed twice');
      await db.query(`DELETE FROM jobs`);
    });

    test('a dead worker\'s job is taken over when its lease runs out, and the dead worker can no longer finish it', async () => {
      await enqueueJob(db, { kind: 'track', key: 'track:lease' });
      const [held] = await claimJobs(db, { worker: 'dead', limit: 1, leaseMs: 300, kinds: ['track'] });
      assert.ok(held);
      assert.equal((await claimJobs(db, { worker: 'live', limit: 1, leaseMs: 60_000, kinds: ['track'] })).length, 0, 'held while the lease lasts');
      await until(
        async () => (await db.query<{ expired: boolean }>(`SELECT locked_until < now() AS expired FROM jobs WHERE key = 'track:lease'`)).rows[0]?.expired === true,
        async () => 'lease still running',
      );
      const [taken] = await claimJobs(db, { worker: 'live', limit: 1, leaseMs: 60_000, kinds: ['track'] });
      assert.equal(taken?.key, 'track:lease');
      assert.equal(taken.attempts, 2);
      assert.equal(await completeJob(db, held, 'dead'), false, 'fenced: the lease is someone else\'s');
      assert.equal((await job(db, 'track:lease'))?.state, 'running');
      assert.equal(await completeJob(db, taken, 'live'), true);
      assert.equal((await job(db, 'track:lease'))?.state, 'done');
      await db.query(`DELETE FROM jobs`);
    });

    test('a wake-up while the job runs makes it due again at once instead of after its delay', async () => {
      await enqueueJob(db, { kind: 'track', key: 'track:woken' });
      await enqueueJob(db, { kind: 'track', key: 'track:quiet' });
      const claimed = await claimJobs(db, { worker: 'w', limit: 2, leaseMs: 60_000, kinds: ['track'] });
      assert.equal(claimed.length, 2);
      assert.equal(await wakeJobs(db, ['track:woken']), 1);
      for (const c of claimed) assert.equal(await rescheduleJob(db, c, 'w', 3_600_000), true);
      assert.equal((await job(db, 'track:woken'))?.run_due, true);
      assert.equal((await job(db, 'track:quiet'))?.run_due, false);
      await db.query(`DELETE FROM jobs`);
    });

    test('the runner: runs due jobs, reschedules, retries a throwing run with backoff, gives up after the limit', async () => {
      const seen: string[] = [];
      let throws = 0;
      const runner = createJobRunner({
        db,
        log: quietLog,
        pollMs: 50,
        maxBackoffMs: 100,
        giveUpAfter: { retry: 2 },
        handlers: {
          track: async (j) => {
            seen.push(j.key);
            return j.attempts < 3 ? runAgainAfter(0) : jobDone;
          },
          retry: async () => {
            throws++;
            throw new Error('node said no');
          },
        },
      });
      await enqueueJob(db, { kind: 'track', key: 'track:thrice' });
      await enqueueJob(db, { kind: 'retry', key: 'retry:broken' });
      runner.start();
      try {
        await until(async () => (await job(db, 'retry:broken'))?.state === 'failed' && (await job(db, 'track:thrice'))?.state === 'done', async () => JSON.stringify(await db.query('SELECT key, state, attempts, last_error FROM jobs')));
      } finally {
        await runner.stop();
      }
      assert.deepEqual(seen, ['track:thrice', 'track:thrice', 'track:thrice']);
      assert.equal(throws, 2);
      const { rows } = await db.query<{ last_error: string }>(`SELECT last_error FROM jobs WHERE key = 'retry:broken'`);
      assert.equal(rows[0]?.last_error, 'node said no');
      assert.deepEqual(runner.runs, { track: 3, retry: 2 });
      await db.query(`DELETE FROM jobs`);
    });
  });
}
