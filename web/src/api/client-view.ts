import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client/view']['get'];
type ViewResponse = Endpoint['responses'][200]['content']['application/json'];
/** The page of clients (without list_clients). */
export type ClientListResponse = Extract<ViewResponse, { result: unknown }>;
export type ClientRow = ClientListResponse['result'][number];
/** Every client name (with list_clients), for the discount form's picker. */
export type ClientNamesResponse = Extract<ViewResponse, { client_names: unknown }>;

/** The filters as the address holds them ('' when unset). */
export const CLIENT_FILTERS = ['client_name', 'email', 'organization_name'] as const;
export type ClientFilters = Record<(typeof CLIENT_FILTERS)[number], string>;

/** Everything this endpoint answers: the pages and the names list. */
export const CLIENT_LIST_KEY = ['client', 'view'] as const;

export function fetchClientList(page: number, limit: number, filters: ClientFilters, signal?: AbortSignal) {
  return apiCall<ClientListResponse>(`/rest-api/client/view?${listQueryString(page, limit, filters)}`, { staff: true, signal });
}

export const clientListQuery = (page: number, limit: number, filters: ClientFilters) =>
  queryOptions({
    queryKey: [...CLIENT_LIST_KEY, 'page', page, limit, filters],
    queryFn: ({ signal }) => fetchClientList(page, limit, filters, signal),
    placeholderData: keepPreviousData,
  });

export const useClientList = (page: number, limit: number, filters: ClientFilters) => useQuery(clientListQuery(page, limit, filters));

/** GET /rest-api/client/view?list_clients (issue 6): the names for the discount form's Client select. */
export const fetchClientNames = (signal?: AbortSignal) => apiCall<ClientNamesResponse>('/rest-api/client/view?list_clients', { staff: true, signal });

export const clientNamesQuery = queryOptions({
  queryKey: [...CLIENT_LIST_KEY, 'names'],
  queryFn: ({ signal }) => fetchClientNames(signal),
});

export const useClientNames = () => useQuery(clientNamesQuery);
