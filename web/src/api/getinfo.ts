import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './http.ts';
import type { paths } from './schema';

export type Info = paths['/rest-api/getinfo']['get']['responses'][200]['content']['application/json'];

export const fetchInfo = (signal?: AbortSignal) => unwrap(api.GET('/rest-api/getinfo', { signal }));

export const infoQuery = queryOptions({
  queryKey: ['getinfo'],
  queryFn: ({ signal }) => fetchInfo(signal),
  staleTime: 30_000,
  // The failure message asks the visitor to wait a minute; the page tries again by then.
  refetchInterval: 60_000,
});

export const useInfo = () => useQuery(infoQuery);

/** `getinfo` for a client code: its quote holds that code's minimum (the discount applied). */
export const quoteQuery = (clientCode: string) =>
  queryOptions({
    queryKey: ['getinfo', clientCode],
    queryFn: ({ signal }) => unwrap(api.GET('/rest-api/getinfo', { params: { query: { client_code: clientCode } }, signal })),
    staleTime: 60_000,
    refetchInterval: 60_000,
    enabled: clientCode !== '',
  });

export const useCodeQuote = (clientCode: string) => useQuery(quoteQuery(clientCode));
