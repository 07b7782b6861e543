import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import { listKey } from './list-query.ts';
import { CLIENTS, DISCOUNT_LOGS, DISCOUNTS } from './lists.ts';
import type { paths } from './schema';

export type DiscountBody = paths['/rest-api/client-code/add']['post']['requestBody']['content']['application/json'];

/** docs/behaviour.md#staff-calls: the form's fields; the server makes the code. */
export const addDiscount = (body: DiscountBody) => unwrap(staffApi.POST('/rest-api/client-code/add', { body }));

/** What any change to a discount code makes stale: the codes, their log, and the clients' is_deletable. */
export async function invalidateAfterDiscountChange(client: QueryClient): Promise<void> {
  await Promise.all([DISCOUNTS, DISCOUNT_LOGS, CLIENTS].map((list) => client.invalidateQueries({ queryKey: listKey(list) })));
}

export const addDiscountMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: addDiscount, onSuccess: () => invalidateAfterDiscountChange(client) });

export function useAddDiscount() {
  const client = useQueryClient();
  return useMutation(addDiscountMutation(client));
}
