import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { dayEnd, dayStart } from '../components/data-table/date-range.ts';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/txs/view']['get'];
export type FailedTxListResponse = Endpoint['responses'][200]['content']['application/json'];
export type FailedTxRow = FailedTxListResponse['result'][number];

/**
 * The filters as the address holds them ('' when unset; dates as
 * yyyy-MM-dd). tx_status '' is the server's default, Failed (SPEC.md section 9).
 */
export const FAILED_TX_FILTERS = ['txid', 'client_code', 'from_date', 'to_date', 'tx_status'] as const;
export type FailedTxFilters = Record<(typeof FAILED_TX_FILTERS)[number], string>;

/** Everything this endpoint answers, for invalidation after a retry. */
export const FAILED_TXS_KEY = ['txs', 'view'] as const;

export function fetchFailedTxs(page: number, limit: number, filters: FailedTxFilters, signal?: AbortSignal) {
  const query = listQueryString(page, limit, {
    ...filters,
    from_date: dayStart(filters.from_date),
    to_date: dayEnd(filters.to_date),
  });
  return apiCall<FailedTxListResponse>(`/rest-api/txs/view?${query}`, { staff: true, signal });
}

export const failedTxsQuery = (page: number, limit: number, filters: FailedTxFilters) =>
  queryOptions({
    queryKey: [...FAILED_TXS_KEY, page, limit, filters],
    queryFn: ({ signal }) => fetchFailedTxs(page, limit, filters, signal),
    // The previous page stays on screen while the next loads.
    placeholderData: keepPreviousData,
  });

export const useFailedTxs = (page: number, limit: number, filters: FailedTxFilters) => useQuery(failedTxsQuery(page, limit, filters));
