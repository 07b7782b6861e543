import type { Database, Queryable } from '../../db/database.ts';

/** Webhook subscriptions and their deliveries (migration 019); deliveries are written by the outbox trigger and here. */

export interface Subscription {
  id: number;
  txid: string;
  url: string;
  secretSalt: string;
  /** A client's subscription whose webhook staff have removed since: nothing more is sent. */
  removed: boolean;
}

export interface PendingDelivery {
  id: number;
  event: string;
  payload: Record<string, unknown>;
  attempts: number;
  firstAttemptAt: Date | null;
}

export interface SubscriptionTarget {
  url: string;
  secretSalt: string;
  /** The client whose webhook this is; null for a submitter's callback_url. */
  clientId: number | null;
}

/** A submitter's callback_url, to be subscribed within the bounds below. */
export interface CallbackTarget {
  url: string;
  secretSalt: string;
  /**
   * The caller's address group (an IPv4 address or an IPv6 /64,
   * http/sse-registry.ts addressGroup) whose day's share it spends; none, no
   * daily bound (nothing public submits without one).
   */
  clientAddress: string | undefined;
  /** New callback subscriptions that address group may start in any 24 hours. */
  maxPerAddressPerDay: number;
}

/**
 * Callback URLs one transaction can have: anyone who knows a txid may add
 * one, and each is sent every event for up to a day of retries, so a
 * transaction cannot become a way to make the portal POST to many URLs.
 */
export const MAX_CALLBACKS_PER_TX = 5;

/** New callback subscriptions a client address group may start in any 24 hours, unless WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY says otherwise. */
export const DEFAULT_MAX_CALLBACKS_PER_ADDRESS_PER_DAY = 50;

/**
 * What became of a callback URL for one transaction: subscribed now;
 * 'already', the URL follows it from before (that subscription and its
 * secret stay as they are); 'full', it has MAX_CALLBACKS_PER_TX other URLs;
 * 'address-bound', the caller's address group started its day's share.
 */
export type CallbackOutcome = 'subscribed' | 'already' | 'full' | 'address-bound';

/** First keys of the advisory locks that serialize one transaction's, and one address group's, bound checks and inserts (the second key is a hash). */
const TX_LOCK = 4_026;
const ADDRESS_LOCK = 4_027;

/**
 * Subscribes the callback URL and the client's webhook to each transaction's
 * events and announces where each one stands now: 'accepted', plus what
 * happened already if the transaction moved on before this ran. The tracked
 * row is locked first, so a status change racing this either finished before
 * (and is announced here) or waits and is announced by the trigger: never
 * both, never neither.
 *
 * A target already following a transaction (the same callback URL, or the
 * same client) is left as it is: a resubmission adds no subscription and no
 * delivery. A new callback URL is subscribed only within MAX_CALLBACKS_PER_TX
 * and its address group's day's share; a client's webhook, set by staff, is
 * counted by neither. The per-transaction and per-address advisory locks make
 * the checks and inserts of concurrent requests, on any instance, one after
 * the other. Returns the callback URL's outcome for each transaction.
 */
