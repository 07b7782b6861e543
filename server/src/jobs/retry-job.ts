import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { RecordKeeper } from '../modules/submission/record-keeper.ts';
import type { SubmissionService } from '../modules/submission/submission.service.ts';
import { failureToRetry, resolveRetryIfRecorded, retryFailedAgain, retryFailedUnrecorded } from '../modules/failed-txs/failed-txs.repository.ts';
import { jobDone, type JobHandler } from './job-runner.ts';

/**
 * A failed submission staff chose to retry (POST /rest-api/retry-txs/update
 * marks it 'Retrying' and queues this job, once per row). It goes through
 * the same submission path as the user's request (decoding, pricing under its
 * client code, the node's verdict, recording), keeping the time the user
 * first submitted it. Success records the submission, which resolves the
 * failure row in the same statement; a new failure is added to the row's
 * errors and it is Failed again (or Timeout, when the node did not answer).
 *
 * A failure reads Resolved only once its submission is recorded: a reader
 * never sees it resolved while the submission row is still pending. The
 * user's answer does not wait for the record to be written; a retry does
 * (waitForRecord), then resolves the row only if the record is in the
 * database, in the same statement that checks it. A record that could only
 * be spooled (the database failing) leaves the row Retrying; replaying the
 * spool writes the record and resolves it together. A transaction the node
 * took but the portal did not record (the node holds another copy of it, or
 * it pays less than the portal asks now and was left where it was) is
 * Failed again, saying so.
 */

/** The staff-facing error of a retry the node took without the portal recording a submission. */
export const NOT_RECORDED_ERROR =
  'The node holds this transaction, but no submission of it was recorded here: the node holds another copy of it (same txid, other witness), or it pays less than the portal asks now.';

export interface RetryJobDeps {
  db: Queryable;
  submission: Pick<SubmissionService, 'submitTx' | 'submitPackage'>;
  /** This instance's record keeper: a record the retry's submission could only spool waits there. */
  records: Pick<RecordKeeper, 'spooled'>;
  log: Logger;
}

export function createRetryJob(deps: RetryJobDeps): JobHandler {
  const { db, submission, records, log } = deps;
  return async (job) => {
    const id = Number(job.payload.failedTxId);
    const row = await failureToRetry(db, id);
    if (!row || row.status !== 'Retrying') return jobDone;
    const clientCode = row.client_code ?? undefined;
    const options = { createdAt: row.created_at.toISOString(), waitForRecord: true };
    try {
      if (row.submission_type === 'package') await submission.submitPackage(row.tx_hexes ?? [row.tx_hex], clientCode, options);
      else await submission.submitTx(row.tx_hex, clientCode, options);
    } catch (error) {
      // Staff read this row: the node's own words, where the caller was told less.
      const message = error instanceof ApiError ? (error.staffDetail ?? error.message) : error instanceof Error ? error.message : String(error);
      // A failure the node could be asked about again was already recorded on this row by the submission path.
      await retryFailedAgain(db, id, message);
      log.info({ txid: row.txid, failedTxId: id, err: message }, 'A retried submission failed again');
      return jobDone;
    }
    await settleAccepted(id, row.txid);
    return jobDone;
  };

  /** The node took the retried transaction and its record is written or spooled: the row follows the record. */
  async function settleAccepted(id: number, txid: string): Promise<void> {
    // Recording it resolved the row already, in the same statement; this resolves one recorded by another path
    // (a copy submitted earlier, a package), and only if that record is in the database.
    if (await resolveRetryIfRecorded(db, id)) {
      log.info({ txid, failedTxId: id }, 'A retried submission was accepted');
      return;
    }
    if (await records.spooled(txid)) {
      log.warn({ txid, failedTxId: id }, 'A retried submission was accepted; it stays Retrying until its spooled record reaches the database');
      return;
    }
    // Nothing recorded and nothing on the way (a spool replay since would have resolved it: then this changes nothing).
    await retryFailedUnrecorded(db, id, NOT_RECORDED_ERROR);
    log.warn({ txid, failedTxId: id }, 'A retried submission was taken by the node but not recorded');
  }
}
