import type { Database, Queryable } from '../../db/database.ts';
import type { FailureStorageBound } from './failed-tx-storage.ts';
import { SqlParams, txidStartsWith, type PageWindow } from '../../db/sql.ts';
import type { FailedTxStatus } from './failed-txs.schemas.ts';
import { SHORT_HEX_EDGE, SHORT_HEX_MAX } from './short-hex.ts';

/**
 * Reads the failed_txs table (migration 004_failed_txs.sql) for the staff
 * list. Every filter is an equality, a range or a start on an indexed column: the
 * status with the date range and the newest-first order is
 * failed_txs_status_created_at_idx (status, created_at DESC, id DESC), which
 * also holds the id, so the list of every matching id is read from the index
 * alone; a txid (or its start) or a client code narrows through
 * failed_txs_txid_idx (failed_txs_txid_prefix_idx) or
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
  status: FailedTxStatus;
}

/** The list's filters, parsed (failed-txs.service.ts reads them from a query). */
export interface FailedTxFilters {
  status: FailedTxStatus;
  /** A txid or its start, in lower-case hex: txids are stored as the node reports them. */
  txid?: string | undefined;
  clientCode?: string | undefined;
  /** Inclusive. */
  from?: Date | undefined;
  /** Exclusive. */
  toExclusive?: Date | undefined;
}

function conditions(filters: FailedTxFilters, param: SqlParams['param']): string {
  const where = [`status = ${param(filters.status)}`];
  if (filters.txid !== undefined) where.push(txidStartsWith('txid', filters.txid, param));
  if (filters.clientCode !== undefined) where.push(`client_code = ${param(filters.clientCode)}`);
  if (filters.from) where.push(`created_at >= ${param(filters.from)}`);
  if (filters.toExclusive) where.push(`created_at < ${param(filters.toExclusive)}`);
  return `WHERE ${where.join(' AND ')}`;
}

/**
 * One page of open failures, newest first, with every matching id (docs/behaviour.md#data-shapes:
 * failed tx lists also return ids, for select-all). The ids are
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

/**
 * SQL closing the open failures (Failed, Timeout, Retrying) of the txids
 * `txids` names (`$1`, or `ANY($1::text[])`): Resolved. For the statement
 * that records a submission, so that a retry that worked and its record
 * commit together (submission.repository.ts).
 */
export function resolveOpenFailuresSql(txids: string): string {
  return `UPDATE failed_txs SET status = 'Resolved', updated_at = now()
       WHERE txid = ${txids} AND status IN ('Failed', 'Timeout', 'Retrying')`;
}

export interface NewFailure {
  txid: string;
  txHex: string;
  txHexes: string[] | null;
  submissionType: 'tx' | 'package';
  clientCode: string | null;
  status: 'Failed' | 'Timeout';
  error: string;
  /**
   * The address group of the caller it is kept for (an IPv4 address or an
   * IPv6 /64): its rows and bytes of the last day are bounded. None for a
   * staff retry, which adds no row the bound would count.
   */
  clientAddress?: string | undefined;
}

/** An open row keeps at most this many of its latest errors: a stranger resubmitting one transaction all day grows no list without end. */
export const MAX_KEPT_ERRORS = 50;

/** The first key of the advisory lock that serializes one address's bound check and insert (the second is the address's hash). */
const FAILURE_BOUND_LOCK = 4_023;

/** The bytes of transaction hex a failure row holds: what the bound counts. */
export function storedBytes(f: Pick<NewFailure, 'txHex' | 'txHexes'>): number {
  return f.txHex.length + (f.txHexes ?? []).reduce((sum, hex) => sum + hex.length, 0);
}

/**
 * One open failure row per transaction: a repeated failure appends its error
 * and counts the attempt instead of adding a row (only the latest
 * MAX_KEPT_ERRORS errors are kept). A new row for a client address is added
 * only while that address's rows of the last 24 hours stay within `bound`
 * in number and in bytes of hex; past it nothing is written and
 * 'over-bound' is returned (the caller has its refusal all the same). The
 * check and the insert hold a per-address advisory lock, so concurrent
 * requests from one address cannot pass the bound together.
 */
export async function recordFailure(db: Database, f: NewFailure, bound: FailureStorageBound): Promise<'kept' | 'over-bound'> {
  const bytes = storedBytes(f);
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE failed_txs
          SET errors = (errors || ARRAY[$2::text])[greatest(1, cardinality(errors) + 2 - ${MAX_KEPT_ERRORS}):],
              status = $3, attempts = attempts + 1, updated_at = now()
        WHERE txid = $1 AND status IN ('Failed', 'Timeout', 'Retrying')`,
      [f.txid, f.error, f.status],
    );
    if (rowCount && rowCount > 0) return 'kept';
    if (f.clientAddress !== undefined) {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FAILURE_BOUND_LOCK, f.clientAddress]);
      const { rows } = await tx.query<{ rows: string; bytes: string }>(
        `SELECT count(*) AS rows, COALESCE(sum(stored_bytes), 0) AS bytes FROM failed_txs
          WHERE client_address = $1 AND created_at > now() - interval '1 day'`,
        [f.clientAddress],
      );
      const used = rows[0]!;
      if (Number(used.rows) + 1 > bound.maxRowsPerAddressPerDay || Number(used.bytes) + bytes > bound.maxBytesPerAddressPerDay) return 'over-bound';
    }
    await tx.query(
      `INSERT INTO failed_txs (txid, tx_hex, tx_hexes, submission_type, client_code, status, errors, client_address, stored_bytes)
       VALUES ($1, $2, $3, $4, $5, $6, ARRAY[$7::text], $8, $9)
       ON CONFLICT (txid) WHERE status IN ('Failed', 'Timeout', 'Retrying')
       DO UPDATE SET errors = (failed_txs.errors || EXCLUDED.errors)[greatest(1, cardinality(failed_txs.errors) + 2 - ${MAX_KEPT_ERRORS}):],
                     status = EXCLUDED.status, attempts = failed_txs.attempts + 1, updated_at = now()`,
      [f.txid, f.txHex, f.txHexes, f.submissionType, f.clientCode, f.status, f.error, f.clientAddress ?? null, bytes],
    );
    return 'kept';
  });
}

