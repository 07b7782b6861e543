import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client-logs/list']['get'];
export type ClientLogListResponse = Endpoint['responses'][200]['content']['application/json'];
export type ClientLogRow = ClientLogListResponse['result'][number];

/** The filters as the address holds them; username is the Email filter, action '' for All. */
export const CLIENT_LOG_FILTERS = ['username', 'client_name', 'action'] as const;
export type ClientLogFilters = Record<(typeof CLIENT_LOG_FILTERS)[number], string>;

export const CLIENT_LOGS_KEY = ['client-logs', 'list'] as const;

export function fetchClientLogs(page: number, limit: number, filters: ClientLogFilters, signal?: AbortSignal) {
  return apiCall<ClientLogListResponse>(`/rest-api/client-logs/list?${listQueryString(page, limit, filters)}`, { staff: true, signal });
}

export const clientLogsQuery = (page: number, limit: number, filters: ClientLogFilters) =>
  queryOptions({
    queryKey: [...CLIENT_LOGS_KEY, page, limit, filters],
    queryFn: ({ signal }) => fetchClientLogs(page, limit, filters, signal),
    placeholderData: keepPreviousData,
  });

export const useClientLogs = (page: number, limit: number, filters: ClientLogFilters) => useQuery(clientLogsQuery(page, limit, filters));
