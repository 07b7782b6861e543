import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterDiscountChange } from './discount-add.ts';
import { staffApi, unwrap } from './http.ts';

export const deleteDiscount = (id: number) => unwrap(staffApi.DELETE('/rest-api/client-code/delete/{id}', { params: { path: { id } } }));

export const deleteDiscountMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: deleteDiscount, onSuccess: () => invalidateAfterDiscountChange(client) });

export function useDeleteDiscount() {
  const client = useQueryClient();
  return useMutation(deleteDiscountMutation(client));
}
