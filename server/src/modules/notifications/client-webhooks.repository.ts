import type { Queryable } from '../../db/database.ts';

/** A client's webhook (client_webhooks) and the deliveries made to it (migration 019). */

export interface ClientWebhookRecord {
  clientId: number;
  url: string;
  secretSalt: string;
  createdAt: Date;
  updatedAt: Date;
}

interface WebhookRow {
  client_id: number;
  url: string;
  secret_salt: string;
  created_at: Date;
  updated_at: Date;
}

const record = (r: WebhookRow): ClientWebhookRecord => ({ clientId: r.client_id, url: r.url, secretSalt: r.secret_salt, createdAt: r.created_at, updatedAt: r.updated_at });

export async function findClientWebhook(db: Queryable, clientId: number): Promise<ClientWebhookRecord | undefined> {
  const { rows } = await db.query<WebhookRow>('SELECT client_id, url, secret_salt, created_at, updated_at FROM client_webhooks WHERE client_id = $1', [clientId]);
  return rows[0] && record(rows[0]);
}

/** Sets the URL; `newSalt` replaces the secret (a new webhook always gets one). Returns the row and whether the salt is the one given. */
export async function upsertClientWebhook(db: Queryable, clientId: number, url: string, newSalt: string, rotate: boolean): Promise<{ webhook: ClientWebhookRecord; saltChanged: boolean }> {
  const { rows } = await db.query<WebhookRow & { salt_changed: boolean }>(
    `INSERT INTO client_webhooks (client_id, url, secret_salt) VALUES ($1, $2, $3)
     ON CONFLICT (client_id) DO UPDATE SET url = EXCLUDED.url, updated_at = now(),
       secret_salt = CASE WHEN $4 THEN EXCLUDED.secret_salt ELSE client_webhooks.secret_salt END
     RETURNING client_id, url, secret_salt, created_at, updated_at, secret_salt = $3 AS salt_changed`,
    [clientId, url, newSalt, rotate],
  );
  const row = rows[0]!;
  return { webhook: record(row), saltChanged: row.salt_changed };
}

export async function deleteClientWebhook(db: Queryable, clientId: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM client_webhooks WHERE client_id = $1', [clientId]);
  return rowCount > 0;
}

export interface DeliveryRecord {
  id: number;
  txid: string;
  event: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
}

interface DeliveryRow {
  id: string;
  txid: string;
  event: string;
  url: string;
  state: DeliveryRecord['state'];
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

/** The client's deliveries, newest first. */
export async function listClientDeliveries(db: Queryable, clientId: number, page: { offset: number; limit: number }): Promise<{ rows: DeliveryRecord[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<DeliveryRow>(
      `SELECT d.id, s.txid, d.event, s.url, d.state, d.attempts, d.last_status, d.last_error, d.created_at, d.last_attempt_at, d.delivered_at
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
       WHERE s.client_id = $1 ORDER BY d.id DESC LIMIT $2 OFFSET $3`,
      [clientId, page.limit, page.offset],
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.client_id = $1`,
      [clientId],
    ),
  ]);
  return {
    rows: list.rows.map((r) => ({
      id: Number(r.id), txid: r.txid, event: r.event, url: r.url, state: r.state, attempts: r.attempts, lastStatus: r.last_status, lastError: r.last_error,
      createdAt: r.created_at, lastAttemptAt: r.last_attempt_at, deliveredAt: r.delivered_at,
    })),
    total: count.rows[0]!.n,
  };
}

/** Sends a delivery of this client's again (same delivery id, so a receiver that has it can drop it). */
export async function redeliver(db: Queryable, clientId: number, deliveryId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries d SET state = 'pending', first_attempt_at = NULL, last_error = NULL
     FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.client_id = $1 AND d.id = $2 AND d.state <> 'pending'`,
    [clientId, deliveryId],
  );
  return rowCount > 0;
}
