import type { Queryable } from '../../db/database.ts';
import { filterText, pageWindow, parseDateRange, totalPages } from '../../http/list-query.ts';
import { DEFAULT_TX_STATUS, type FailedTxListQuery, type FailedTxListResponse, type FailedTxRow, type TxStatus } from './failed-txs.schemas.ts';

/**
 * Reads the failed_txs table (migration 004_failed_txs.sql) for the staff
 * list. Every filter is an equality or a range on an indexed column: the
 * status with the date range and the newest-first order is
 * failed_txs_status_created_at_idx (status, created_at DESC, id DESC), which
 * also holds the id, so the list of every matching id is read from the index
 * alone; a txid or a client code narrows through failed_txs_txid_idx or
 * failed_txs_client_code_idx first.
 */

interface FailedTxRecord {
  id: number;
  txid: string;
  tx_hex: string;
  client_code: string | null;
  created_at: Date;
  errors: string[];
  submission_type: 'tx' | 'package';
  attempts: number;
  status: TxStatus;
}

function failedTxFilters(query: FailedTxListQuery): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions = [`status = ${param(query.tx_status ?? DEFAULT_TX_STATUS)}`];
  // Txids are stored as the node reports them, in lower-case hex.
  const txid = filterText(query.txid);
  if (txid !== undefined) conditions.push(`txid = ${param(txid.toLowerCase())}`);
  const clientCode = filterText(query.client_code);
  if (clientCode !== undefined) conditions.push(`client_code = ${param(clientCode)}`);
  const { from, toExclusive } = parseDateRange(query);
  if (from) conditions.push(`created_at >= ${param(from)}`);
  if (toExclusive) conditions.push(`created_at < ${param(toExclusive)}`);
  return { where: `WHERE ${conditions.join(' AND ')}`, params };
}

function toRow(r: FailedTxRecord): FailedTxRow {
  return {
    id: r.id,
    txid: r.txid,
    tx_hex: r.tx_hex,
    client_code: r.client_code,
    timestamp: r.created_at.toISOString(),
    errors: r.errors,
    submission_type: r.submission_type,
    attempts: r.attempts,
    status: r.status,
  };
}

/**
 * One page of open failures, newest first, with every matching id (SPEC.md
 * section 3: failed tx lists also return ids, for select-all). The ids are
 * the total too, and say which rows make the page; the page query repeats
 * the filters so that a row retried in between is left out rather than
 * shown under a status it no longer has.
 */
export async function listFailedTxs(db: Queryable, query: FailedTxListQuery): Promise<FailedTxListResponse> {
  const { where, params } = failedTxFilters(query);
  const { limit, offset } = pageWindow(query);
  const { rows: matching } = await db.query<{ id: number }>(`SELECT id FROM failed_txs ${where} ORDER BY created_at DESC, id DESC`, params);
  const ids = matching.map((r) => r.id);
  const pageIds = ids.slice(offset, offset + limit);
  let rows: FailedTxRecord[] = [];
  if (pageIds.length > 0) {
    ({ rows } = await db.query<FailedTxRecord>(
      `SELECT id, txid, tx_hex, client_code, created_at, errors, submission_type, attempts, status
         FROM failed_txs ${where} AND id = ANY($${params.length + 1}::bigint[])
        ORDER BY created_at DESC, id DESC`,
      [...params, pageIds],
    ));
  }
  return { result: rows.map(toRow), total_pages: totalPages(ids.length, limit), total_records: ids.length, ids };
}
