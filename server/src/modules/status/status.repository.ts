import type { Queryable } from '../../db/database.ts';
import { recordedByPortal } from '../submission/portal-records.repository.ts';
import type { RecordedSubmission } from './status-answers.ts';

/**
 * The portal's record of `txid`: whether it recorded it at all (a package
 * member or a failed attempt has no submission row), its submission row
 * when there is one, and when the portal first took it. One query, one row,
 * whatever the answer.
 *
 * First seen is the portal's own time: the earliest of its submission and
 * the packages that hold it, else (an attempt kept as failed, never
 * accepted) when that attempt was recorded. Never the node's entry time,
 * which tells when the pool got it through any other channel.
 */
export async function portalRecordOf(db: Queryable, txid: string): Promise<{ known: boolean; submission: RecordedSubmission | undefined; firstSeen: Date | null }> {
  const { rows } = await db.query<RecordedSubmission & { known: boolean; submitted: boolean; first_seen: Date | null }>(
    `SELECT s.size, s.vsize, s.weight, s.fee, s.functional_rate, s.created_at, s.status, s.block_hash, s.block_height, s.block_time,
            s.tx_hex, s.replaced_by, s.txid IS NOT NULL AS submitted, ${recordedByPortal('q.txid')} AS known,
            COALESCE(
              LEAST(s.created_at, (SELECT min(p.created_at) FROM package_submissions p WHERE p.txids @> ARRAY[q.txid])),
              (SELECT min(f.created_at) FROM failed_txs f WHERE f.txid = q.txid)) AS first_seen
     FROM (SELECT $1::text AS txid) q LEFT JOIN tx_submissions s ON s.txid = q.txid`,
    [txid],
  );
  const { known, submitted, first_seen: firstSeen, ...row } = rows[0]!;
  return { known, submission: submitted ? row : undefined, firstSeen };
}
