import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { CLIENT_LOGS_KEY } from './client-logs-list.ts';
import { DISCOUNT_LIST_KEY } from './client-code-view.ts';
import { CLIENT_LIST_KEY } from './client-view.ts';
import { apiCall } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client/add']['post'];
export type ClientBody = Endpoint['requestBody']['content']['application/json'];
export type AddedClient = Endpoint['responses'][200]['content']['application/json'];

export const addClient = (body: ClientBody) => apiCall<AddedClient>('/rest-api/client/add', { method: 'POST', body, staff: true });

/** What any change to a client makes stale: the clients and their names, their log, and the codes that show a client's name. */
export function invalidateAfterClientChange(client: QueryClient): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: CLIENT_LIST_KEY }),
    client.invalidateQueries({ queryKey: CLIENT_LOGS_KEY }),
    client.invalidateQueries({ queryKey: DISCOUNT_LIST_KEY }),
  ]).then(() => undefined);
}

export const addClientMutation = (client: QueryClient) => mutationOptions({ mutationFn: addClient, onSuccess: () => invalidateAfterClientChange(client) });

export function useAddClient() {
  const client = useQueryClient();
  return useMutation(addClientMutation(client));
}
