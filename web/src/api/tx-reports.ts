import { keepPreviousData, queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { dayEnd, dayStart } from '../components/data-table/date-range.ts';
import { fetchFile, saveFile } from './download-file.ts';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/tx-reports/list']['get'];
export type TxReportListResponse = Endpoint['responses'][200]['content']['application/json'];
export type TxReportRow = TxReportListResponse['result'][number];

/** The filters as the address holds them ('' when unset; dates as yyyy-MM-dd). */
export const TX_REPORT_FILTERS = ['txid', 'client_code', 'from_date', 'to_date'] as const;
export type TxReportFilters = Record<(typeof TX_REPORT_FILTERS)[number], string>;

const serverFilters = (filters: TxReportFilters) => ({ ...filters, from_date: dayStart(filters.from_date), to_date: dayEnd(filters.to_date) });

export function fetchTxReports(page: number, limit: number, filters: TxReportFilters, signal?: AbortSignal) {
  return apiCall<TxReportListResponse>(`/rest-api/tx-reports/list?${listQueryString(page, limit, serverFilters(filters))}`, { staff: true, signal });
}

export const txReportsQuery = (page: number, limit: number, filters: TxReportFilters) =>
  queryOptions({
    queryKey: ['tx-reports', 'list', page, limit, filters],
    queryFn: ({ signal }) => fetchTxReports(page, limit, filters, signal),
    placeholderData: keepPreviousData,
  });

export const useTxReports = (page: number, limit: number, filters: TxReportFilters) => useQuery(txReportsQuery(page, limit, filters));

/** Every row matching the filters as CSV (SPEC.md section 7: tx-report-{timestamp}.csv, the server's name). */
export function downloadTxReports(filters: TxReportFilters) {
  const query = new URLSearchParams({ download: 'true' });
  for (const [name, value] of Object.entries(serverFilters(filters))) if (value) query.set(name, value);
  return fetchFile(`/rest-api/tx-reports/list?${query.toString()}`, 'tx-report.csv');
}

/** The download as a mutation: its failures go where every dashboard failure goes (a 401 ends the session). */
export const useTxReportsDownload = () => useMutation({ mutationFn: downloadTxReports, onSuccess: saveFile });
