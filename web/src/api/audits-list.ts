import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { dayEnd, dayStart } from '../components/data-table/date-range.ts';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/audits/list']['get'];
export type AuditListResponse = Endpoint['responses'][200]['content']['application/json'];
export type AuditRow = AuditListResponse['result'][number];

/** The filters as the address holds them ('' when unset; dates as yyyy-MM-dd). */
export const AUDIT_FILTERS = ['ip_or_endpoint', 'client_code', 'from_date', 'to_date', 'method', 'is_success', 'source_type'] as const;
export type AuditFilters = Record<(typeof AUDIT_FILTERS)[number], string>;

export function fetchAuditList(page: number, limit: number, filters: AuditFilters, signal?: AbortSignal) {
  const query = listQueryString(page, limit, {
    ...filters,
    from_date: dayStart(filters.from_date),
    to_date: dayEnd(filters.to_date),
  });
  return apiCall<AuditListResponse>(`/rest-api/audits/list?${query}`, { staff: true, signal });
}

export const auditListQuery = (page: number, limit: number, filters: AuditFilters) =>
  queryOptions({
    queryKey: ['audits', 'list', page, limit, filters],
    queryFn: ({ signal }) => fetchAuditList(page, limit, filters, signal),
    // The previous page stays on screen while the next loads.
    placeholderData: keepPreviousData,
  });

export const useAuditList = (page: number, limit: number, filters: AuditFilters) => useQuery(auditListQuery(page, limit, filters));
