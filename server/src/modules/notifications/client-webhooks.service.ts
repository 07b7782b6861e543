import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { checkWebhookUrl, DestinationRefused, type DestinationPolicy } from './destination-guard.ts';
import {
  deleteClientWebhook,
  findClientWebhook,
  listClientDeliveries,
  redeliver,
  upsertClientWebhook,
  type ClientWebhookRecord,
  type DeliveryRecord,
} from './client-webhooks.repository.ts';
import { newSecretSalt, type WebhookKeys } from './webhook-secrets.ts';

/** A client's webhook as the Clients screen manages it, and its delivery log. */

const NO_CLIENT = 'Client not found.';

const wireWebhook = (w: ClientWebhookRecord) => ({ client_id: w.clientId, url: w.url, created_at: w.createdAt.toISOString(), updated_at: w.updatedAt.toISOString() });

const wireDelivery = (d: DeliveryRecord) => ({
  id: d.id,
  txid: d.txid,
  event: d.event,
  url: d.url,
  state: d.state,
  attempts: d.attempts,
  last_status: d.lastStatus,
  last_error: d.lastError,
  created_at: d.createdAt.toISOString(),
  last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
  delivered_at: d.deliveredAt?.toISOString() ?? null,
});

function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23503';
}

export function createClientWebhookService(deps: { db: Database; keys: WebhookKeys; policy: DestinationPolicy }) {
  const { db, keys, policy } = deps;
  return {
    async get(clientId: number) {
      const webhook = await findClientWebhook(db, clientId);
      return { webhook: webhook ? wireWebhook(webhook) : null };
    },
    async set(clientId: number, rawUrl: string, rotateSecret: boolean) {
      let url: string;
      try {
        url = checkWebhookUrl(rawUrl.trim(), policy, 'webhook URL').href;
      } catch (error) {
        if (error instanceof DestinationRefused) throw new ApiError(400, error.message);
        throw error;
      }
      try {
        const { webhook, saltChanged } = await upsertClientWebhook(db, clientId, url, newSecretSalt(), rotateSecret);
        return { webhook: wireWebhook(webhook), ...(saltChanged ? { secret: keys.secretFor(webhook.secretSalt) } : {}) };
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new ApiError(404, NO_CLIENT);
        throw error;
      }
    },
    async remove(clientId: number) {
      if (!(await deleteClientWebhook(db, clientId))) throw new ApiError(404, 'This client has no webhook.');
      return { webhook: null };
    },
    async deliveries(clientId: number, page: number, limit: number) {
      const { rows, total } = await listClientDeliveries(db, clientId, { offset: (page - 1) * limit, limit });
      return { result: rows.map(wireDelivery), total };
    },
    async redeliver(clientId: number, deliveryId: number) {
      if (!(await redeliver(db, clientId, deliveryId))) throw new ApiError(404, 'No such delivery of this client, or it is still being sent.');
      return { status: 'success' as const, message: 'The event will be sent again.' };
    },
  };
}

export type ClientWebhookService = ReturnType<typeof createClientWebhookService>;
