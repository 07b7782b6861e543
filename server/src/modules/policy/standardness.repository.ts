import type { Queryable } from '../../db/database.ts';

/**
 * The standardness columns of tx_submissions (migration 018) and
 * package_submissions (migration 022), as the metrics read them. They are
 * written with the submissions they belong to (submission/standard-verdicts.repository.ts).
 */

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
