import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './http.ts';
import type { paths } from './schema';

export type SiteInfo = paths['/rest-api/site-info']['get']['responses'][200]['content']['application/json'];

export const fetchSiteInfo = (signal?: AbortSignal) => unwrap(api.GET('/rest-api/site-info', { signal }));

/** Checked again every minute, so a page left open notices maintenance starting or ending. */
export const siteInfoQuery = queryOptions({
  queryKey: ['site-info'],
  queryFn: ({ signal }) => fetchSiteInfo(signal),
  staleTime: 30_000,
  refetchInterval: 60_000,
});

export const useSiteInfo = () => useQuery(siteInfoQuery);