export async function subscribe(
  db: Database,
  txids: string[],
  targets: { callback?: CallbackTarget | undefined; client?: SubscriptionTarget | undefined },
): Promise<Array<{ txid: string; outcome: CallbackOutcome }>> {
  const { callback, client } = targets;
  if (!callback && !client) return [];
  return db.transaction(async (tx) => {
    let addressRoom = Infinity;
    if (callback?.clientAddress !== undefined) {
      // Taken before any transaction's lock, in one order for every request: no deadlock between the two kinds.
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_LOCK, callback.clientAddress]);
      const { rows } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_subscriptions WHERE client_address = $1 AND created_at > now() - interval '1 day'`,
        [callback.clientAddress],
      );
      addressRoom = callback.maxPerAddressPerDay - rows[0]!.n;
    }
    // Every transaction's locks in txid order, so two packages sharing members wait for each other instead of deadlocking.
    for (const txid of [...new Set(txids)].sort()) {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TX_LOCK, txid]);
      await tx.query(`SELECT 1 FROM tx_submissions WHERE txid = $1 FOR UPDATE`, [txid]);
      await tx.query(`SELECT 1 FROM package_tx_outcomes WHERE txid = $1 FOR UPDATE`, [txid]);
    }
    const outcomes: Array<{ txid: string; outcome: CallbackOutcome }> = [];
    for (const txid of txids) {
      if (callback) {
        const outcome = await callbackOutcome(tx, txid, callback.url, addressRoom);
        if (outcome === 'subscribed') {
          await subscribeLocked(tx, txid, { url: callback.url, secretSalt: callback.secretSalt, clientId: null }, callback.clientAddress ?? null);
          addressRoom -= 1;
        }
        outcomes.push({ txid, outcome });
      }
      if (client && !(await clientFollows(tx, txid, client.clientId))) await subscribeLocked(tx, txid, client, null);
    }
    return outcomes;
  });
}

async function callbackOutcome(tx: Queryable, txid: string, url: string, addressRoom: number): Promise<CallbackOutcome> {
  const { rows } = await tx.query<{ same: boolean; others: number }>(
    `SELECT COALESCE(bool_or(url = $2), false) AS same, count(*)::int AS others FROM webhook_subscriptions WHERE txid = $1 AND client_id IS NULL`,
    [txid, url],
  );
  const { same, others } = rows[0]!;
  if (same) return 'already';
  if (others >= MAX_CALLBACKS_PER_TX) return 'full';
  return addressRoom > 0 ? 'subscribed' : 'address-bound';
}

async function clientFollows(tx: Queryable, txid: string, clientId: number | null): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM webhook_subscriptions WHERE txid = $1 AND client_id = $2 LIMIT 1`, [txid, clientId]);
  return rows.length > 0;
}

async function subscribeLocked(tx: Queryable, txid: string, target: SubscriptionTarget, clientAddress: string | null): Promise<void> {
  await tx.query(
    `WITH sub AS (INSERT INTO webhook_subscriptions (txid, url, secret_salt, client_id, client_address) VALUES ($1, $2, $3, $4, $5) RETURNING id),
          current AS (
            SELECT status, block_hash, block_height, block_time, replaced_by, outcome_reason FROM (
              SELECT status, block_hash, block_height, block_time, replaced_by, outcome_reason, 0 AS pick FROM tx_submissions WHERE txid = $1 AND status <> 'pending'
              UNION ALL
              SELECT status, block_hash, block_height, block_time, replaced_by, outcome_reason, 1 FROM package_tx_outcomes WHERE txid = $1
            ) r ORDER BY pick LIMIT 1),
          events AS (
            SELECT 1 AS n, 'accepted' AS event, 'accepted' AS status, NULL::text AS block_hash, NULL::integer AS block_height, NULL::timestamptz AS block_time, NULL::text AS replaced_by, NULL::text AS reason
            UNION ALL
            SELECT 2, webhook_event_of('accepted', c.status), c.status, c.block_hash, c.block_height, c.block_time, c.replaced_by, c.outcome_reason
            FROM current c WHERE webhook_event_of('accepted', c.status) IS NOT NULL)
     INSERT INTO webhook_deliveries (subscription_id, event, payload)
     SELECT sub.id, e.event, webhook_payload(e.event, $1, e.status, e.block_hash, e.block_height, e.block_time, e.replaced_by, e.reason)
     FROM sub, events e ORDER BY e.n`,
    [txid, target.url, target.secretSalt, target.clientId, clientAddress],
  );
}

/** The webhook of the client a code belongs to (any of its codes, in force or not). */
export async function clientWebhookForCode(db: Queryable, code: string): Promise<SubscriptionTarget | undefined> {
  const { rows } = await db.query<{ client_id: number; url: string; secret_salt: string }>(
    `SELECT w.client_id, w.url, w.secret_salt FROM client_webhooks w JOIN discount_codes d ON d.client_id = w.client_id WHERE d.code = $1`,
    [code],
  );
  const row = rows[0];
  return row && { url: row.url, secretSalt: row.secret_salt, clientId: row.client_id };
}

