import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterClientChange } from './client-add.ts';
import { apiCall } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client/delete/{id}']['delete'];
export type DeletedClient = Endpoint['responses'][200]['content']['application/json'];

/** Refused (409) while the client is not is_deletable. */
export const deleteClient = (id: number) => apiCall<DeletedClient>(`/rest-api/client/delete/${id}`, { method: 'DELETE', staff: true });

export const deleteClientMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: deleteClient, onSuccess: () => invalidateAfterClientChange(client) });

export function useDeleteClient() {
  const client = useQueryClient();
  return useMutation(deleteClientMutation(client));
}
