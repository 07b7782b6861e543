import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMAIL_FULL_MESSAGE, EMAIL_NOT_AVAILABLE_MESSAGE, EMAIL_UNKNOWN_TX_MESSAGE } from '../src/modules/notifications/email-notify.service.ts';
import { addEmailSubscription, forgetStaleEmailSubscriptions, MAX_EMAILS_PER_TX } from '../src/modules/notifications/email-subscriptions.repository.ts';
import { createSmtpSender, type MailSender } from '../src/modules/notifications/mail-sender.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, type TestApp } from './helpers/test-app.ts';
import { startSmtpInbox, textOf, type SmtpInbox } from './helpers/smtp-inbox.ts';
import { until } from './helpers/until.ts';

/**
 * "Email me when it is mined" through a real SMTP server started here: one
 * email at the final event, with the txid and the block, then the address is
 * gone from the database; the audit trail never held it.
 */

let inbox: SmtpInbox;
let node: TestNode;

before(async () => {
  inbox = await startSmtpInbox();
  node = await startTestNode();
  await node.ensureUtxos(10);
});

after(async () => {
  await node?.stop();
  await inbox?.close();
});

for (const engine of testDatabases()) {
  describe(`email me when it is mined (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let sender: MailSender;

    before(async () => {
      db = await engine.open();
      sender = createSmtpSender({ url: inbox.url, from: 'Pool portal <portal@pool.example>' });
      t = await startTestApp(node, db, {
        jobs: { runner: { pollMs: 100 }, recheckMs: 60_000 },
        mail: { sender, publicUrl: 'https://pool.example', baseBackoffMs: 100, dispatchPollMs: 100 },
      });
    });
    after(async () => {
      await t?.close();
      await db?.close();
      sender?.close();
    });

    const ask = (txid: string, email: string) => post<{ status: string; message: string }>(t.app, '/rest-api/notify-email', { txid, notify_email: email });
    const stored = async (txid: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM email_subscriptions WHERE txid = $1', [txid])).rows[0]!.n;

    test('site-info says emails are offered', async () => {
      assert.equal((await get<{ email_notifications: boolean }>(t.app, '/rest-api/site-info')).body.email_notifications, true);
    });

    test('one email when it is mined, with the txid, the block and the status link; then the address is deleted', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).statusCode, 200);
      await t.records.idle();
      const email = `miner-${engine.name}@example.com`;
      const res = await ask(tx.txid, email);
      assert.deepEqual(res.body, { status: 'success', message: 'We will email you once, when this transaction is mined.' });
      assert.equal(await stored(tx.txid), 1);
      const [hash] = await node.mine(1);
      const height = await node.rpc.call<number>('getblockcount');
      await until(async () => inbox.mails.some((m) => m.to.includes(email)), async () => `inbox: ${inbox.mails.length}`, 20_000);
      const mails = inbox.mails.filter((m) => m.to.includes(email));
      assert.equal(mails.length, 1);
      const text = textOf(mails[0]!.raw);
      assert.match(text, new RegExp(`Subject: Transaction ${tx.txid.slice(0, 8)}.*mined in block ${height}`));
      assert.ok(text.includes(`Transaction ${tx.txid} was mined in block ${height} (${hash})`), text);
      assert.ok(text.includes(`https://pool.example/tx/${tx.txid}`));
      assert.match(text, /From: Pool portal <portal@pool\.example>/);
      await until(async () => (await stored(tx.txid)) === 0, async () => 'the address is still stored', 10_000);
      await t.services.audit.flush();
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_logs WHERE request_payload LIKE $1 OR response_payload LIKE $1`, [`%${email}%`]);
      assert.equal(rows[0]!.n, 0, 'the audit trail does not hold the address');
    });

    test('a mail server refusing for a while gets the email later, once', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      await t.records.idle();
      const email = `later-${engine.name}@example.com`;
      await ask(tx.txid, email);
      inbox.down = true;
      await node.mine(1);
      await until(async () => ((await db.query<{ attempts: number }>('SELECT attempts FROM email_subscriptions WHERE txid = $1', [tx.txid])).rows[0]?.attempts ?? 0) > 0, async () => 'no failed attempt yet', 20_000);
      inbox.down = false;
      await until(async () => inbox.mails.some((m) => m.to.includes(email)), async () => 'not sent after the server came back', 20_000);
      await until(async () => (await stored(tx.txid)) === 0, async () => 'the address is still stored', 10_000);
      assert.equal(inbox.mails.filter((m) => m.to.includes(email)).length, 1);
    });

    test('a transaction the portal did not record, or a bad address, is refused and stores nothing', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      await node.rpc.call('sendrawtransaction', [tx.hex]);
      const unknown = await ask(tx.txid, 'someone@example.com');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.body.message, EMAIL_UNKNOWN_TX_MESSAGE);
      const bad = await ask(tx.txid, 'not an address');
      assert.equal(bad.statusCode, 400);
      assert.equal(await stored(tx.txid), 0);
    });

    test('one plain address at a time, at most five a transaction; an address is forgotten after 30 days unsettled', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).statusCode, 200);
      await t.records.idle();
      // What a mail library would read as other recipients.
      for (const crafted of ['a<victim@example.com>', 'a@example.com, b@example.com', '"x"@example.com', 'a@example.com;b@example.com']) {
        assert.equal((await ask(tx.txid, crafted)).statusCode, 400, crafted);
      }
      for (let i = 1; i <= MAX_EMAILS_PER_TX; i++) assert.equal((await ask(tx.txid, `watcher${i}@example.com`)).statusCode, 200);
      const sixth = await ask(tx.txid, 'watcher6@example.com');
      assert.deepEqual([sixth.statusCode, sixth.body.message], [409, EMAIL_FULL_MESSAGE]);
      assert.equal((await ask(tx.txid, 'watcher1@example.com')).statusCode, 200, 'an address already there may ask again');
      assert.equal(await stored(tx.txid), MAX_EMAILS_PER_TX);

      await db.query("UPDATE email_subscriptions SET created_at = now() - interval '31 days' WHERE txid = $1 AND email = 'watcher1@example.com'", [tx.txid]);
      assert.equal(await forgetStaleEmailSubscriptions(db), 1);
      assert.equal(await stored(tx.txid), MAX_EMAILS_PER_TX - 1);
      await db.query('DELETE FROM email_subscriptions WHERE txid = $1', [tx.txid]);
    });

    test("new requests per client address per day are bounded (an IPv6 client by its /64), sent emails included; the same request again and other addresses are not", async () => {
      const bounded = await startTestApp(node, db, { mail: { sender, maxSubscriptionsPerAddressPerDay: 2 } });
      try {
        const from = (remoteAddress: string, txid: string, email: string) =>
          bounded.app.inject({ method: 'POST', url: '/rest-api/notify-email', payload: { txid, notify_email: email }, remoteAddress });
        const txs = [await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 })];
        for (const tx of txs) assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).statusCode, 200);
        await t.records.idle();
        const [a, b, c] = txs.map((tx) => tx.txid) as [string, string, string];
        const day = `day-${engine.name}`;
        assert.equal((await from('2001:db8:9:1::1', a, `${day}-a@example.com`)).statusCode, 200);
        assert.equal((await from('2001:db8:9:1::2', b, `${day}-b@example.com`)).statusCode, 200);
        assert.equal((await from('2001:db8:9:1::3', a, `${day}-a@example.com`)).statusCode, 200, 'a request it has is not a new one');
        const over = await from('2001:db8:9:1::ffff', c, `${day}-c@example.com`);
        assert.deepEqual([over.statusCode, over.json<{ message: string }>().message], [
          429,
          'Your address has asked for 2 notification emails in the last 24 hours; no more can be added until a day has passed since the oldest.',
        ]);
        assert.equal(await stored(c), 0);
        assert.equal((await from('2001:db8:9:2::1', c, `${day}-c@example.com`)).statusCode, 200, 'another /64 has its own share');

        // Sent emails forget their addresses, not the share they spent.
        await node.mine(1);
        await until(async () => (await stored(a)) + (await stored(b)) + (await stored(c)) === 0, async () => 'the emails are not all sent', 20_000);
        assert.equal((await from('2001:db8:9:1::4', c, `${day}-c2@example.com`)).statusCode, 429, 'the day is not over because the emails went out');
        await db.query("UPDATE email_subscription_starts SET created_at = now() - interval '25 hours' WHERE client_address = '2001:db8:9:1::'");
        const d = await node.buildTx({ feeRate: 3 });
        await post(t.app, '/rest-api/submit-tx', { tx_hex: d.hex });
        await t.records.idle();
        assert.equal((await from('2001:db8:9:1::5', d.txid, `${day}-d@example.com`)).statusCode, 200, 'a day later the address group may ask again');
        await forgetStaleEmailSubscriptions(db);
        const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM email_subscription_starts WHERE created_at <= now() - interval '1 day'");
        assert.equal(rows[0]!.n, 0, 'shares older than a day are forgotten');
        await db.query('DELETE FROM email_subscriptions WHERE txid = $1', [d.txid]);
      } finally {
        await bounded.close();
      }
    });

    test("concurrent requests from one address cannot pass its day's share together, nor a transaction's 5 addresses", async () => {
      const txs = [await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 3 })];
      for (const tx of txs) await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      await t.records.idle();
      const race = `race-${engine.name}`;
      const spread = await Promise.all(
        Array.from({ length: 12 }, (_, i) => addEmailSubscription(db, txs[i % 3]!.txid, `${race}-${i}@example.com`, { clientAddress: '198.51.100.70', maxPerAddressPerDay: 3 })),
      );
      assert.equal(spread.filter((o) => o === 'added').length, 3, JSON.stringify(spread));
      const shared = txs[3]!.txid;
      const same = await Promise.all(
        Array.from({ length: 12 }, (_, i) => addEmailSubscription(db, shared, `${race}-shared-${i}@example.com`, { clientAddress: `198.51.100.${80 + i}`, maxPerAddressPerDay: 3 })),
      );
      assert.equal(same.filter((o) => o === 'added').length, MAX_EMAILS_PER_TX, JSON.stringify(same));
      assert.equal(await stored(shared), MAX_EMAILS_PER_TX);
      for (const tx of txs) await db.query('DELETE FROM email_subscriptions WHERE txid = $1', [tx.txid]);
    });

    test('EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY 0: no email is offered', async () => {
      const off = await startTestApp(node, db, { mail: { sender, maxSubscriptionsPerAddressPerDay: 0 } });
      try {
        assert.equal((await get<{ email_notifications: boolean }>(off.app, '/rest-api/site-info')).body.email_notifications, false);
        const res = await post<{ message: string }>(off.app, '/rest-api/notify-email', { txid: '00'.repeat(32), notify_email: 'a@example.com' });
        assert.deepEqual([res.statusCode, res.body.message], [404, EMAIL_NOT_AVAILABLE_MESSAGE]);
      } finally {
        await off.close();
      }
    });

    test('without SMTP the portal offers no email and refuses the request', async () => {
      const plain = await startTestApp(node, db);
      try {
        assert.equal((await get<{ email_notifications: boolean }>(plain.app, '/rest-api/site-info')).body.email_notifications, false);
        const res = await post<{ message: string }>(plain.app, '/rest-api/notify-email', { txid: '00'.repeat(32), notify_email: 'a@example.com' });
        assert.equal(res.statusCode, 404);
        assert.equal(res.body.message, EMAIL_NOT_AVAILABLE_MESSAGE);
      } finally {
        await plain.close();
      }
    });
  });
}
