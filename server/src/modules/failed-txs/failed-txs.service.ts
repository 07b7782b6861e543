import type { Database } from '../../db/database.ts';
import { explainRejectReason, isExplained, rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import { filterText, pageWindow, parseDateRange, totalPages } from '../../http/list-query.ts';
import { ApiError } from '../../http/errors.ts';
import { failedTxHex, listFailedTxs, type FailedTxFilters, type FailedTxRecord } from './failed-txs.repository.ts';
import { DEFAULT_FAILED_TX_STATUS, FAILED_TX_NOT_FOUND_MESSAGE, RETRY_SUCCESS_MESSAGE, type FailedTxHexResponse, type FailedTxListQuery, type FailedTxListResponse, type FailedTxRow, type FailedTxRetryResponse } from './failed-txs.schemas.ts';
import { queueRetries } from './failed-txs-retry.repository.ts';

/**
 * Failed Transactions (docs/behaviour.md#failed-transactions): every signed-in staff
 * member lists open failures; administrators move them into retry. The
 * outcome of a retry is the job runner's, and is not shown here
 * (docs/behaviour.md#failed-transactions); the request itself is in the
 * request audit trail.
 */
export interface FailedTxService {
  list(query: FailedTxListQuery): Promise<FailedTxListResponse>;
  retry(ids: readonly number[]): Promise<FailedTxRetryResponse>;
  /** One row's whole hex (the list carries it shortened); 404 for an unknown id. */
  hex(id: number): Promise<FailedTxHexResponse>;
}

/** The filters of a query; bad dates and an inverted range are 400s (parseDateRange). */
function failedTxFilters(query: FailedTxListQuery): FailedTxFilters {
  return {
    status: query.tx_status ?? DEFAULT_FAILED_TX_STATUS,
    // Txids are stored as the node reports them, in lower-case hex.
    txid: filterText(query.txid)?.toLowerCase(),
    clientCode: filterText(query.client_code),
    ...parseDateRange(query),
  };
}

/**
 * A kept error as staff read it: a node's refusal in plain words, then the
 * node's own (the table the submit page uses, bitcoin/reject-reasons.ts).
 * The row keeps the node's words; anything the table does not know (a
 * timeout, an unreachable node) is shown as it was kept.
 */
function explainError(error: string): string {
  return rejectReasonEntry(error) && !isExplained(error) ? explainRejectReason(error) : error;
}

function toRow(r: FailedTxRecord): FailedTxRow {
  return {
    id: r.id,
    txid: r.txid,
    tx_hex: r.tx_hex,
    tx_hex_length: r.tx_hex_length,
    client_code: r.client_code,
    timestamp: r.created_at.toISOString(),
    errors: r.errors.map(explainError),
    submission_type: r.submission_type,
    attempts: r.attempts,
    status: r.status,
  };
}

export function createFailedTxService(db: Database): FailedTxService {
  return {
    async list(query) {
      const window = pageWindow(query);
      const { records, ids } = await listFailedTxs(db, failedTxFilters(query), window);
      return { result: records.map(toRow), total_pages: totalPages(ids.length, window.limit), total_records: ids.length, ids };
    },
    async hex(id) {
      const found = await failedTxHex(db, id);
      if (!found) throw new ApiError(404, FAILED_TX_NOT_FOUND_MESSAGE);
      return found;
    },
    async retry(ids) {
      const { queuedIds, skipped } = await queueRetries(db, ids);
      return { status: 'success', message: RETRY_SUCCESS_MESSAGE, queued: queuedIds.length, skipped };
    },
  };
}
