import type { Queryable } from '../../db/database.ts';
import { filterText, parseDateRange, type DateRange } from '../../http/list-query.ts';

/**
 * Reads the submissions staff pull (SPEC.md section 7, /rest-api/tx-puller/list)
 * and report on (tx-reports.repository.ts reuses the filters and the keyset
 * walk). Only what the node accepted is ever read: a tx_submissions row is
 * 'pending' while the node decides (007_pending_submissions.sql), and is
 * refused, and deleted, as often as not. Package rows hold only the members
 * the node took (submission/submit-package.ts), so all of them are listed.
 *
 * Every list is newest first in (created_at, id) order, the order of the
 * indexes of 011_operations_indexes.sql. Pages are LIMIT/OFFSET, as in the
 * other staff lists; downloads walk the same order in keyset pages (the next
 * page is the rows before the last one read), so every page of a million-row
 * download is one index range, and no connection or transaction is held
 * between pages: PGlite has one connection, which other requests need too.
 */

export interface SubmissionFilters extends DateRange {
  clientCode?: string;
  /** Lowercase: the node prints ids in lowercase, and that is how they are stored. */
  txid?: string;
}

export interface SubmissionFilterQuery {
  client_code?: string | undefined;
  txid?: string | undefined;
  from_date?: string | undefined;
  to_date?: string | undefined;
}

/** The filters of a query; bad dates and an inverted range are 400s (parseDateRange). */
export function submissionFilters(query: SubmissionFilterQuery): SubmissionFilters {
  const filters: SubmissionFilters = parseDateRange(query);
  const clientCode = filterText(query.client_code);
  if (clientCode !== undefined) filters.clientCode = clientCode;
  const txid = filterText(query.txid);
  if (txid !== undefined) filters.txid = txid.toLowerCase();
  return filters;
}

/** Collects a statement's parameters; `param` appends one and returns its placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  param = (value: unknown): string => {
    this.values.push(value);
    return `$${this.values.length}`;
  };
}

/** Where the walk has got to: the (created_at, id) of the last row read. created_at as Postgres prints it, to the microsecond. */
export interface KeysetCursor {
  at: string;
  id: number;
}

/** Rows strictly after `cursor` in newest-first order. */
export function keysetAfter(cursor: KeysetCursor, param: SqlParams['param']): string {
  return `(created_at, id) < (${param(cursor.at)}::timestamptz, ${param(cursor.id)}::bigint)`;
}

const dateConditions = (filters: SubmissionFilters, param: SqlParams['param']): string[] => [
  ...(filters.from ? [`created_at >= ${param(filters.from)}`] : []),
  ...(filters.toExclusive ? [`created_at < ${param(filters.toExclusive)}`] : []),
];

/**
 * Conditions on tx_submissions. The status test is written out as it stands
 * in the partial indexes' predicates, so that the planner can use them.
 */
export function txConditions(filters: SubmissionFilters, param: SqlParams['param']): string[] {
  const conditions = ["status <> 'pending'"];
  if (filters.clientCode !== undefined) conditions.push(`client_code = ${param(filters.clientCode)}`);
  if (filters.txid !== undefined) conditions.push(`txid = ${param(filters.txid)}`);
  return [...conditions, ...dateConditions(filters, param)];
}

/** Conditions on package_submissions; a txid matches any member (package_submissions_txids_idx, GIN). */
export function packageConditions(filters: SubmissionFilters, param: SqlParams['param']): string[] {
  const conditions: string[] = [];
  if (filters.clientCode !== undefined) conditions.push(`client_code = ${param(filters.clientCode)}`);
  if (filters.txid !== undefined) conditions.push(`txids @> ARRAY[${param(filters.txid)}::text]`);
  return [...conditions, ...dateConditions(filters, param)];
}

export const whereAll = (conditions: string[]) => (conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '');

export interface TxRecord {
  id: number;
  client_code: string | null;
  created_at: Date;
  txid: string;
  tx_hex: string;
  vsize: number | null;
  fee_rate: number;
  fee: number;
  multiplier: number;
}

export interface PackageRecord {
  id: number;
  client_code: string | null;
  created_at: Date;
  txids: string[];
  tx_hexes: string[];
  total_vsize: number | null;
  fee_rate: number | null;
  total_fee: number | null;
  multiplier: number | null;
}

const TX_COLUMNS = 'id, client_code, created_at, txid, tx_hex, vsize, fee_rate, fee, multiplier';
const PACKAGE_COLUMNS = 'id, client_code, created_at, txids, tx_hexes, total_vsize, fee_rate, total_fee, multiplier';

