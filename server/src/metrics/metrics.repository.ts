import type { Queryable } from '../db/database.ts';

/**
 * The database readings behind the metrics: the open job queue (read at
 * every scrape, so one grouped query over the partial index of open jobs)
 * and the per-day submission figures of the staff summary (range scans of
 * the created_at indexes of migrations 003 and 004).
 */

export interface OpenJobs {
  kind: string;
  depth: number;
  oldestAgeSeconds: number;
}

/** Open jobs are 'queued' or 'running' (migration 010_jobs.sql); the predicate matches jobs_due_idx's, so the scan stays on it. */
export async function openJobsByKind(db: Queryable, now: Date): Promise<OpenJobs[]> {
  const { rows } = await db.query<{ kind: string; depth: number; oldest_age: number }>(
    `SELECT kind, count(*)::int AS depth, GREATEST(0, EXTRACT(EPOCH FROM ($1::timestamptz - min(created_at))))::float8 AS oldest_age
     FROM jobs WHERE state IN ('queued', 'running') GROUP BY kind`,
    [now],
  );
  return rows.map((r) => ({ kind: r.kind, depth: r.depth, oldestAgeSeconds: r.oldest_age }));
}

export interface DayFigures {
  /** UTC day, yyyy-MM-dd. */
  day: string;
  accepted: number;
  failed: number;
  revenueSats: number;
}

/**
 * Per UTC day in [from, to): accepted transactions (a 'pending' row is still
 * with the node) and packages with their fees, and failed transactions. Each
 * branch is a range on its table's created_at index; days without rows are
 * absent.
 */
export async function dailyFigures(db: Queryable, from: Date, to: Date): Promise<DayFigures[]> {
  const { rows } = await db.query<{ day: string; accepted: number; failed: number; revenue: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(accepted)::int AS accepted, sum(failed)::int AS failed, sum(revenue)::bigint::text AS revenue
     FROM (
       SELECT (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS accepted, 0 AS failed, fee AS revenue
       FROM tx_submissions WHERE created_at >= $1 AND created_at < $2 AND status <> 'pending'
       UNION ALL
       SELECT (created_at AT TIME ZONE 'UTC')::date, 1, 0, COALESCE(total_fee, 0)
       FROM package_submissions WHERE created_at >= $1 AND created_at < $2
       UNION ALL
       SELECT (created_at AT TIME ZONE 'UTC')::date, 0, 1, 0
       FROM failed_txs WHERE created_at >= $1 AND created_at < $2
     ) figures
     GROUP BY day ORDER BY day`,
    [from, to],
  );
  // Sums of integer satoshis: exact as text, and safe as a number (all bitcoin ever is 2.1e15 sats, under 2^53).
  return rows.map((r) => ({ day: r.day, accepted: r.accepted, failed: r.failed, revenueSats: Number(r.revenue) }));
}

export interface DayRefusals {
  /** UTC day, yyyy-MM-dd. */
  day: string;
  errorMessage: string | null;
  count: number;
}

/**
 * Refused submissions per UTC day in [from, to) and error message, from the
 * audit trail (metrics/refusal-reasons.ts says why there): failed POSTs to
 * the submission endpoints. A range on the endpoint index of migration 005
 * per endpoint; grouped by message, which the caller sorts into reasons.
 */
export async function dailyRefusals(db: Queryable, from: Date, to: Date, endpoints: readonly string[]): Promise<DayRefusals[]> {
  const { rows } = await db.query<{ day: string; error_message: string | null; n: number }>(
    `SELECT to_char((request_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, error_message, count(*)::int AS n
     FROM audit_logs
     WHERE endpoint = ANY($3::text[]) AND http_method = 'POST' AND NOT is_success AND request_at >= $1 AND request_at < $2
     GROUP BY 1, 2`,
    [from, to, [...endpoints]],
  );
  return rows.map((r) => ({ day: r.day, errorMessage: r.error_message, count: r.n }));
}
