import type { Database } from '../../db/database.ts';
import { jobDone, runAgainAfter, type JobHandler } from '../../jobs/job-runner.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../metrics/metrics-registry.ts';
import type { DestinationPolicy } from './destination-guard.ts';
import { deliverWebhook } from './webhook-delivery.ts';
import { startJobDispatch } from './job-dispatch.ts';
import type { WebhookKeys } from './webhook-secrets.ts';
import { failPending, loadSubscription, nextPending, recordAttempt, subscriptionsWithPending } from './webhooks.repository.ts';

/**
 * Sends one subscription's events, oldest first, through the durable jobs
 * table ('webhook:<subscription id>', one open job per subscription, so two
 * instances never send the same event at once and events never overtake
 * each other). A failed attempt waits, doubling from `baseBackoffMs` up to an
 * hour, and an event that has failed for `giveUpAfterMs` (24 h) is given up
 * so the next one can go. At-least-once: a receiver that answered but whose
 * answer was lost gets the event again, with the same delivery id.
 */

export interface WebhookDeliveryOptions {
  db: Database;
  keys: WebhookKeys;
  policy: DestinationPolicy;
  clock: Clock;
  log: Logger;
  /** Counts each attempt's outcome (slipstream_webhook_attempts_total). */
  metrics?: Pick<Metrics, 'webhookAttempts'>;
  timeoutMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  giveUpAfterMs?: number;
}

const HOUR_MS = 3_600_000;

/** Why a client's events stop: staff removed its webhook. */
export const WEBHOOK_REMOVED = "The client's webhook was removed; nothing more is sent.";

export function createWebhookJob(options: WebhookDeliveryOptions): JobHandler {
  const { db, keys, policy, clock, log } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const baseBackoffMs = options.baseBackoffMs ?? 5_000;
  const maxBackoffMs = options.maxBackoffMs ?? HOUR_MS;
  const giveUpAfterMs = options.giveUpAfterMs ?? 24 * HOUR_MS;

  return async (job) => {
    const subscription = await loadSubscription(db, Number(job.payload.subscriptionId));
    if (!subscription) return jobDone;
    if (subscription.removed) {
      await failPending(db, subscription.id, WEBHOOK_REMOVED);
      return jobDone;
    }
    const secret = keys.secretFor(subscription.secretSalt);
    for (;;) {
      const delivery = await nextPending(db, subscription.id);
      if (!delivery) return jobDone;
      const body = JSON.stringify({ delivery_id: `${subscription.id}.${delivery.id}`, ...delivery.payload });
      const now = clock.now();
      const outcome = await deliverWebhook(
        { url: subscription.url, body, secret, idempotencyKey: `${subscription.id}.${delivery.id}`, unixSeconds: Math.floor(now.getTime() / 1000) },
        { ...policy, timeoutMs },
      );
      if (outcome.ok) {
        await recordAttempt(db, delivery.id, { state: 'delivered', status: outcome.status, error: null });
        options.metrics?.webhookAttempts.inc({ outcome: 'delivered' });
        continue;
      }
      const failingSince = delivery.firstAttemptAt ?? now;
      const givenUp = outcome.final || now.getTime() - failingSince.getTime() >= giveUpAfterMs;
      await recordAttempt(db, delivery.id, { state: givenUp ? 'failed' : 'pending', status: outcome.status, error: outcome.reason });
      options.metrics?.webhookAttempts.inc({ outcome: givenUp ? 'failed' : 'retrying' });
      log.warn({ subscription: subscription.id, event: delivery.event, txid: subscription.txid, err: outcome.reason, givenUp }, 'A webhook delivery failed');
      if (givenUp) continue;
      return runAgainAfter(Math.min(maxBackoffMs, baseBackoffMs * 2 ** delivery.attempts));
    }
  };
}

/** Webhook events waiting, queued as one job per subscription (job-dispatch.ts). */
export function startWebhookDispatch(deps: { db: Database; log: Logger; wake: () => void; pollMs?: number }): () => void {
  return startJobDispatch({
    ...deps,
    pollMs: deps.pollMs ?? 1_000,
    what: 'webhook deliveries',
    find: (db) => subscriptionsWithPending(db, 500),
    kind: 'webhook',
    job: (id) => ({ key: `webhook:${id}`, payload: { subscriptionId: id } }),
  });
}
