import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import { listKey } from './list-query.ts';
import { CLIENT_LOGS, CLIENTS, DISCOUNTS } from './lists.ts';
import type { paths } from './schema';

export type ClientBody = paths['/rest-api/client/add']['post']['requestBody']['content']['application/json'];

export const addClient = (body: ClientBody) => unwrap(staffApi.POST('/rest-api/client/add', { body }));

/** What any change to a client makes stale: the clients and their names, their log, and the codes that show a client's name. */
export async function invalidateAfterClientChange(client: QueryClient): Promise<void> {
  await Promise.all([CLIENTS, CLIENT_LOGS, DISCOUNTS].map((list) => client.invalidateQueries({ queryKey: listKey(list) })));
}

export const addClientMutation = (client: QueryClient) => mutationOptions({ mutationFn: addClient, onSuccess: () => invalidateAfterClientChange(client) });

export function useAddClient() {
  const client = useQueryClient();
  return useMutation(addClientMutation(client));
}
