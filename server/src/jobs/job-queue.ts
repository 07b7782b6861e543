import type { Queryable } from '../db/database.ts';

/**
 * Durable jobs in the `jobs` table (migration 010). Every instance of the
 * server claims due jobs with one statement that locks the rows it takes
 * (FOR UPDATE SKIP LOCKED) and writes a lease; a job is only ever held by one
 * worker, and the lease fences late writes from a worker whose lease ran out
 * (docs/architecture.md#layout: "jobs are claimed with row locks so that two instances never do
 * the same work twice"). All times come from the database's clock, so
 * instances with skewed clocks still agree on what is due.
 */

export type JobKind = 'track' | 'scan-blocks' | 'retry' | 'webhook' | 'email';

export interface ClaimedJob {
  id: number;
  kind: JobKind;
  key: string;
  payload: Record<string, unknown>;
  /** Including this run. */
  attempts: number;
  /** The wake-up count when claimed (see reschedule). */
  wakes: number;
}

export interface NewJob {
  kind: JobKind;
  key: string;
  payload?: Record<string, unknown>;
  /** Delay before it is due (default: due now). */
  delayMs?: number;
}

/**
 * Queues a job, once per key: when the key already has an open job, that job
 * is woken instead (made due now, and told so if it is running).
 */
export async function enqueueJob(db: Queryable, job: NewJob): Promise<void> {
  await db.query(
    `INSERT INTO jobs (kind, key, payload, run_at)
     VALUES ($1, $2, $3::jsonb, now() + make_interval(secs => $4::double precision / 1000))
     ON CONFLICT (key) WHERE state IN ('queued', 'running')
     DO UPDATE SET run_at = LEAST(jobs.run_at, EXCLUDED.run_at), wakes = jobs.wakes + 1, updated_at = now()`,
    [job.kind, job.key, JSON.stringify(job.payload ?? {}), job.delayMs ?? 0],
  );
}

/**
 * A statement's last step that queues a `kind` job for every row of `source`
 * (a CTE's name, or a table with its alias): keyed `${kind}:` followed by the
 * row's `column`, with the payload `{ [field]: column }`. A key that already
 * has an open job keeps it as it is. For a change whose jobs must commit with
 * it, in the one statement (a submission recorded and tracked, failures put
 * into retry); enqueueJob queues one job on its own. The names are the
 * caller's code, never a user's text.
 */
export function queueJobsFrom(kind: JobKind, source: string, id: { column: string; field: string }): string {
  return `INSERT INTO jobs (kind, key, payload)
     SELECT '${kind}', '${kind}:' || ${id.column}, jsonb_build_object('${id.field}', ${id.column}) FROM ${source}
     ON CONFLICT (key) WHERE state IN ('queued', 'running') DO NOTHING`;
}

/**
 * SQL closing the queued jobs of `kind` keyed by the rows of `source` (a
 * CTE's name) and their `column`: done, for a change that makes them
 * pointless, in the same statement (a tracked transaction confirmed).
 */
export function closeQueuedJobsFrom(kind: JobKind, source: string, column: string): string {
  return `UPDATE jobs SET state = 'done', finished_at = now(), updated_at = now()
            WHERE state = 'queued' AND key IN (SELECT '${kind}:' || ${column} FROM ${source})`;
}

/**
 * Queues many jobs of one kind in one statement, each only when its key has
 * no open job (an open one keeps its own schedule). For outbox work found in
 * bulk (webhook events, emails due); returns how many were queued.
 */
export async function enqueueIdleJobs(db: Queryable, kind: JobKind, jobs: Array<{ key: string; payload: Record<string, unknown> }>): Promise<number> {
  if (jobs.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO jobs (kind, key, payload)
     SELECT $1, k, p::jsonb FROM unnest($2::text[], $3::text[]) AS j(k, p)
     ON CONFLICT (key) WHERE state IN ('queued', 'running') DO NOTHING`,
    [kind, jobs.map((j) => j.key), jobs.map((j) => JSON.stringify(j.payload))],
  );
  return rowCount;
}

/** Makes the open jobs with these keys due now; returns how many there were. */
export async function wakeJobs(db: Queryable, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE jobs SET run_at = LEAST(run_at, now()), wakes = wakes + 1, updated_at = now()
     WHERE key = ANY($1::text[]) AND state IN ('queued', 'running')`,
    [keys],
  );
  return rowCount;
}

