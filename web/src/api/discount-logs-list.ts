import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/discount-logs/list']['get'];
export type DiscountLogListResponse = Endpoint['responses'][200]['content']['application/json'];
export type DiscountLogRow = DiscountLogListResponse['result'][number];

/** The filters as the address holds them; username is the Email filter, action '' for All. */
export const DISCOUNT_LOG_FILTERS = ['client_code', 'username', 'action'] as const;
export type DiscountLogFilters = Record<(typeof DISCOUNT_LOG_FILTERS)[number], string>;

export const DISCOUNT_LOGS_KEY = ['discount-logs', 'list'] as const;

export function fetchDiscountLogs(page: number, limit: number, filters: DiscountLogFilters, signal?: AbortSignal) {
  return apiCall<DiscountLogListResponse>(`/rest-api/discount-logs/list?${listQueryString(page, limit, filters)}`, { staff: true, signal });
}

export const discountLogsQuery = (page: number, limit: number, filters: DiscountLogFilters) =>
  queryOptions({
    queryKey: [...DISCOUNT_LOGS_KEY, page, limit, filters],
    queryFn: ({ signal }) => fetchDiscountLogs(page, limit, filters, signal),
    placeholderData: keepPreviousData,
  });

export const useDiscountLogs = (page: number, limit: number, filters: DiscountLogFilters) => useQuery(discountLogsQuery(page, limit, filters));
