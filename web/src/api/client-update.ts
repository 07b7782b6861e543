import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterClientChange } from './client-add.ts';
import { apiCall } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client/update/{id}']['post'];
export type ClientUpdateBody = Endpoint['requestBody']['content']['application/json'];
export type UpdatedClient = Endpoint['responses'][200]['content']['application/json'];

/** Replaces every field: the form always sends them all. */
export const updateClient = ({ id, body }: { id: number; body: ClientUpdateBody }) =>
  apiCall<UpdatedClient>(`/rest-api/client/update/${id}`, { method: 'POST', body, staff: true });

export const updateClientMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: updateClient, onSuccess: () => invalidateAfterClientChange(client) });

export function useUpdateClient() {
  const client = useQueryClient();
  return useMutation(updateClientMutation(client));
}
