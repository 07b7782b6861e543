import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { DISCOUNT_LOGS_KEY } from './discount-logs-list.ts';
import { DISCOUNT_LIST_KEY } from './client-code-view.ts';
import { CLIENT_LIST_KEY } from './client-view.ts';
import { apiCall } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client-code/add']['post'];
export type DiscountBody = Endpoint['requestBody']['content']['application/json'];
export type AddedDiscount = Endpoint['responses'][200]['content']['application/json'];

/** SPEC.md section 7: the form's fields; the server makes the code. */
export const addDiscount = (body: DiscountBody) => apiCall<AddedDiscount>('/rest-api/client-code/add', { method: 'POST', body, staff: true });

/** What any change to a discount code makes stale: the codes, their log, and the clients' is_deletable. */
export function invalidateAfterDiscountChange(client: QueryClient): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: DISCOUNT_LIST_KEY }),
    client.invalidateQueries({ queryKey: DISCOUNT_LOGS_KEY }),
    client.invalidateQueries({ queryKey: CLIENT_LIST_KEY }),
  ]).then(() => undefined);
}

export const addDiscountMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: addDiscount, onSuccess: () => invalidateAfterDiscountChange(client) });

export function useAddDiscount() {
  const client = useQueryClient();
  return useMutation(addDiscountMutation(client));
}
