import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/metrics/summary']['get'];
export type MetricsSummary = Endpoint['responses'][200]['content']['application/json'];
export type MetricsDay = MetricsSummary['daily'][number];
export type NodeHealth = MetricsSummary['node'];

/** The periods the /metrics page offers; the server takes any 1-90. */
export const SUMMARY_PERIODS = [7, 14, 30, 90] as const;
export type SummaryPeriod = (typeof SUMMARY_PERIODS)[number];
export const DEFAULT_SUMMARY_PERIOD: SummaryPeriod = 14;

export const fetchMetricsSummary = (days: number, signal?: AbortSignal) =>
  unwrap(staffApi.GET('/rest-api/metrics/summary', { params: { query: { days } }, signal }));

export const metricsSummaryQuery = (days: number) =>
  queryOptions({
    queryKey: ['metrics', 'summary', days],
    queryFn: ({ signal }) => fetchMetricsSummary(days, signal),
    // The last period stays on screen while the next loads; the node's health refreshes on its own.
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

export const useMetricsSummary = (days: number) => useQuery(metricsSummaryQuery(days));
