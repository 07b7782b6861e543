import type { Queryable } from '../../db/database.ts';

/**
 * Jobs due and not held by a live lease: work waiting for a worker. The
 * predicate on state matches jobs_due_idx's (migration 010), so the scan stays
 * on the index and covers the due range only.
 */
export async function waitingJobs(db: Queryable): Promise<{ queued: number; oldestAgeSeconds: number }> {
  const { rows } = await db.query<{ queued: number; oldest_age: number }>(
    `SELECT count(*)::int AS queued, COALESCE(GREATEST(0, EXTRACT(EPOCH FROM (now() - min(run_at)))), 0)::float8 AS oldest_age
     FROM jobs
     WHERE state IN ('queued', 'running') AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())`,
  );
  const row = rows[0]!;
  return { queued: row.queued, oldestAgeSeconds: row.oldest_age };
}

/** The cheapest statement that needs a working connection. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
