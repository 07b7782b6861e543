import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema.d.ts';

/** A client's API keys (administrators): for the public API's dry run, POST /api/mempool/tests. */
export type ApiKeyRow = paths['/rest-api/client/{id}/api-keys']['get']['responses'][200]['content']['application/json']['result'][number];

const keysKey = (clientId: number) => ['client-api-keys', clientId] as const;

export const apiKeysQuery = (clientId: number) =>
  queryOptions({
    queryKey: keysKey(clientId),
    queryFn: async ({ signal }) => (await unwrap(staffApi.GET('/rest-api/client/{id}/api-keys', { params: { path: { id: clientId } }, signal }))).result,
  });

export const useApiKeys = (clientId: number) => useQuery(apiKeysQuery(clientId));

/** Issues a key: the answer's `secret` is the key itself, which the server never shows again. */
export function useIssueApiKey(clientId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(staffApi.POST('/rest-api/client/{id}/api-keys', { params: { path: { id: clientId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keysKey(clientId) }),
  });
}

export function useRevokeApiKey(clientId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (keyId: number) => unwrap(staffApi.DELETE('/rest-api/client/{id}/api-keys/{keyId}', { params: { path: { id: clientId, keyId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keysKey(clientId) }),
  });
}
