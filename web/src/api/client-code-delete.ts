import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterDiscountChange } from './client-code-add.ts';
import { apiCall } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client-code/delete/{id}']['delete'];
export type DeletedDiscount = Endpoint['responses'][200]['content']['application/json'];

export const deleteDiscount = (id: number) => apiCall<DeletedDiscount>(`/rest-api/client-code/delete/${id}`, { method: 'DELETE', staff: true });

export const deleteDiscountMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: deleteDiscount, onSuccess: () => invalidateAfterDiscountChange(client) });

export function useDeleteDiscount() {
  const client = useQueryClient();
  return useMutation(deleteDiscountMutation(client));
}
