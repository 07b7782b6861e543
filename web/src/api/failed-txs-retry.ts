import { mutationOptions, useMutation, useMutationState, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import { listKey } from './list-query.ts';
import { FAILED_TXS } from './lists.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/retry-txs/update']['post'];
export type FailedTxRetryBody = Endpoint['requestBody']['content']['application/json'];
export type FailedTxRetryResponse = Endpoint['responses'][200]['content']['application/json'];

/** The server takes at most this many ids a request (its FailedTxRetryBody schema). */
export const MAX_RETRY_IDS = 10_000;

/** docs/behaviour.md#success-toasts: the toast after a retry. */
export const RETRY_SUCCESS_MESSAGE = 'Transactions updated successfully!';

export const FAILED_TXS_RETRY_KEY = ['failed-txs', 'retry'] as const;

/**
 * docs/behaviour.md#staff-calls: POST {ids}. A select-all over more ids than one request
 * takes is sent in turn, in requests of at most MAX_RETRY_IDS; the answers
 * add up. The server queues each id once however often it is sent.
 */
export async function retryFailedTxs(ids: readonly number[]): Promise<FailedTxRetryResponse> {
  let answer: FailedTxRetryResponse | undefined;
  for (let start = 0; start < ids.length; start += MAX_RETRY_IDS) {
    const body: FailedTxRetryBody = { ids: ids.slice(start, start + MAX_RETRY_IDS) };
    const part = await unwrap(staffApi.POST('/rest-api/retry-txs/update', { body }));
    answer = answer ? { ...part, queued: answer.queued + part.queued, skipped: answer.skipped + part.skipped } : part;
  }
  if (!answer) throw new Error('No transactions to retry');
  return answer;
}

export const retryFailedTxsMutation = (client: QueryClient) =>
  mutationOptions({
    mutationKey: FAILED_TXS_RETRY_KEY,
    mutationFn: retryFailedTxs,
    // Reloaded whatever the outcome: a failure part-way through may still have moved some.
    onSettled: () => client.invalidateQueries({ queryKey: listKey(FAILED_TXS) }),
  });

/** `onRetried` runs after each retry that succeeds, however many run at once. */
export function useRetryFailedTxs(onRetried: (answer: FailedTxRetryResponse) => void) {
  const client = useQueryClient();
  return useMutation({ ...retryFailedTxsMutation(client), onSuccess: onRetried });
}

/** The ids of every retry request still on its way, from any part of the screen. */
export function useIdsBeingRetried(): ReadonlySet<number> {
  const pending = useMutationState({
    filters: { mutationKey: FAILED_TXS_RETRY_KEY, status: 'pending' },
    select: (mutation) => mutation.state.variables as readonly number[] | undefined,
  });
  return new Set(pending.flatMap((ids) => ids ?? []));
}
