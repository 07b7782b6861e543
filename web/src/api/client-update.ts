import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { invalidateAfterClientChange, type ClientBody } from './client-add.ts';
import { staffApi, unwrap } from './http.ts';

/** Replaces every field: the form always sends them all. */
export const updateClient = ({ id, body }: { id: number; body: ClientBody }) =>
  unwrap(staffApi.POST('/rest-api/client/update/{id}', { params: { path: { id } }, body }));

export const updateClientMutation = (client: QueryClient) =>
  mutationOptions({ mutationFn: updateClient, onSuccess: () => invalidateAfterClientChange(client) });

export function useUpdateClient() {
  const client = useQueryClient();
  return useMutation(updateClientMutation(client));
}
