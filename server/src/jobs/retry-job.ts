import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { SubmissionService } from '../modules/submission/submission.service.ts';
import { jobDone, type JobHandler } from './job-runner.ts';

/**
 * A failed submission staff chose to retry (POST /rest-api/retry-txs/update
 * marks it 'Retrying' and queues this job, once per row). It goes through
 * the same submission path as the user's request (decoding, pricing under its
 * client code, the node's verdict, recording), keeping the time the user
 * first submitted it. Success records the submission, which resolves the
 * failure row in the same statement; a new failure is added to the row's
 * errors and it is Failed again (or Timeout, when the node did not answer).
 */

interface FailedRow {
  txid: string;
  tx_hex: string;
  tx_hexes: string[] | null;
  submission_type: 'tx' | 'package';
  client_code: string | null;
  status: string;
  created_at: Date;
}

export function createRetryJob(deps: { db: Queryable; submission: Pick<SubmissionService, 'submitTx' | 'submitPackage'>; log: Logger }): JobHandler {
  const { db, submission, log } = deps;
  return async (job) => {
    const id = Number(job.payload.failedTxId);
    const { rows } = await db.query<FailedRow>(
      `SELECT txid, tx_hex, tx_hexes, submission_type, client_code, status, created_at FROM failed_txs WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row || row.status !== 'Retrying') return jobDone;
    const clientCode = row.client_code ?? undefined;
    const options = { createdAt: row.created_at.toISOString() };
    try {
      if (row.submission_type === 'package') await submission.submitPackage(row.tx_hexes ?? [row.tx_hex], clientCode, options);
      else await submission.submitTx(row.tx_hex, clientCode, options);
      // Recording resolved it; a transaction the node already held is not recorded again, so resolve it here too.
      await db.query(`UPDATE failed_txs SET status = 'Resolved', updated_at = now() WHERE id = $1 AND status = 'Retrying'`, [id]);
      log.info({ txid: row.txid, failedTxId: id }, 'A retried submission was accepted');
    } catch (error) {
      // Staff read this row: the node's own words, where the caller was told less.
      const message = error instanceof ApiError ? (error.staffDetail ?? error.message) : error instanceof Error ? error.message : String(error);
      // A failure the node could be asked about again was already recorded on this row by the submission path.
      await db.query(
        `UPDATE failed_txs SET status = 'Failed', errors = errors || ARRAY[$2::text], attempts = attempts + 1, updated_at = now()
         WHERE id = $1 AND status = 'Retrying'`,
        [id, message],
      );
      log.info({ txid: row.txid, failedTxId: id, err: message }, 'A retried submission failed again');
    }
    return jobDone;
  };
}