export type Table = 'tx_submissions' | 'package_submissions';
const TABLES: Record<Table, { columns: string; conditions: typeof txConditions }> = {
  tx_submissions: { columns: TX_COLUMNS, conditions: txConditions },
  package_submissions: { columns: PACKAGE_COLUMNS, conditions: packageConditions },
};

export async function countRows(db: Queryable, table: Table, filters: SubmissionFilters): Promise<number> {
  const sql = new SqlParams();
  const { rows } = await db.query<{ total: number }>(`SELECT count(*) AS total FROM ${table} ${whereAll(TABLES[table].conditions(filters, sql.param))}`, sql.values);
  return rows[0]?.total ?? 0;
}

async function pageRows<R>(db: Queryable, table: Table, filters: SubmissionFilters, limit: number, offset: number): Promise<R[]> {
  const sql = new SqlParams();
  const { columns, conditions } = TABLES[table];
  const { rows } = await db.query<R>(
    `SELECT ${columns} FROM ${table} ${whereAll(conditions(filters, sql.param))}
      ORDER BY created_at DESC, id DESC LIMIT ${sql.param(limit)} OFFSET ${sql.param(offset)}`,
    sql.values,
  );
  return rows;
}

/** One page of accepted single transactions, with the number matching over all pages. */
export async function pageTxSubmissions(db: Queryable, filters: SubmissionFilters, limit: number, offset: number): Promise<{ rows: TxRecord[]; total: number }> {
  const [rows, total] = await Promise.all([pageRows<TxRecord>(db, 'tx_submissions', filters, limit, offset), countRows(db, 'tx_submissions', filters)]);
  return { rows, total };
}

export async function pagePackageSubmissions(db: Queryable, filters: SubmissionFilters, limit: number, offset: number): Promise<{ rows: PackageRecord[]; total: number }> {
  const [rows, total] = await Promise.all([pageRows<PackageRecord>(db, 'package_submissions', filters, limit, offset), countRows(db, 'package_submissions', filters)]);
  return { rows, total };
}

/**
 * Rows per keyset page of a download. Measured at a million rows
 * (server/bench/csv-export.ts), 250 against 1,000: on PGlite, whose queries
 * run on the server's thread, a page holds the thread half as long (p99
 * stall 25 ms against 40 ms), and the server's peak memory during the export
 * was lower in most runs; 1,000 exported up to 20% faster on PGlite and about
 * as fast on Postgres.
 */
export const DEFAULT_BATCH_SIZE = 250;

/**
 * Every matching row, newest first, in batches of `batchSize`, each batch
 * read when the previous one has been taken. `statement` gives the SQL for
 * the rows after a cursor (none for the first batch), in the walk's order;
 * `cursorOf` says where a row leaves the walk.
 */
export async function* keysetBatches<R, C>(
  db: Queryable,
  batchSize: number,
  cursorOf: (row: R) => C,
  statement: (after: C | undefined, limit: number) => { sql: string; params: unknown[] },
): AsyncGenerator<R[]> {
  let after: C | undefined;
  for (;;) {
    const { sql, params } = statement(after, batchSize);
    const { rows } = await db.query<R>(sql, params);
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    after = cursorOf(rows[rows.length - 1]!);
  }
}

function tableBatches<R extends { id: number; cursor_at: string }>(db: Queryable, table: Table, filters: SubmissionFilters, batchSize: number): AsyncGenerator<R[]> {
  const { columns, conditions } = TABLES[table];
  const cursorOf = (row: R): KeysetCursor => ({ at: row.cursor_at, id: row.id });
  return keysetBatches<R, KeysetCursor>(db, batchSize, cursorOf, (after, limit) => {
    const sql = new SqlParams();
    const where = conditions(filters, sql.param);
    if (after) where.push(keysetAfter(after, sql.param));
    return {
      // created_at as text keeps its microseconds, which a JavaScript Date would round away.
      sql: `SELECT ${columns}, created_at::text AS cursor_at FROM ${table} ${whereAll(where)}
             ORDER BY created_at DESC, id DESC LIMIT ${sql.param(limit)}`,
      params: sql.values,
    };
  });
}

export const txSubmissionBatches = (db: Queryable, filters: SubmissionFilters, batchSize = DEFAULT_BATCH_SIZE) =>
  tableBatches<TxRecord & { cursor_at: string }>(db, 'tx_submissions', filters, batchSize);

export const packageSubmissionBatches = (db: Queryable, filters: SubmissionFilters, batchSize = DEFAULT_BATCH_SIZE) =>
  tableBatches<PackageRecord & { cursor_at: string }>(db, 'package_submissions', filters, batchSize);
