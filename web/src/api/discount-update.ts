import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterDiscountChange, type DiscountBody } from './discount-add.ts';
import { staffApi, unwrap } from './http.ts';

/** docs/behaviour.md#staff-calls: the same body as add; the code never changes. */
export const updateDiscount = ({ id, body }: { id: number; body: DiscountBody }) =>
  unwrap(staffApi.POST('/rest-api/client-code/update/{id}', { params: { path: { id } }, body }));

export const updateDiscountMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: updateDiscount, onSuccess: () => invalidateAfterDiscountChange(client) });

export function useUpdateDiscount() {
  const client = useQueryClient();
  return useMutation(updateDiscountMutation(client));
}
