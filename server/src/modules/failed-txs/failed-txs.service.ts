import type { Database } from '../../db/database.ts';
import { listFailedTxs } from './failed-txs.repository.ts';
import { RETRY_SUCCESS_MESSAGE, type FailedTxListQuery, type FailedTxListResponse, type RetryResponse } from './failed-txs.schemas.ts';
import { queueRetries } from './retry-queue.ts';

/**
 * Failed Transactions (SPEC.md sections 2, 4 and 6): every signed-in staff
 * member lists open failures; administrators move them into retry. The
 * outcome of a retry is the job runner's, and is not shown here (SPEC.md
 * section 4); the request itself is in the request audit trail.
 */
export interface FailedTxService {
  list(query: FailedTxListQuery): Promise<FailedTxListResponse>;
  retry(ids: readonly number[]): Promise<RetryResponse>;
}

export function createFailedTxService(db: Database): FailedTxService {
  return {
    list: (query) => listFailedTxs(db, query),
    async retry(ids) {
      const { queuedIds, skipped } = await queueRetries(db, ids);
      return { status: 'success', message: RETRY_SUCCESS_MESSAGE, queued: queuedIds.length, skipped };
    },
  };
}
