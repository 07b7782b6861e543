import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema.d.ts';

/** A client's webhook (events of every submission made with its codes) and what was sent to it. */
export type ClientWebhook = NonNullable<paths['/rest-api/client/{id}/webhook']['get']['responses'][200]['content']['application/json']['webhook']>;
export type WebhookDelivery = paths['/rest-api/client/{id}/webhook-deliveries']['get']['responses'][200]['content']['application/json']['result'][number];

const webhookKey = (clientId: number) => ['client-webhook', clientId] as const;
const deliveriesKey = (clientId: number, page: number) => ['client-webhook-deliveries', clientId, page] as const;

export const DELIVERIES_PER_PAGE = 10;

export const useClientWebhook = (clientId: number) =>
  useQuery(
    queryOptions({
      queryKey: webhookKey(clientId),
      queryFn: async ({ signal }) => (await unwrap(staffApi.GET('/rest-api/client/{id}/webhook', { params: { path: { id: clientId } }, signal }))).webhook,
    }),
  );

export const useWebhookDeliveries = (clientId: number, page: number) =>
  useQuery({
    queryKey: deliveriesKey(clientId, page),
    queryFn: async ({ signal }) =>
      unwrap(staffApi.GET('/rest-api/client/{id}/webhook-deliveries', { params: { path: { id: clientId }, query: { page, limit: DELIVERIES_PER_PAGE } }, signal })),
    placeholderData: keepPreviousData,
  });

/** Sets the URL; the answer's `secret` is present when it is new (first set, or rotated), and is never shown again. */
export function useSetClientWebhook(clientId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { url: string; rotate_secret?: boolean }) => unwrap(staffApi.POST('/rest-api/client/{id}/webhook', { params: { path: { id: clientId } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKey(clientId) }),
  });
}

export function useRemoveClientWebhook(clientId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(staffApi.DELETE('/rest-api/client/{id}/webhook', { params: { path: { id: clientId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKey(clientId) }),
  });
}

export function useRedeliver(clientId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number) =>
      unwrap(staffApi.POST('/rest-api/client/{id}/webhook-deliveries/{deliveryId}/redeliver', { params: { path: { id: clientId, deliveryId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['client-webhook-deliveries', clientId] }),
  });
}
