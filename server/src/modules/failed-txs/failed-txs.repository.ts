import type { Queryable } from '../../db/database.ts';
import { SqlParams, type PageWindow } from '../../db/sql.ts';
import type { TxStatus } from './failed-txs.schemas.ts';
import { SHORT_HEX_EDGE, SHORT_HEX_MAX } from './short-hex.ts';

/**
 * Reads the failed_txs table (migration 004_failed_txs.sql) for the staff
 * list. Every filter is an equality or a range on an indexed column: the
 * status with the date range and the newest-first order is
 * failed_txs_status_created_at_idx (status, created_at DESC, id DESC), which
 * also holds the id, so the list of every matching id is read from the index
 * alone; a txid or a client code narrows through failed_txs_txid_idx or
 * failed_txs_client_code_idx first.
 */

export interface FailedTxRecord {
  id: number;
  txid: string;
  /** Shortened (short-hex.ts): the list never reads the whole hex. */
  tx_hex: string;
  /** The whole hex's length in characters. */
  tx_hex_length: number;
  client_code: string | null;
  created_at: Date;
  errors: string[];
  submission_type: 'tx' | 'package';
  attempts: number;
  status: TxStatus;
}

/** The list's filters, parsed (failed-txs.service.ts reads them from a query). */
export interface FailedTxFilters {
  status: TxStatus;
  /** Lower-case hex: txids are stored as the node reports them. */
  txid?: string | undefined;
  clientCode?: string | undefined;
  /** Inclusive. */
  from?: Date | undefined;
  /** Exclusive. */
  toExclusive?: Date | undefined;
}

function conditions(filters: FailedTxFilters, param: SqlParams['param']): string {
  const where = [`status = ${param(filters.status)}`];
  if (filters.txid !== undefined) where.push(`txid = ${param(filters.txid)}`);
  if (filters.clientCode !== undefined) where.push(`client_code = ${param(filters.clientCode)}`);
  if (filters.from) where.push(`created_at >= ${param(filters.from)}`);
  if (filters.toExclusive) where.push(`created_at < ${param(filters.toExclusive)}`);
  return `WHERE ${where.join(' AND ')}`;
}

/**
 * One page of open failures, newest first, with every matching id (SPEC.md
 * section 3: failed tx lists also return ids, for select-all). The ids are
 * the total too, and say which rows make the page; the page query repeats
 * the filters so that a row retried in between is left out rather than
 * shown under a status it no longer has.
 */
export async function listFailedTxs(db: Queryable, filters: FailedTxFilters, { limit, offset }: PageWindow): Promise<{ records: FailedTxRecord[]; ids: number[] }> {
  const sql = new SqlParams();
  const where = conditions(filters, sql.param);
  const { rows: matching } = await db.query<{ id: number }>(`SELECT id FROM failed_txs ${where} ORDER BY created_at DESC, id DESC`, sql.values);
  const ids = matching.map((r) => r.id);
  const pageIds = ids.slice(offset, offset + limit);
  let rows: FailedTxRecord[] = [];
  if (pageIds.length > 0) {
    ({ rows } = await db.query<FailedTxRecord>(
      `SELECT id, txid, ${shortHexSql('tx_hex')} AS tx_hex, octet_length(tx_hex) AS tx_hex_length, client_code, created_at, errors, submission_type, attempts, status
         FROM failed_txs ${where} AND id = ANY(${sql.param(pageIds)}::bigint[])
        ORDER BY created_at DESC, id DESC`,
      sql.values,
    ));
  }
  return { records: rows, ids };
}

