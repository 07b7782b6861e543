import type { Queryable } from '../../db/database.ts';
import { keysetAfter, keysetBatches, SqlParams, whereAll, type Page, type PageWindow, type Param } from '../../db/sql.ts';
import {
  countAccepted,
  DEFAULT_BATCH_SIZE,
  packageConditions,
  txConditions,
  type SubmissionFilters,
} from '../accepted-submissions/accepted-submissions.repository.ts';

/**
 * Reads TX Reports (docs/behaviour.md#staff-calls, /rest-api/tx-reports/list): accepted
 * single transactions and packages, one row each, merged newest first.
 *
 * The merged order is (created_at, kind, id) descending, kind 1 for a single
 * transaction and 0 for a package, so rows of the same instant still have
 * one order. Each table's branch reads its own index in (created_at, id)
 * order and stops after as many rows as the page can need; Postgres merges
 * the two (Merge Append) and sorts only rows of equal instants, so a page
 * costs what its depth costs, as in the other lists. Downloads walk the same
 * order in keyset batches: after the cursor (at, kind, id), a branch of kind
 * k' takes
 *   k' = kind:  (created_at, id) < (at, id)
 *   k' < kind:  created_at <= at   (same instant, lower kind: after it)
 *   k' > kind:  created_at < at
 * which keeps each branch one index range.
 */

export interface ReportRecord {
  /** 1: tx_submissions; 0: package_submissions. */
  kind: 0 | 1;
  id: number;
  created_at: Date;
  client_code: string | null;
  txid: string | null;
  txids: string[] | null;
  size: number | null;
  fee_rate: number | null;
  multiplier: number | null;
  fee: number | null;
  market_rate: number | null;
  /** Whether the public network would have relayed it (migration 018); always null for a package. */
  standard_verdict: 'standard' | 'non-standard' | 'unknown' | null;
  standard_reason: string | null;
  /** Every relay policy's verdict in a line (migration 031); null when not judged. */
  relay_policies: string | null;
}

interface ReportCursor {
  at: string;
  kind: 0 | 1;
  id: number;
}

const TX_KIND = 1;
const PACKAGE_KIND = 0;

function branchAfter(branchKind: 0 | 1, after: ReportCursor, param: Param): string {
  if (branchKind === after.kind) return keysetAfter(after, param);
  return branchKind < after.kind ? `created_at <= ${param(after.at)}::timestamptz` : `created_at < ${param(after.at)}::timestamptz`;
}

/** The merged rows, in report order; `branchLimit` bounds each branch (the rows any page or batch can need). */
function mergedSql(filters: SubmissionFilters, sql: SqlParams, branchLimit: number, after: ReportCursor | undefined, withCursor: boolean): string {
  const tx = txConditions(filters, sql.param);
  const packages = packageConditions(filters, sql.param);
  if (after) {
    tx.push(branchAfter(TX_KIND, after, sql.param));
    packages.push(branchAfter(PACKAGE_KIND, after, sql.param));
  }
  const cursor = withCursor ? ', created_at::text AS cursor_at' : '';
  const limit = sql.param(branchLimit);
  return `(SELECT ${TX_KIND} AS kind, id, created_at, client_code, txid, NULL::text[] AS txids, vsize AS size, fee_rate, multiplier,
                  fee, market_rate, standard_verdict, standard_reason, relay_policies${cursor}
             FROM tx_submissions ${whereAll(tx)} ORDER BY created_at DESC, id DESC LIMIT ${limit})
          UNION ALL
          (SELECT ${PACKAGE_KIND}, id, created_at, client_code, NULL, txids, total_vsize, fee_rate, multiplier,
                  total_fee, market_rate, standard_verdict, standard_reason, relay_policies${cursor}
             FROM package_submissions ${whereAll(packages)} ORDER BY created_at DESC, id DESC LIMIT ${limit})
          ORDER BY created_at DESC, kind DESC, id DESC`;
}

/** One page of the report, with the number of rows over all pages. */
export async function pageReport(db: Queryable, filters: SubmissionFilters, { limit, offset }: PageWindow): Promise<Page<ReportRecord>> {
  const sql = new SqlParams();
  const merged = mergedSql(filters, sql, offset + limit, undefined, false);
  const [page, singles, packages] = await Promise.all([
    db.query<ReportRecord>(`${merged} LIMIT ${sql.param(limit)} OFFSET ${sql.param(offset)}`, sql.values),
    countAccepted(db, 'tx_submissions', filters),
    countAccepted(db, 'package_submissions', filters),
  ]);
  return { records: page.rows, total: singles + packages };
}

/** Every matching row in report order, in batches (see keysetBatches). */
export function reportBatches(db: Queryable, filters: SubmissionFilters, batchSize = DEFAULT_BATCH_SIZE): AsyncGenerator<Array<ReportRecord & { cursor_at: string }>> {
  type Row = ReportRecord & { cursor_at: string };
  const cursorOf = (row: Row): ReportCursor => ({ at: row.cursor_at, kind: row.kind, id: row.id });
  return keysetBatches<Row, ReportCursor>(db, batchSize, cursorOf, (after, limit) => {
    const sql = new SqlParams();
    const merged = mergedSql(filters, sql, limit, after, true);
    return { sql: `${merged} LIMIT ${sql.param(limit)}`, params: sql.values };
  });
}
