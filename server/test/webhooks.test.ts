import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_REMOVED } from '../src/modules/notifications/webhook-job.ts';
import { subscribe } from '../src/modules/notifications/webhooks.repository.ts';
import { verifySignature } from '../src/modules/notifications/webhook-signature.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { breakInserts, startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { post, startTestApp } from './helpers/test-app.ts';
import { until } from './helpers/until.ts';

/**
 * A submitter's callback_url on a real node: a real HTTP receiver gets every
 * event of its transaction in order, signed with the secret the submit answer
 * gave, and gets what it missed while it was down, once each.
 */

interface Event {
  delivery_id: string;
  event: string;
  txid: string;
  status: string;
  block_height?: number;
  block_hash?: string;
  replaced_by?: string;
  reason?: string;
}

interface Delivery {
  /** The path and query it was sent to. */
  path: string;
  event: Event;
  body: string;
  signature: string;
  idempotencyKey: string;
}

const deliveries: Delivery[] = [];
let receiverDown = false;
let receiver: http.Server;
let receiverUrl: string;
let node: TestNode;

before(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (receiverDown) {
        res.statusCode = 503;
        return res.end();
      }
      deliveries.push({ path: req.url ?? '', event: JSON.parse(body) as Event, body, signature: String(req.headers['slipstream-signature']), idempotencyKey: String(req.headers['slipstream-delivery']) });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  node = await startTestNode();
  await node.ensureUtxos(20);
});

