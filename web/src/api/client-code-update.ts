import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterDiscountChange } from './client-code-add.ts';
import { apiCall } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client-code/update/{id}']['post'];
export type DiscountUpdateBody = Endpoint['requestBody']['content']['application/json'];
export type UpdatedDiscount = Endpoint['responses'][200]['content']['application/json'];

/** SPEC.md section 7: the same body as add; the code never changes. */
export const updateDiscount = ({ id, body }: { id: number; body: DiscountUpdateBody }) =>
  apiCall<UpdatedDiscount>(`/rest-api/client-code/update/${id}`, { method: 'POST', body, staff: true });

export const updateDiscountMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: updateDiscount, onSuccess: () => invalidateAfterDiscountChange(client) });

export function useUpdateDiscount() {
  const client = useQueryClient();
  return useMutation(updateDiscountMutation(client));
}