/** One failed submission's whole hex: its last (or only) transaction's, and every member's for a package; undefined for an unknown id. */
export async function failedTxHex(db: Queryable, id: number): Promise<{ id: number; txid: string; tx_hex: string; tx_hexes: string[] | null } | undefined> {
  const { rows } = await db.query<{ id: number; txid: string; tx_hex: string; tx_hexes: string[] | null }>(
    'SELECT id::int AS id, txid, tx_hex, tx_hexes FROM failed_txs WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** Rows one retention statement deletes at most: a long backlog goes in short statements, not one long lock. */
const RETENTION_BATCH = 1_000;

/**
 * Deletes failed submissions nobody touched (no new failure, no retry) for
 * `retentionDays` (FAILED_TX_RETENTION_DAYS), in batches through
 * failed_txs_updated_at_idx; returns how many went.
 */
export async function deleteExpiredFailedTxs(db: Queryable, retentionDays: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM failed_txs WHERE id IN (
         SELECT id FROM failed_txs WHERE updated_at < now() - make_interval(days => $1::int) ORDER BY updated_at LIMIT ${RETENTION_BATCH})`,
      [retentionDays],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < RETENTION_BATCH) return deleted;
  }
}

/** SQL: true when the failure row `f`'s transaction is recorded as submitted (a settled submission row, or a member of a recorded package). */
const RECORDED = `(EXISTS (SELECT 1 FROM tx_submissions s WHERE s.txid = f.txid AND s.status <> 'pending')
  OR EXISTS (SELECT 1 FROM package_tx_outcomes p WHERE p.txid = f.txid))`;

/** A failure row as a retry reads it. */
export interface FailureToRetry {
  txid: string;
  tx_hex: string;
  tx_hexes: string[] | null;
  submission_type: 'tx' | 'package';
  client_code: string | null;
  status: string;
  created_at: Date;
}

/** The failure row a retry job resubmits; undefined when it is gone. */
export async function failureToRetry(db: Queryable, id: number): Promise<FailureToRetry | undefined> {
  const { rows } = await db.query<FailureToRetry>(
    `SELECT txid, tx_hex, tx_hexes, submission_type, client_code, status, created_at FROM failed_txs WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** A retry the node refused again: Failed, with its error kept for staff. */
export async function retryFailedAgain(db: Queryable, id: number, error: string): Promise<void> {
  await db.query(
    `UPDATE failed_txs SET status = 'Failed', errors = errors || ARRAY[$2::text], attempts = attempts + 1, updated_at = now()
     WHERE id = $1 AND status = 'Retrying'`,
    [id, error],
  );
}

/** Resolves a retried row whose submission is recorded in the database; false when it is not (yet). */
export async function resolveRetryIfRecorded(db: Queryable, id: number): Promise<boolean> {
  const resolved = await db.query(`UPDATE failed_txs f SET status = 'Resolved', updated_at = now() WHERE f.id = $1 AND f.status = 'Retrying' AND ${RECORDED}`, [id]);
  return resolved.rowCount === 1;
}

/** A retry the node took with nothing recorded and nothing on the way: Failed again, unless a record arrived meanwhile. */
export async function retryFailedUnrecorded(db: Queryable, id: number, error: string): Promise<void> {
  await db.query(
    `UPDATE failed_txs f SET status = 'Failed', errors = errors || ARRAY[$2::text], attempts = attempts + 1, updated_at = now()
     WHERE f.id = $1 AND f.status = 'Retrying' AND NOT ${RECORDED}`,
    [id, error],
  );
}

/** SQL for the shortened form of a text column or expression holding hex. */
export const shortHexSql = (column: string): string =>
  `CASE WHEN octet_length(${column}) <= ${SHORT_HEX_MAX} THEN ${column} ELSE left(${column}, ${SHORT_HEX_EDGE}) || '…' || right(${column}, ${SHORT_HEX_EDGE}) END`;

/** SQL for the shortened forms of a text[] column, in order. */
export const shortHexesSql = (column: string): string =>
  `ARRAY(SELECT ${shortHexSql('h')} FROM unnest(${column}) WITH ORDINALITY AS u(h, n) ORDER BY n)`;

/** SQL for the lengths of a text[] column's items, in order. */
export const hexLengthsSql = (column: string): string =>
  `ARRAY(SELECT octet_length(h) FROM unnest(${column}) WITH ORDINALITY AS u(h, n) ORDER BY n)`;