after(async () => {
  await node?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** A transaction's events; `next_block` comes whenever the projection first puts it in the next block, so tests of the other events leave it out. */
const allEventsOf = (txid: string) => deliveries.filter((d) => d.event.txid === txid);
const eventsOf = (txid: string) => allEventsOf(txid).filter((d) => d.event.event !== 'next_block');
const eventNames = (txid: string) => eventsOf(txid).map((d) => d.event.event);

for (const engine of testDatabases()) {
  describe(`webhook notifications (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node, {
        jobs: { runner: { pollMs: 100 }, recheckMs: 60_000 },
        webhooks: { allowPrivate: true, baseBackoffMs: 100, dispatchPollMs: 100 },
      });
      await t.setSetting('fee_rate_floor', '0');
      await t.setSetting('slipstream_multiplier', '1');
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const submit = async (hex: string) => {
      const res = await post<{ status: string; message: string; callback_secret?: string }>(t.app, '/rest-api/submit-tx', { tx_hex: hex, callback_url: receiverUrl });
      assert.equal(res.body.status, 'success', res.body.message);
      assert.match(res.body.callback_secret ?? '', /^whsec_/);
      return res.body.callback_secret!;
    };
    const received = (txid: string, names: string[]) =>
      until(async () => eventNames(txid).length >= names.length, async () => `${txid}: ${JSON.stringify(eventNames(txid))}`, 20_000);

    test('accepted, then mined with its block, each signed with the secret the answer gave', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const secret = await submit(tx.hex);
      await received(tx.txid, ['accepted']);
      const [hash] = await node.mine(1);
      await received(tx.txid, ['accepted', 'mined']);
      assert.deepEqual(eventNames(tx.txid), ['accepted', 'mined']);
      const mined = eventsOf(tx.txid)[1]!;
      assert.equal(mined.event.block_hash, hash);
      assert.equal(mined.event.block_height, await node.rpc.call<number>('getblockcount'));
      assert.equal(mined.event.status, 'confirmed');
      const now = Math.floor(Date.now() / 1000);
      for (const d of eventsOf(tx.txid)) {
        assert.equal(verifySignature(secret, d.body, d.signature, now), true, 'signed with the secret the submitter got');
        assert.equal(d.idempotencyKey, d.event.delivery_id);
      }
      assert.equal(verifySignature(secret, mined.body.replace(hash!, '00'.repeat(32)), mined.signature, now), false, 'a tampered body does not verify');
    });

    test('next_block: told once when the projection first puts it in the next block, before it is mined', async () => {
      const tx = await node.buildTx({ feeRate: 4 });
      await submit(tx.hex);
      await until(async () => allEventsOf(tx.txid).some((d) => d.event.event === 'next_block'), async () => JSON.stringify(allEventsOf(tx.txid).map((d) => d.event.event)), 20_000);
      const next = allEventsOf(tx.txid).find((d) => d.event.event === 'next_block')!.event as Event & { projected_block: number; next_block_height: number };
      assert.equal(next.projected_block, 0);
      assert.equal(next.next_block_height, (await node.rpc.call<number>('getblockcount')) + 1);
      await node.mine(1);
      await received(tx.txid, ['accepted', 'mined']);
      assert.deepEqual(allEventsOf(tx.txid).map((d) => d.event.event), ['accepted', 'next_block', 'mined'], 'in the order they happened, next_block once');
    });

    test('replaced: the event names a replacement submitted here', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      await submit(original.hex);
      await received(original.txid, ['accepted']);
      const replacement = await node.buildReplacement(original.hex, 10);
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: replacement.hex })).body.status, 'success');
      await received(original.txid, ['accepted', 'replaced']);
      const replaced = eventsOf(original.txid)[1]!.event;
      assert.equal(replaced.event, 'replaced');
      assert.equal(replaced.replaced_by, replacement.txid);
    });

    test('replaced by a transaction sent to the pool some other way: the event does not name it', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      await submit(original.hex);
      await received(original.txid, ['accepted']);
      const replacement = await node.buildReplacement(original.hex, 10);
      await node.rpc.call('sendrawtransaction', [replacement.hex]);
      await received(original.txid, ['accepted', 'replaced']);
      const replaced = eventsOf(original.txid)[1]!.event;
      assert.equal(replaced.event, 'replaced');
      assert.equal(replaced.replaced_by, undefined);
      assert.doesNotMatch(JSON.stringify(eventsOf(original.txid)), new RegExp(replacement.txid), 'neither the field nor the reason names it');
    });

    test('a receiver that was down gets what it missed when it is back, in order and once each', async () => {
      receiverDown = true;
      const tx = await node.buildTx({ feeRate: 3 });
      await submit(tx.hex);
      await node.mine(1);
      await until(
        async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.txid = $1 AND d.attempts > 1`, [tx.txid])).rows[0]!.n > 0,
        async () => 'no retried delivery yet',
        20_000,
      );
      assert.deepEqual(eventNames(tx.txid), [], 'nothing was received while down');
      const down = await t.services.metricsService.scrape();
      assert.match(down, /slipstream_webhook_attempts_total\{outcome="retrying"\} [1-9]/);
      assert.match(down, /slipstream_webhook_pending [1-9]/);
      assert.match(down, /slipstream_webhook_oldest_pending_age_seconds (?!0\n)\d/);
      receiverDown = false;
      await received(tx.txid, ['accepted', 'mined']);
      await t.jobs!.runner.idle();
      assert.deepEqual(eventNames(tx.txid), ['accepted', 'mined']);
      assert.equal(new Set(eventsOf(tx.txid).map((d) => d.event.delivery_id)).size, 2);
      const up = await t.services.metricsService.scrape();
      assert.match(up, /slipstream_webhook_pending 0\n/);
      assert.match(up, /slipstream_webhook_attempts_total\{outcome="delivered"\} [1-9]/);
    });

    test("a client's webhook gets the events of submissions made with its codes; staff see the deliveries and can send one again", async () => {
      const client = await t.call<{ id: number }>('POST', '/rest-api/client/add', { body: { name: `Webhook client ${engine.name}` } });
      const code = `HOOK${engine.name.toUpperCase()}`;
      await db.query("INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until) VALUES ($1, $2, 10, now(), now() + interval '1 day')", [code, client.body.id]);
      const clientUrl = `${receiverUrl}?client=${client.body.id}`;

      const refused = await t.call<{ message: string }>('POST', `/rest-api/client/${client.body.id}/webhook`, { body: { url: 'http://127.0.0.1/x' }, as: 'viewer' });
      assert.equal(refused.statusCode, 403, 'viewers do not set webhooks');
      const set = await t.call<{ webhook: { url: string }; secret?: string }>('POST', `/rest-api/client/${client.body.id}/webhook`, { body: { url: clientUrl } });
      assert.equal(set.statusCode, 200);
      assert.match(set.body.secret ?? '', /^whsec_/, 'a new webhook shows its secret once');
      const again = await t.call<{ secret?: string }>('POST', `/rest-api/client/${client.body.id}/webhook`, { body: { url: clientUrl } });
      assert.equal(again.body.secret, undefined, 'changing the URL keeps the secret and does not show it again');
      const viewed = await t.call<{ webhook: { url: string } }>('GET', `/rest-api/client/${client.body.id}/webhook`, { as: 'viewer' });
      assert.equal(viewed.body.webhook.url, clientUrl);
      assert.equal(JSON.stringify(viewed.body).includes('whsec_'), false);

      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<{ status: string; callback_secret?: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, client_code: code });
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.callback_secret, undefined, 'no callback_url, no callback secret');
      await node.mine(1);
      await received(tx.txid, ['accepted', 'mined']);
      const now = Math.floor(Date.now() / 1000);
      for (const d of eventsOf(tx.txid)) assert.equal(verifySignature(set.body.secret!, d.body, d.signature, now), true, "signed with the client's secret");

      const log = await t.call<{ result: Array<{ id: number; txid: string; event: string; state: string }>; total: number }>('GET', `/rest-api/client/${client.body.id}/webhook-deliveries`, { as: 'viewer' });
      const logged = log.body.result.filter((d) => d.event !== 'next_block');
      assert.deepEqual(logged.map((d) => [d.event, d.state]), [['mined', 'delivered'], ['accepted', 'delivered']]);
      assert.equal(log.body.total, log.body.result.length);
      const before = eventsOf(tx.txid).length;
      const resend = await t.call<{ status: string }>('POST', `/rest-api/client/${client.body.id}/webhook-deliveries/${logged[1]!.id}/redeliver`);
      assert.equal(resend.body.status, 'success');
      await until(async () => eventsOf(tx.txid).length > before, async () => 'not sent again', 20_000);
      const resent = eventsOf(tx.txid).at(-1)!;
      assert.equal(resent.event.event, 'accepted');
      assert.equal(resent.event.delivery_id, eventsOf(tx.txid)[0]!.event.delivery_id, 'the same delivery id, so the receiver can tell');

      // A leaked secret: staff rotate it and move the URL. Transactions already followed use the new ones at once.
      const followed = await node.buildTx({ feeRate: 3 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: followed.hex, client_code: code })).body.status, 'success');
      await received(followed.txid, ['accepted']);
      const movedUrl = `${clientUrl}&moved=1`;
      const rotated = await t.call<{ secret?: string }>('POST', `/rest-api/client/${client.body.id}/webhook`, { body: { url: movedUrl, rotate_secret: true } });
      assert.match(rotated.body.secret ?? '', /^whsec_/);
      await node.mine(1);
      await received(followed.txid, ['accepted', 'mined']);
      const minedEvent = eventsOf(followed.txid).find((d) => d.event.event === 'mined')!;
      const later = Math.floor(Date.now() / 1000);
      assert.equal(minedEvent.path, new URL(movedUrl).pathname + new URL(movedUrl).search, 'sent to the new URL');
      assert.equal(verifySignature(rotated.body.secret!, minedEvent.body, minedEvent.signature, later), true, 'signed with the new secret');
      assert.equal(verifySignature(set.body.secret!, minedEvent.body, minedEvent.signature, later), false, 'the leaked secret signs nothing more');

      // Removed: events still to come for transactions already followed are not sent, and the log says why.
      const orphan = await node.buildTx({ feeRate: 3 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: orphan.hex, client_code: code })).body.status, 'success');
      await received(orphan.txid, ['accepted']);
      assert.equal((await t.call('DELETE', `/rest-api/client/${client.body.id}/webhook`)).statusCode, 200);
      await node.mine(1);
      const minedLog = async () =>
        (await t.call<{ result: Array<{ txid: string; event: string; state: string; last_error: string | null }> }>('GET', `/rest-api/client/${client.body.id}/webhook-deliveries`)).body.result.find(
          (d) => d.txid === orphan.txid && d.event === 'mined',
        );
      await until(async () => (await minedLog())?.state === 'failed', async () => JSON.stringify(await minedLog()), 20_000);
      assert.equal((await minedLog())?.last_error, WEBHOOK_REMOVED);
      assert.deepEqual(eventNames(orphan.txid), ['accepted'], 'nothing sent after the removal');
    });

    test('the Slipstream-compatible API takes callback_url too, for a transaction and a package', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const single = await post<{ status: string; message: string; callback_secret?: string }>(t.app, '/api/transactions', { tx_hex: tx.hex, callback_url: receiverUrl });
      assert.equal(single.body.status, 'success', single.body.message);
      assert.match(single.body.callback_secret ?? '', /^whsec_/);
      const parent = await node.buildTx({ feeRate: 3 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      const pkg = await post<{ status: string; callback_secret?: string }>(t.app, '/api/transactions/packages', { tx_hexes: [parent.hex, child.hex], callback_url: receiverUrl });
      assert.equal(pkg.body.status, 'success', JSON.stringify(pkg.body));
      await received(tx.txid, ['accepted']);
      await received(parent.txid, ['accepted']);
      await received(child.txid, ['accepted']);
      const now = Math.floor(Date.now() / 1000);
      assert.equal(verifySignature(pkg.body.callback_secret!, eventsOf(child.txid)[0]!.body, eventsOf(child.txid)[0]!.signature, now), true);

      const dry = await post<{ status: string; message: string }>(t.app, '/api/transactions', { tx_hex: (await node.buildTx({ feeRate: 3 })).hex, callback_url: receiverUrl, skip_mempool_submission: true });
      assert.equal(dry.statusCode, 400);
      assert.match(dry.body.message, /cannot be used with skip_mempool_submission/);
    });

    test('evicted: the node lost its mempool and now refuses the transaction; the event says why', async () => {
      const cheap = await node.buildTx({ feeRate: 3 });
      await submit(cheap.hex);
      await received(cheap.txid, ['accepted']);
      // Restarted without its mempool, asking 10 sat/vB now; its wallet must not put the transaction back itself.
      await node.restart({ dropMempool: true, extraArgs: ['-minrelaytxfee=0.0001', '-walletbroadcast=0'] });
      try {
        await until(async () => eventNames(cheap.txid).includes('evicted'), async () => JSON.stringify(eventNames(cheap.txid)), 60_000);
      } finally {
        await node.restart();
      }
      const evicted = eventsOf(cheap.txid).find((d) => d.event.event === 'evicted')!.event;
      assert.equal(evicted.status, 'evicted');
      assert.match(evicted.reason ?? '', /min relay fee not met|mempool min fee not met/);
      assert.deepEqual(eventNames(cheap.txid), ['accepted', 'evicted']);
    });

    interface SubmitAnswer {
      status: string;
      message: string;
      callback_secret?: string;
      callback_notice?: string;
    }
    const subscriptionsOf = async (txid: string) =>
      (await db.query<{ callbacks: number; clients: number; accepted: number }>(
        `SELECT count(*) FILTER (WHERE s.client_id IS NULL)::int AS callbacks, count(*) FILTER (WHERE s.client_id IS NOT NULL)::int AS clients,
                (SELECT count(*)::int FROM webhook_deliveries d JOIN webhook_subscriptions s2 ON s2.id = d.subscription_id WHERE s2.txid = $1 AND d.event = 'accepted') AS accepted
         FROM webhook_subscriptions s WHERE s.txid = $1`,
        [txid],
      )).rows[0]!;
    /** A client with a code and a webhook of its own (set by staff). */
    const clientWithWebhook = async (name: string) => {
      const client = await t.call<{ id: number }>('POST', '/rest-api/client/add', { body: { name: `${name} ${engine.name}` } });
      const code = `${name.replace(/\W/g, '').toUpperCase()}${engine.name.toUpperCase()}`;
      await db.query("INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until) VALUES ($1, $2, 10, now(), now() + interval '1 day')", [code, client.body.id]);
      const set = await t.call('POST', `/rest-api/client/${client.body.id}/webhook`, { body: { url: `${receiverUrl}?client=${client.body.id}` } });
      assert.equal(set.statusCode, 200);
      return code;
    };

    test('the same callback URL for the same transaction again is the subscription it has: no new secret, no second delivery', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const url = `${receiverUrl}?same=1`;
      const first = await post<SubmitAnswer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, callback_url: url });
      assert.equal(first.body.status, 'success', first.body.message);
      const secret = first.body.callback_secret!;
      assert.match(secret, /^whsec_/);
      assert.equal(first.body.callback_notice, undefined);
      await received(tx.txid, ['accepted']);
      for (const route of ['/rest-api/submit-tx', '/api/transactions']) {
        const again = await post<SubmitAnswer>(t.app, route, { tx_hex: tx.hex, callback_url: url });
        assert.equal(again.statusCode, 200, route);
        assert.deepEqual([again.body.status, again.body.message], ['success', tx.txid], `${route}: the submission succeeds as before`);
        assert.equal(again.body.callback_secret, undefined, `${route}: the secret is not shown again, nor replaced (anyone who knows the URL could learn or rotate it)`);
        assert.match(again.body.callback_notice ?? '', /already follows this transaction.*secret given when it was first set/, route);
      }
      assert.deepEqual(await subscriptionsOf(tx.txid), { callbacks: 1, clients: 0, accepted: 1 }, 'one subscription, one accepted event');
      await node.mine(1);
      await received(tx.txid, ['accepted', 'mined']);
      await t.jobs!.runner.idle();
      assert.deepEqual(eventNames(tx.txid), ['accepted', 'mined'], 'each event sent once');
      const now = Math.floor(Date.now() / 1000);
      for (const d of eventsOf(tx.txid)) assert.equal(verifySignature(secret, d.body, d.signature, now), true, 'still signed with the first secret');
    });

    test("a transaction takes at most 5 callback URLs: a sixth is refused beside the submission's success, on both APIs; a client's webhook is not counted", async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      for (let i = 0; i < 5; i++) {
        const res = await post<SubmitAnswer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, callback_url: `${receiverUrl}?cap=${i}` });
        assert.match(res.body.callback_secret ?? '', /^whsec_/, `URL ${i + 1} is subscribed`);
      }
      for (const route of ['/rest-api/submit-tx', '/api/transactions']) {
        const sixth = await post<SubmitAnswer>(t.app, route, { tx_hex: tx.hex, callback_url: `${receiverUrl}?cap=5` });
        assert.equal(sixth.statusCode, 200, route);
        assert.deepEqual([sixth.body.status, sixth.body.message], ['success', tx.txid], `${route}: the accepted submission still says so`);
        assert.equal(sixth.body.callback_secret, undefined, route);
        assert.match(sixth.body.callback_notice ?? '', /^This transaction already has 5 callback URLs; no more can be added\./, route);
      }
      const known = await post<SubmitAnswer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, callback_url: `${receiverUrl}?cap=0` });
      assert.match(known.body.callback_notice ?? '', /already follows this transaction/, 'a URL it has is answered as such, full or not');

      const code = await clientWithWebhook('Uncounted hook');
      const withCode = await post<SubmitAnswer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, client_code: code, callback_url: `${receiverUrl}?cap=7` });
      assert.equal(withCode.body.status, 'success', withCode.body.message);
      assert.match(withCode.body.callback_notice ?? '', /already has 5 callback URLs/);
      assert.deepEqual(await subscriptionsOf(tx.txid), { callbacks: 5, clients: 1, accepted: 6 }, "the client's webhook is subscribed all the same");
    });

    test('a package: members the URL already follows keep their subscription; the new secret signs the others', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      const url = `${receiverUrl}?package=1`;
      const alone = await post<SubmitAnswer>(t.app, '/rest-api/submit-tx', { tx_hex: parent.hex, callback_url: url });
      const parentSecret = alone.body.callback_secret!;
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      const pkg = await post<SubmitAnswer>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex], callback_url: url });
      assert.equal(pkg.body.status, 'success', JSON.stringify(pkg.body));
      assert.match(pkg.body.callback_secret ?? '', /^whsec_/, 'the child is newly followed');
      assert.notEqual(pkg.body.callback_secret, parentSecret);
      assert.match(pkg.body.callback_notice ?? '', new RegExp(`^${parent.txid}: This callback URL already follows this transaction`), 'the notice names the member');
      assert.deepEqual(await subscriptionsOf(parent.txid), { callbacks: 1, clients: 0, accepted: 1 });
      assert.deepEqual(await subscriptionsOf(child.txid), { callbacks: 1, clients: 0, accepted: 1 });
      await received(child.txid, ['accepted']);
      await received(parent.txid, ['accepted']);
      const now = Math.floor(Date.now() / 1000);
      assert.equal(verifySignature(pkg.body.callback_secret!, eventsOf(child.txid)[0]!.body, eventsOf(child.txid)[0]!.signature, now), true);
      assert.equal(verifySignature(parentSecret, eventsOf(parent.txid)[0]!.body, eventsOf(parent.txid)[0]!.signature, now), true);
    });

    test("new callback subscriptions per client address per day are bounded (an IPv6 client by its /64); other addresses and clients' webhooks are not", async () => {
      const bounded = await startTestApp(node, db, { webhooks: { allowPrivate: true, maxSubscriptionsPerAddressPerDay: 2 } });
      try {
        const code = await clientWithWebhook('Daily hook');
        const from = async (remoteAddress: string, body: Record<string, unknown>) => {
          const res = await bounded.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: body, remoteAddress });
          assert.equal(res.statusCode, 200, res.body);
          return res.json<SubmitAnswer>();
        };
        const [a, b, c, d] = [await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 })];
        assert.match((await from('2001:db8:7:1::1', { tx_hex: a.hex, callback_url: `${receiverUrl}?day=a` })).callback_secret ?? '', /^whsec_/);
        assert.match((await from('2001:db8:7:1::2', { tx_hex: b.hex, callback_url: `${receiverUrl}?day=b` })).callback_secret ?? '', /^whsec_/);
        const again = await from('2001:db8:7:1::3', { tx_hex: a.hex, callback_url: `${receiverUrl}?day=a` });
        assert.match(again.callback_notice ?? '', /already follows/, 'a subscription it has is not a new one');
        const over = await from('2001:db8:7:1::ffff', { tx_hex: c.hex, client_code: code, callback_url: `${receiverUrl}?day=c` });
        assert.deepEqual([over.status, over.message, over.callback_secret], ['success', c.txid, undefined], 'the submission succeeds; no subscription');
        assert.match(over.callback_notice ?? '', /^Your address has set up 2 callback subscriptions in the last 24 hours; no more can be added until a day has passed since the oldest\./);
        assert.deepEqual(await subscriptionsOf(c.txid), { callbacks: 0, clients: 1, accepted: 1 }, "the client's webhook is not counted");
        assert.match((await from('2001:db8:7:2::1', { tx_hex: d.hex, callback_url: `${receiverUrl}?day=d` })).callback_secret ?? '', /^whsec_/, 'another /64 has its own share');
      } finally {
        await bounded.close();
      }
    });

    test("concurrent subscriptions from one address cannot pass its day's share together, nor a transaction's 5 URLs", async () => {
      const hex64 = (n: number) => n.toString(16).padStart(64, 'e');
      const callback = (url: string, clientAddress: string) => ({ callback: { url, secretSalt: 'salt', clientAddress, maxPerAddressPerDay: 3 } });
      const spread = await Promise.all(Array.from({ length: 12 }, (_, i) => subscribe(db, [hex64(i)], callback(`${receiverUrl}?race=${i}`, '198.51.100.20'))));
      assert.equal(spread.flat().filter((o) => o.outcome === 'subscribed').length, 3, JSON.stringify(spread.flat().map((o) => o.outcome)));
      const shared = hex64(100);
      const same = await Promise.all(Array.from({ length: 12 }, (_, i) => subscribe(db, [shared], callback(`${receiverUrl}?shared=${i}`, `198.51.100.${30 + i}`))));
      assert.equal(same.flat().filter((o) => o.outcome === 'subscribed').length, 5);
      assert.equal((await subscriptionsOf(shared)).callbacks, 5);
      const once = await Promise.all(Array.from({ length: 12 }, (_, i) => subscribe(db, [hex64(200)], callback(`${receiverUrl}?once`, `198.51.100.${60 + i}`))));
      assert.deepEqual(once.flat().filter((o) => o.outcome === 'subscribed').length, 1, 'one URL, one subscription');
    });

    test('a database that fails to subscribe leaves the accepted submission a success; callback_notice says the callback was not set', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const restore = await breakInserts(db, 'webhook_subscriptions');
      let res: Awaited<ReturnType<typeof post<SubmitAnswer & { notice?: string }>>>;
      try {
        res = await post<SubmitAnswer & { notice?: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, callback_url: `${receiverUrl}?broken=1` });
      } finally {
        await restore();
      }
      assert.deepEqual([res.statusCode, res.body.status, res.body.message], [200, 'success', tx.txid]);
      assert.equal(res.body.callback_secret, undefined);
      assert.equal(res.body.callback_notice, 'The transaction was accepted, but notifications for it could not be set up right now; follow it on its status page.');
      assert.equal(res.body.notice, undefined, 'notice stays about the client code');
    });

    test('a callback URL the portal will not call is refused before anything is submitted', async () => {
      const strict = await startTestApp(node, db, { webhooks: { allowPrivate: false } });
      try {
        const tx = await node.buildTx({ feeRate: 3 });
        for (const url of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/hook', 'file:///etc/passwd']) {
          const res = await post<{ message: string }>(strict.app, '/rest-api/submit-tx', { tx_hex: tx.hex, callback_url: url });
          assert.equal(res.statusCode, 400, url);
          assert.match(res.body.message, /callback URL/);
        }
        assert.equal((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid), false, 'nothing was submitted');
      } finally {
        await strict.close();
      }
    });
  });
}
