import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/setting-logs/list']['get'];
export type SettingLogListResponse = Endpoint['responses'][200]['content']['application/json'];
export type SettingLogRow = SettingLogListResponse['result'][number];

/** The filters as the address holds them: the Name as typed, and the Email (the staff username). */
export const SETTING_LOG_FILTERS = ['item', 'username'] as const;
export type SettingLogFilters = Record<(typeof SETTING_LOG_FILTERS)[number], string>;

/** SPEC.md section 7: the item goes in lowercase snake_case, so 'Fee Rate Floor' asks for fee_rate_floor. */
export function itemQueryValue(name: string): string {
  return name.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

export const SETTING_LOGS_KEY = ['setting-logs', 'list'] as const;

export function fetchSettingLogs(page: number, limit: number, filters: SettingLogFilters, signal?: AbortSignal) {
  const query = listQueryString(page, limit, { ...filters, item: itemQueryValue(filters.item) });
  return apiCall<SettingLogListResponse>(`/rest-api/setting-logs/list?${query}`, { staff: true, signal });
}

export const settingLogsQuery = (page: number, limit: number, filters: SettingLogFilters) =>
  queryOptions({
    queryKey: [...SETTING_LOGS_KEY, page, limit, filters],
    queryFn: ({ signal }) => fetchSettingLogs(page, limit, filters, signal),
    placeholderData: keepPreviousData,
  });

export const useSettingLogs = (page: number, limit: number, filters: SettingLogFilters) => useQuery(settingLogsQuery(page, limit, filters));
