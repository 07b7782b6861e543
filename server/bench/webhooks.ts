import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJobRunner } from '../src/jobs/job-runner.ts';
import { systemClock } from '../src/lib/clock.ts';
import { deliverWebhook } from '../src/modules/notifications/webhook-delivery.ts';
import { createWebhookJob, startWebhookDispatch } from '../src/modules/notifications/webhook-job.ts';
import { createWebhookKeys } from '../src/modules/notifications/webhook-secrets.ts';
import { quietLog } from '../test/helpers/test-app.ts';
import { testDatabases } from '../test/helpers/test-db.ts';
import { ratio, round3 } from './stats.ts';

/**
 * Webhook deliveries per second from the jobs table: `count` events waiting
 * (one per subscription, as the outbox trigger writes them) are queued by the
 * dispatcher, claimed by a job runner and POSTed, signed, to a receiver on
 * loopback, until every one is marked delivered. The baseline, measured in
 * the same run against the same receiver at the same concurrency: the same
 * signed POSTs sent straight from memory, with no database at all. The ratio
 * is what the durable queue costs per event (claiming, the delivery row
 * written twice, the job finished).
 */
export async function runWebhookBench(options: { count?: number; concurrency?: number } = {}): Promise<unknown> {
  const count = options.count ?? 2_000;
  const concurrency = options.concurrency ?? 8;
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 204;
      res.end();
    });
  });
  receiver.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const results: Record<string, unknown> = {};
  try {
    const keys = createWebhookKeys(randomBytes(32));
    const body = JSON.stringify({ delivery_id: '1.1', event: 'mined', txid: '00'.repeat(32), status: 'confirmed', block_height: 1 });

    // Baseline: the same signed POSTs, from memory, `concurrency` at a time.
    const baselineStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          next += 1;
          const outcome = await deliverWebhook({ url, body, secret: keys.secretFor('salt'), idempotencyKey: '1.1', unixSeconds: Math.floor(Date.now() / 1000) }, { allowPrivate: true, timeoutMs: 10_000 });
          if (!outcome.ok) throw new Error(`baseline delivery failed: ${outcome.reason}`);
        }
      }),
    );
    const baselinePerSecond = count / ((performance.now() - baselineStart) / 1000);

    for (const engine of testDatabases()) {
      const db = await engine.open();
      try {
        await db.query(
          `WITH subs AS (
             INSERT INTO webhook_subscriptions (txid, url, secret_salt)
             SELECT lpad(to_hex(n), 64, '0'), $1, 'salt-' || n FROM generate_series(1, $2) AS n RETURNING id, txid)
           INSERT INTO webhook_deliveries (subscription_id, event, payload)
           SELECT id, 'mined', jsonb_build_object('event', 'mined', 'txid', txid, 'status', 'confirmed', 'block_height', 1) FROM subs`,
          [url, count],
        );
        const runner = createJobRunner({
          db,
          log: quietLog,
          concurrency,
          pollMs: 50,
          handlers: { webhook: createWebhookJob({ db, log: quietLog, keys, policy: { allowPrivate: true }, clock: systemClock }) },
        });
        const started = performance.now();
        runner.start();
        const stopDispatch = startWebhookDispatch({ db, log: quietLog, wake: () => runner.wake(), pollMs: 50 });
        for (;;) {
          const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'delivered'`);
          if (rows[0]!.n >= count) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seconds = (performance.now() - started) / 1000;
        stopDispatch();
        await runner.stop();
        const perSecond = count / seconds;
        out(
          `webhook deliveries (${engine.name}): ${Math.round(perSecond)}/s from the jobs table, ${count} events at concurrency ${concurrency}; ` +
            `raw signed POSTs from memory ${Math.round(baselinePerSecond)}/s; ${ratio(perSecond / baselinePerSecond)} of the baseline`,
        );
        results[engine.name] = { perSecond: round3(perSecond), baselinePerSecond: round3(baselinePerSecond), ratio: round3(perSecond / baselinePerSecond) };
      } finally {
        await db.close();
      }
    }
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
  out(JSON.stringify({ bench: 'webhooks', count, concurrency, ...results }));
  return results;
}
