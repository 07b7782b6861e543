import { keepPreviousData, queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { dayEnd, dayStart } from '../components/data-table/date-range.ts';
import { fetchFile, saveFile } from './download-file.ts';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/tx-puller/list']['get'];
export type TxPullerListResponse = Endpoint['responses'][200]['content']['application/json'];
export type PullerRow = TxPullerListResponse['result'][number];
export type PulledTx = Extract<PullerRow, { txid: string }>;
export type PulledPackage = Extract<PullerRow, { txids: string[] }>;

/** SPEC.md sections 2 and 9: the two tabs; single transactions by default. */
export const SUBMISSION_TYPES = ['tx_submissions', 'package_submissions'] as const;
export type SubmissionType = (typeof SUBMISSION_TYPES)[number];

/** The filters as the address holds them ('' when unset; dates as yyyy-MM-dd). */
export const TX_PULLER_FILTERS = ['client_code', 'txid', 'from_date', 'to_date'] as const;
export type TxPullerFilters = Record<(typeof TX_PULLER_FILTERS)[number], string>;

const serverFilters = (filters: TxPullerFilters) => ({ ...filters, from_date: dayStart(filters.from_date), to_date: dayEnd(filters.to_date) });

export function fetchTxPuller(type: SubmissionType, page: number, limit: number, filters: TxPullerFilters, signal?: AbortSignal) {
  const query = listQueryString(page, limit, { ...serverFilters(filters), submission_type: type });
  return apiCall<TxPullerListResponse>(`/rest-api/tx-puller/list?${query}`, { staff: true, signal });
}

export const txPullerQuery = (type: SubmissionType, page: number, limit: number, filters: TxPullerFilters) =>
  queryOptions({
    queryKey: ['tx-puller', 'list', type, page, limit, filters],
    queryFn: ({ signal }) => fetchTxPuller(type, page, limit, filters, signal),
    // The previous page stays on screen while the next loads.
    placeholderData: keepPreviousData,
  });

export const useTxPuller = (type: SubmissionType, page: number, limit: number, filters: TxPullerFilters) =>
  useQuery(txPullerQuery(type, page, limit, filters));

/** Every row matching the filters as CSV (SPEC.md section 7: tx-puller-{type}-report-{timestamp}.csv, the server's name). */
export function downloadTxPuller(type: SubmissionType, filters: TxPullerFilters) {
  const query = new URLSearchParams({ submission_type: type, download: 'true' });
  for (const [name, value] of Object.entries(serverFilters(filters))) if (value) query.set(name, value);
  return fetchFile(`/rest-api/tx-puller/list?${query.toString()}`, `tx-puller-${type}-report.csv`);
}

/** The download as a mutation: its failures go where every dashboard failure goes (a 401 ends the session). */
export const useTxPullerDownload = () =>
  useMutation({ mutationFn: (args: { type: SubmissionType; filters: TxPullerFilters }) => downloadTxPuller(args.type, args.filters), onSuccess: saveFile });
