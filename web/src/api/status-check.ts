import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './http.ts';
import type { paths } from './schema';

export type TxStatus = paths['/rest-api/status-check']['get']['responses'][200]['content']['application/json'];

/** docs/behaviour.md#status-page: the status page polls every 30 seconds while unconfirmed. */
export const STATUS_POLL_MS = 30_000;

export const fetchTxStatus = (txid: string, signal?: AbortSignal) =>
  unwrap(api.GET('/rest-api/status-check', { params: { query: { tx_id: txid } }, signal }));

export const txStatusQuery = (txid: string) =>
  queryOptions({
    queryKey: ['status-check', txid],
    queryFn: ({ signal }) => fetchTxStatus(txid, signal),
    refetchInterval: (query) => (query.state.data?.transaction.status.confirmed ? false : STATUS_POLL_MS),
    retry: false,
  });

export const useTxStatus = (txid: string) => useQuery(txStatusQuery(txid));
