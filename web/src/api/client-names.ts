import { queryOptions, useQuery } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import { listKey } from './list-query.ts';
import { CLIENTS } from './lists.ts';

/** GET /rest-api/client/view?list_clients (docs/behaviour.md#discount-management): every client name, for the discount form's Client select. */
export const fetchClientNames = async (signal?: AbortSignal) => {
  const answer = await unwrap(staffApi.GET('/rest-api/client/view', { params: { query: { list_clients: '' } }, signal }));
  return 'client_names' in answer ? answer.client_names : [];
};

/** Under the client list's key: whatever makes the clients stale makes their names stale too. */
export const clientNamesQuery = queryOptions({
  queryKey: [...listKey(CLIENTS), 'names'],
  queryFn: ({ signal }) => fetchClientNames(signal),
});

export const useClientNames = () => useQuery(clientNamesQuery);