/** Subscriptions with something left to send and no delivery job open yet. */
export async function subscriptionsWithPending(db: Queryable, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ subscription_id: string }>(
    `SELECT DISTINCT d.subscription_id FROM webhook_deliveries d
     WHERE d.state = 'pending'
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.key = 'webhook:' || d.subscription_id AND j.state IN ('queued', 'running'))
     ORDER BY d.subscription_id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => Number(r.subscription_id));
}

/**
 * A subscription as it is to be delivered now. A client's webhook is read
 * from client_webhooks at each delivery, not from the copy taken when the
 * transaction was submitted: a URL staff changed, or a secret they rotated
 * (a leaked one), applies at once to every transaction still followed.
 */
export async function loadSubscription(db: Queryable, id: number): Promise<Subscription | undefined> {
  const { rows } = await db.query<{ id: string; txid: string; url: string; secret_salt: string; removed: boolean }>(
    `SELECT s.id, s.txid, COALESCE(w.url, s.url) AS url, COALESCE(w.secret_salt, s.secret_salt) AS secret_salt,
            (s.client_id IS NOT NULL AND w.client_id IS NULL) AS removed
     FROM webhook_subscriptions s LEFT JOIN client_webhooks w ON w.client_id = s.client_id WHERE s.id = $1`,
    [id],
  );
  const row = rows[0];
  return row && { id: Number(row.id), txid: row.txid, url: row.url, secretSalt: row.secret_salt, removed: row.removed };
}

/** Every event of a subscription still to be sent, given up with `reason` (its client's webhook was removed). */
export async function failPending(db: Queryable, subscriptionId: number, reason: string): Promise<void> {
  await db.query(`UPDATE webhook_deliveries SET state = 'failed', last_error = $2 WHERE subscription_id = $1 AND state = 'pending'`, [subscriptionId, reason]);
}

/** The oldest undelivered event of a subscription: events go out in the order they happened. */
export async function nextPending(db: Queryable, subscriptionId: number): Promise<PendingDelivery | undefined> {
  const { rows } = await db.query<{ id: string; event: string; payload: Record<string, unknown>; attempts: number; first_attempt_at: Date | null }>(
    `SELECT id, event, payload, attempts, first_attempt_at FROM webhook_deliveries
     WHERE subscription_id = $1 AND state = 'pending' ORDER BY id LIMIT 1`,
    [subscriptionId],
  );
  const row = rows[0];
  return row && { id: Number(row.id), event: row.event, payload: row.payload, attempts: row.attempts, firstAttemptAt: row.first_attempt_at };
}

export interface AttemptResult {
  state: 'pending' | 'delivered' | 'failed';
  status: number | null;
  error: string | null;
}

export async function recordAttempt(db: Queryable, deliveryId: number, result: AttemptResult): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET state = $2, attempts = attempts + 1, last_status = $3, last_error = $4,
       first_attempt_at = COALESCE(first_attempt_at, now()), last_attempt_at = now(),
       delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE delivered_at END
     WHERE id = $1`,
    [deliveryId, result.state, result.status, result.error],
  );
}

/** Undelivered events and how long the oldest has waited (metrics). */
export async function pendingStats(db: Queryable, now: Date): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const { rows } = await db.query<{ pending: number; oldest: Date | null }>(
    `SELECT count(*)::int AS pending, min(created_at) AS oldest FROM webhook_deliveries WHERE state = 'pending'`,
  );
  const row = rows[0]!;
  return { pending: row.pending, oldestAgeSeconds: row.oldest ? Math.max(0, (now.getTime() - row.oldest.getTime()) / 1000) : 0 };
}

/** Subscriptions of transactions still waiting in the mempool that have not had their next_block event. */
export async function waitingSubscriptions(db: Queryable, limit: number): Promise<Array<{ subscriptionId: number; txid: string }>> {
  const { rows } = await db.query<{ id: string; txid: string }>(
    `SELECT s.id, s.txid FROM webhook_subscriptions s
     WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.event = 'next_block')
       AND (EXISTS (SELECT 1 FROM tx_submissions t WHERE t.txid = s.txid AND t.status = 'accepted')
            OR EXISTS (SELECT 1 FROM package_tx_outcomes o WHERE o.txid = s.txid AND o.status = 'accepted'))
     ORDER BY s.id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ subscriptionId: Number(r.id), txid: r.txid }));
}

/** Writes the next_block event of these subscriptions, once each (the unique index drops a second). */
export async function announceNextBlock(db: Queryable, subscriptionIds: number[], nextHeight: number): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (subscription_id, event, payload)
     SELECT s.id, 'next_block', jsonb_build_object('event', 'next_block', 'txid', s.txid, 'status', 'accepted', 'projected_block', 0, 'next_block_height', $2::int,
              'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
     FROM webhook_subscriptions s WHERE s.id = ANY($1::bigint[])
     ON CONFLICT (subscription_id) WHERE event = 'next_block' DO NOTHING`,
    [subscriptionIds, nextHeight],
  );
}
