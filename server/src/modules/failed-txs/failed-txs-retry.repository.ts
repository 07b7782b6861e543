import type { Queryable } from '../../db/database.ts';
import { queueJobsFrom } from '../../jobs/job-queue.ts';

/**
 * Moves failed transactions into retry (docs/behaviour.md#failed-transactions: a retry moves the
 * selected transactions into retry): the job runner does the resubmitting,
 * from the 'retry' jobs queued here (migration 010_jobs.sql).
 */

export interface QueuedRetries {
  /** The ids moved from Failed or Timeout to Retrying, each with an open retry job, in ascending order. */
  queuedIds: number[];
  /** Distinct ids asked for that were left alone: unknown, already Retrying, or Resolved. */
  skipped: number;
}

/**
 * One statement, so one transaction: the rows that are open (Failed or
 * Timeout) become 'Retrying' and each gets a job keyed 'retry:<id>'.
 *
 * Two identical requests at the same moment queue each id once. The UPDATE
 * locks the rows it changes; the second request's UPDATE waits on those
 * locks and, once the first commits, re-checks its WHERE against the new row
 * versions (Postgres READ COMMITTED), finds them 'Retrying' and leaves them,
 * so it inserts no job for them. The jobs table's unique key on open jobs
 * (jobs_open_key) backs this up: a job still open for a row that went back
 * to Failed is kept rather than doubled (ON CONFLICT DO NOTHING).
 */
export async function queueRetries(db: Queryable, ids: readonly number[]): Promise<QueuedRetries> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return { queuedIds: [], skipped: 0 };
  const { rows } = await db.query<{ id: number }>(
    `WITH retried AS (
       UPDATE failed_txs SET status = 'Retrying', updated_at = now()
        WHERE id = ANY($1::bigint[]) AND status IN ('Failed', 'Timeout')
       RETURNING id
     ), queued AS (
       ${queueJobsFrom('retry', 'retried', { column: 'id', field: 'failedTxId' })}
     )
     SELECT id FROM retried ORDER BY id`,
    [distinct],
  );
  const queuedIds = rows.map((r) => r.id);
  return { queuedIds, skipped: distinct.length - queuedIds.length };
}
