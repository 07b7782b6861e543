import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterClientChange } from './client-add.ts';
import { staffApi, unwrap } from './http.ts';

/** Refused (409) while the client is not is_deletable. */
export const deleteClient = (id: number) => unwrap(staffApi.DELETE('/rest-api/client/delete/{id}', { params: { path: { id } } }));

export const deleteClientMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: deleteClient, onSuccess: () => invalidateAfterClientChange(client) });

export function useDeleteClient() {
  const client = useQueryClient();
  return useMutation(deleteClientMutation(client));
}
