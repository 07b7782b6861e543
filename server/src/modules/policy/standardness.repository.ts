import type { Queryable } from '../../db/database.ts';
import type { StandardVerdict } from './policy.schemas.ts';

/** The standardness columns of tx_submissions (migration 018) and package_submissions (migration 022). */

export interface RecordedStandardness {
  txid: string;
  verdict: StandardVerdict['verdict'];
  /** Core's reject code, for a non-standard one. */
  reasonCode: string | undefined;
}

/** Sets each submission's verdict; a txid without a row (not recorded, or still spooled) changes nothing. */
export async function recordStandardness(db: Queryable, verdicts: RecordedStandardness[]): Promise<void> {
  for (const v of verdicts) {
    await db.query('UPDATE tx_submissions SET standard_verdict = $2, standard_reason = $3 WHERE txid = $1', [v.txid, v.verdict, v.verdict === 'non-standard' ? (v.reasonCode ?? 'other') : null]);
  }
}

/** Sets an accepted package's verdict; a package without a row (not recorded, or still spooled) changes nothing. */
export async function recordPackageStandardness(db: Queryable, packageHash: string, v: Omit<RecordedStandardness, 'txid'>): Promise<void> {
  await db.query('UPDATE package_submissions SET standard_verdict = $2, standard_reason = $3 WHERE package_hash = $1', [packageHash, v.verdict, v.verdict === 'non-standard' ? (v.reasonCode ?? 'other') : null]);
}

export interface NonStandardCount {
  reason: string;
  count: number;
}

/** Non-standard submissions by reason, single transactions and packages, all time (the partial indexes of migrations 018 and 022). */
export async function nonStandardCounts(db: Queryable): Promise<NonStandardCount[]> {
  const { rows } = await db.query<{ reason: string; count: number }>(
    `SELECT reason, sum(n)::int AS count FROM (
       SELECT standard_reason AS reason, count(*) AS n FROM tx_submissions WHERE standard_verdict = 'non-standard' GROUP BY standard_reason
       UNION ALL
       SELECT standard_reason, count(*) FROM package_submissions WHERE standard_verdict = 'non-standard' GROUP BY standard_reason
     ) counts GROUP BY reason ORDER BY reason`,
  );
  return rows;
}
