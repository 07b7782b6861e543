import type { Queryable } from '../db/database.ts';
import type { Logger } from '../lib/logger.ts';
import { deleteExpiredFailedTxs } from '../modules/failed-txs/failed-txs.repository.ts';

/**
 * Keeps failed submissions only as long as the operator wants them
 * (FAILED_TX_RETENTION_DAYS): a sweep when the jobs start, then one every
 * `sweepMs` (default hourly). Each instance sweeps; the deletes are
 * idempotent, so several instances on one database only repeat each other.
 */

export interface FailedTxRetentionOptions {
  db: Queryable;
  log: Logger;
  retentionDays: number;
  /** Between sweeps (default one hour). */
  sweepMs?: number;
}

export const DEFAULT_RETENTION_SWEEP_MS = 60 * 60_000;

/** Starts the sweeps; returns the stop function. */
export function startFailedTxRetention(options: FailedTxRetentionOptions): () => void {
  const { db, log, retentionDays } = options;
  const sweep = () => {
    deleteExpiredFailedTxs(db, retentionDays).then(
      (deleted) => {
        if (deleted > 0) log.info({ deleted, retentionDays }, 'Deleted failed submissions past their retention');
      },
      (error: unknown) => log.warn({ err: (error as Error).message }, 'Could not delete failed submissions past their retention'),
    );
  };
  sweep();
  const timer = setInterval(sweep, options.sweepMs ?? DEFAULT_RETENTION_SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
