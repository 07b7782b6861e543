import type { Queryable } from '../../db/database.ts';
import { keysetAfter, keysetBatches, SqlParams, whereAll, type KeysetCursor, type Page, type PageWindow } from '../../db/sql.ts';
import { hexLengthsSql, shortHexesSql, shortHexSql } from '../failed-txs/failed-txs.repository.ts';
import { CONDITIONS, countAccepted, DEFAULT_BATCH_SIZE, type SubmissionFilters, type SubmissionTable } from '../accepted-submissions/accepted-submissions.repository.ts';

/**
 * Reads the submissions staff pull (docs/behaviour.md#staff-calls, /rest-api/tx-puller/list),
 * one table at a time, with the filters every accepted-submission list
 * shares (accepted-submissions.repository.ts). Pages are LIMIT/OFFSET, as in
 * the other staff lists; downloads walk the same newest-first order in
 * keyset batches (the next batch is the rows before the last one read), so
 * every batch of a million-row download is one index range.
 */

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

const COLUMNS: Record<SubmissionTable, string> = { tx_submissions: TX_COLUMNS, package_submissions: PACKAGE_COLUMNS };

/** A page's columns: the hex shortened in SQL, with its whole length (short-hex.ts); downloads keep COLUMNS, whole. */
const PAGE_COLUMNS: Record<SubmissionTable, string> = {
  tx_submissions: `id, client_code, created_at, txid, ${shortHexSql('tx_hex')} AS tx_hex, octet_length(tx_hex) AS tx_hex_length, vsize, fee_rate, fee, multiplier`,
  package_submissions: `id, client_code, created_at, txids, ${shortHexesSql('tx_hexes')} AS tx_hexes, ${hexLengthsSql('tx_hexes')} AS tx_hex_lengths, total_vsize, fee_rate, total_fee, multiplier`,
};

async function pageRows<R>(db: Queryable, table: SubmissionTable, filters: SubmissionFilters, { limit, offset }: PageWindow): Promise<R[]> {
  const sql = new SqlParams();
  const { rows } = await db.query<R>(
    `SELECT ${PAGE_COLUMNS[table]} FROM ${table} ${whereAll(CONDITIONS[table](filters, sql.param))}
      ORDER BY created_at DESC, id DESC LIMIT ${sql.param(limit)} OFFSET ${sql.param(offset)}`,
    sql.values,
  );
  return rows;
}

/** A page's row: tx_hex shortened (short-hex.ts), with the whole length. */
export type TxPageRecord = TxRecord & { tx_hex_length: number };
/** A page's row: tx_hexes shortened, with each whole length. */
export type PackagePageRecord = PackageRecord & { tx_hex_lengths: number[] };

/** One page of accepted single transactions, with the number matching over all pages. */
export async function pageTxSubmissions(db: Queryable, filters: SubmissionFilters, window: PageWindow): Promise<Page<TxPageRecord>> {
  const [records, total] = await Promise.all([pageRows<TxPageRecord>(db, 'tx_submissions', filters, window), countAccepted(db, 'tx_submissions', filters)]);
  return { records, total };
}

export async function pagePackageSubmissions(db: Queryable, filters: SubmissionFilters, window: PageWindow): Promise<Page<PackagePageRecord>> {
  const [records, total] = await Promise.all([pageRows<PackagePageRecord>(db, 'package_submissions', filters, window), countAccepted(db, 'package_submissions', filters)]);
  return { records, total };
}

/** One accepted submission's whole hex, by table and row id: a single transaction's as a list of one; undefined for an unknown id. */
export async function submissionHexes(db: Queryable, table: SubmissionTable, id: number): Promise<{ id: number; txids: string[]; txs_hex: string[] } | undefined> {
  const { rows } = await db.query<{ id: number; txids: string[]; txs_hex: string[] }>(
    table === 'tx_submissions'
      ? `SELECT id::int AS id, ARRAY[txid] AS txids, ARRAY[tx_hex] AS txs_hex FROM tx_submissions WHERE id = $1 AND status <> 'pending'`
      : 'SELECT id::int AS id, txids, tx_hexes AS txs_hex FROM package_submissions WHERE id = $1',
    [id],
  );
  return rows[0];
}

function tableBatches<R extends { id: number; cursor_at: string }>(db: Queryable, table: SubmissionTable, filters: SubmissionFilters, batchSize: number): AsyncGenerator<R[]> {
  const cursorOf = (row: R): KeysetCursor => ({ at: row.cursor_at, id: row.id });
  return keysetBatches<R, KeysetCursor>(db, batchSize, cursorOf, (after, limit) => {
    const sql = new SqlParams();
    const where = CONDITIONS[table](filters, sql.param);
    if (after) where.push(keysetAfter(after, sql.param));
    return {
      // created_at as text keeps its microseconds, which a JavaScript Date would round away.
      sql: `SELECT ${COLUMNS[table]}, created_at::text AS cursor_at FROM ${table} ${whereAll(where)}
             ORDER BY created_at DESC, id DESC LIMIT ${sql.param(limit)}`,
      params: sql.values,
    };
  });
}

export const txSubmissionBatches = (db: Queryable, filters: SubmissionFilters, batchSize = DEFAULT_BATCH_SIZE) =>
  tableBatches<TxRecord & { cursor_at: string }>(db, 'tx_submissions', filters, batchSize);

export const packageSubmissionBatches = (db: Queryable, filters: SubmissionFilters, batchSize = DEFAULT_BATCH_SIZE) =>
  tableBatches<PackageRecord & { cursor_at: string }>(db, 'package_submissions', filters, batchSize);
