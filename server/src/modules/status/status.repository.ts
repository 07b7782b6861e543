import type { Queryable } from '../../db/database.ts';
import { recordedByPortal } from '../submission/portal-records.repository.ts';
import type { RecordedSubmission } from './status-answers.ts';

/**
 * The portal's record of `txid`: whether it recorded it at all (a package
 * member or a failed attempt has no submission row), and its submission
 * row when there is one. One query, one row, whatever the answer.
 */
export async function portalRecordOf(db: Queryable, txid: string): Promise<{ known: boolean; submission: RecordedSubmission | undefined }> {
  const { rows } = await db.query<RecordedSubmission & { known: boolean; submitted: boolean }>(
    `SELECT s.size, s.vsize, s.weight, s.fee, s.functional_rate, s.created_at, s.status, s.block_hash, s.block_height, s.block_time,
            s.tx_hex, s.replaced_by, s.txid IS NOT NULL AS submitted, ${recordedByPortal('q.txid')} AS known
     FROM (SELECT $1::text AS txid) q LEFT JOIN tx_submissions s ON s.txid = q.txid`,
    [txid],
  );
  const { known, submitted, ...row } = rows[0]!;
  return { known, submission: submitted ? row : undefined };
}