interface JobRow {
  id: string;
  kind: JobKind;
  key: string;
  payload: Record<string, unknown>;
  attempts: number;
  wakes: number;
}

/**
 * Takes up to `limit` due jobs for `worker`, holding each for `leaseMs`. A
 * running job whose lease has run out (its worker died) is due again.
 */
export async function claimJobs(db: Queryable, options: { worker: string; limit: number; leaseMs: number; kinds: readonly JobKind[] }): Promise<ClaimedJob[]> {
  if (options.limit <= 0) return [];
  const { rows } = await db.query<JobRow>(
    `WITH due AS (
       SELECT id FROM jobs
       WHERE state IN ('queued', 'running') AND run_at <= now()
         AND (locked_until IS NULL OR locked_until < now())
         AND kind = ANY($4::text[])
       ORDER BY run_at, id
       LIMIT $2
       FOR UPDATE SKIP LOCKED)
     UPDATE jobs SET state = 'running', locked_by = $1, attempts = jobs.attempts + 1,
       locked_until = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
     FROM due WHERE jobs.id = due.id
     RETURNING jobs.id, jobs.kind, jobs.key, jobs.payload, jobs.attempts, jobs.wakes`,
    [options.worker, options.limit, options.leaseMs, options.kinds],
  );
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, key: r.key, payload: r.payload, attempts: r.attempts, wakes: r.wakes }));
}

/** Marks the job done, if this worker still holds it; false when the lease was lost. */
export async function completeJob(db: Queryable, job: ClaimedJob, worker: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET state = 'done', locked_by = NULL, locked_until = NULL, last_error = NULL, finished_at = now(), updated_at = now()
     WHERE id = $1 AND locked_by = $2 AND state = 'running'`,
    [job.id, worker],
  );
  return rowCount === 1;
}

/**
 * Puts the job back in the queue, due after `delayMs`, or at once when it was
 * woken while it ran (its news arrived after it looked). `error` is kept for
 * staff and the logs when the run failed.
 */
export async function rescheduleJob(db: Queryable, job: ClaimedJob, worker: string, delayMs: number, error?: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET state = 'queued', locked_by = NULL, locked_until = NULL, last_error = $4, updated_at = now(),
       run_at = CASE WHEN wakes <> $5 THEN now() ELSE now() + make_interval(secs => $3::double precision / 1000) END
     WHERE id = $1 AND locked_by = $2 AND state = 'running'`,
    [job.id, worker, delayMs, error ?? null, job.wakes],
  );
  return rowCount === 1;
}

/** Gives up on the job for good (its error is kept). */
export async function failJob(db: Queryable, job: ClaimedJob, worker: string, error: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET state = 'failed', locked_by = NULL, locked_until = NULL, last_error = $3, finished_at = now(), updated_at = now()
     WHERE id = $1 AND locked_by = $2 AND state = 'running'`,
    [job.id, worker, error],
  );
  return rowCount === 1;
}

/** Extends the lease of a job still running, so a long run is not taken over. */
export async function extendLease(db: Queryable, job: ClaimedJob, worker: string, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET locked_until = now() + make_interval(secs => $3::double precision / 1000)
     WHERE id = $1 AND locked_by = $2 AND state = 'running'`,
    [job.id, worker, leaseMs],
  );
  return rowCount === 1;
}

/** Deletes finished jobs older than `keepMs`: the outcomes live in the records they changed. */
export async function pruneFinishedJobs(db: Queryable, keepMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM jobs WHERE state IN ('done', 'failed') AND finished_at < now() - make_interval(secs => $1::double precision / 1000)`,
    [keepMs],
  );
  return rowCount;
}
