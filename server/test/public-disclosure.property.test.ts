import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { createSmtpSender, type MailSender } from '../src/modules/notifications/mail-sender.ts';
import { unsignedSpendOf } from './helpers/keyless-spends.ts';
import { openEventStream, type SseConnection } from './helpers/sse-client.ts';
import { startSmtpInbox, textOf, type SmtpInbox } from './helpers/smtp-inbox.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, type TestApp } from './helpers/test-app.ts';
import { until } from './helpers/until.ts';

/**
 * The public door's privacy rule as a property: whatever happens in the
 * pool's mempool, and in whatever order, no public answer names a
 * transaction the portal did not accept, unless it is mined.
 *
 * Each run is a random schedule of: transactions sent straight to the node
 * (the pool's private channels), portal submissions, replacements either
 * way, packages replacing private transactions, a stranger's unsigned
 * spend of a private transaction's input submitted while a dozen status
 * polls (and an email request) race it, and blocks. Every transaction the
 * portal accepts is followed as a stranger can follow it: a callback_url
 * (webhooks, delivered to a receiver here), an email address (mailed through
 * an SMTP server here), and a status stream kept open for the whole run.
 *
 * After every step the background jobs are let finish what the step caused
 * (tracking settles what left the mempool, webhook deliveries and emails go
 * out); then every answer of every public read (status-check, the
 * Slipstream-compatible status and explorer reads, the status stream's first
 * frame) for every txid the run has seen, every submission's answer, every
 * frame the open streams pushed, every webhook delivered and every email
 * sent since the last step is searched for the private txids that are
 * neither accepted here nor mined.
 */

type Step = 'private' | 'portal' | 'replace-privately' | 'replace-here' | 'package-over-private' | 'probe' | 'mine';
const STEPS: Step[] = ['private', 'portal', 'replace-privately', 'replace-here', 'package-over-private', 'probe', 'mine'];
const NUM_RUNS = 16;

let node: TestNode;
let inbox: SmtpInbox;
let receiver: http.Server;
let receiverUrl: string;
/** Every webhook body the receiver got, as sent; taken out by each step's check. */
const webhookBodies: string[] = [];

before(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      webhookBodies.push(body);
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  inbox = await startSmtpInbox();
  node = await startTestNode();
  await node.ensureUtxos(120);
});
after(async () => {
  await node?.stop();
  await inbox?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** A txid as an email subject shortens it (email-job.ts emailFor). */
const shortTxid = (txid: string) => `${txid.slice(0, 8)}...${txid.slice(-8)}`;

for (const engine of testDatabases()) {
  describe(`no public answer names a private transaction (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let sender: MailSender;

    let base: string;
    /** What the property looked at, so that it is known to have looked at real answers, not only refusals. */
    const looked = { statusFrames: 0, laterFrames: 0, webhooks: 0, replacedWebhooks: 0, emails: 0, replacedEmails: 0 };
    /** Streams are opened from their own loopback addresses: one address may hold only a few. */
    let nextLocalAddress = 0;
    before(async () => {
      db = await engine.open();
      sender = createSmtpSender({ url: inbox.url, from: 'Pool portal <portal@pool.example>' });
      t = await startTestApp(node, db, {
        jobs: { runner: { pollMs: 50 }, recheckMs: 60_000 },
        // The run subscribes far more than one address's daily share: the bounds are not what is tested here.
        webhooks: { allowPrivate: true, baseBackoffMs: 100, dispatchPollMs: 50, maxSubscriptionsPerAddressPerDay: 100_000 },
        mail: { sender, baseBackoffMs: 100, dispatchPollMs: 50, maxSubscriptionsPerAddressPerDay: 100_000 },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    /** The status stream's first frame for `txid`, or its refusal (a 404 for a transaction it may not describe). */
    async function firstStreamFrame(txid: string): Promise<string> {
      let stream: SseConnection;
      try {
        stream = await openEventStream(`${base}/rest-api/status-stream?tx_id=${txid}`);
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
      try {
        const frame = await stream.waitFor((f) => f.kind === 'event' && f.event === 'status', { timeoutMs: 10_000 });
        if (frame.kind === 'event' && frame.event === 'status') looked.statusFrames++;
        return frame.kind === 'event' ? frame.data : '';
      } finally {
        stream.close();
      }
    }

    /** A status stream for `txid` left open, as a status page is: what it pushes later is read by each step's check. */
    async function watch(txid: string): Promise<SseConnection | string> {
      try {
        return await openEventStream(`${base}/rest-api/status-stream?tx_id=${txid}`, { localAddress: `127.0.0.${2 + (nextLocalAddress++ % 250)}` });
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
    }

    /**
     * What is still to happen because of the last step: an accepted
     * transaction the node no longer holds that tracking has not settled
     * (mined, replaced), a webhook delivery not yet sent, an email due and
     * not yet sent. Undefined when there is none.
     */
    async function unsettled(): Promise<string | undefined> {
      const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
      const { rows: accepted } = await db.query<{ txid: string }>(
        `SELECT txid FROM tx_submissions WHERE status = 'accepted' UNION SELECT txid FROM package_tx_outcomes WHERE status = 'accepted'`,
      );
      const gone = accepted.filter((r) => !mempool.has(r.txid)).map((r) => r.txid);
      if (gone.length > 0) return `tracking has not settled ${gone.join(', ')}`;
      const { rows } = await db.query<{ deliveries: number; emails: number }>(
        `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE state = 'pending') AS deliveries,
                (SELECT count(*)::int FROM email_subscriptions s
                 WHERE EXISTS (SELECT 1 FROM tx_submissions x WHERE x.txid = s.txid AND x.status IN ('confirmed', 'replaced', 'evicted', 'conflicted'))
                    OR EXISTS (SELECT 1 FROM package_tx_outcomes o WHERE o.txid = s.txid AND o.status IN ('confirmed', 'replaced', 'evicted', 'conflicted'))) AS emails`,
      );
      const { deliveries, emails } = rows[0]!;
      if (deliveries > 0 || emails > 0) return `${deliveries} webhook deliveries and ${emails} emails still to send`;
      return undefined;
    }

    after(async () => {
      await t?.close();
      await db?.close();
      sender?.close();
    });

    test('random schedules of private and portal transactions, replacements, packages, probes and blocks', async (ctx) => {
      ctx.diagnostic(`numRuns ${NUM_RUNS}`);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...STEPS), { minLength: 4, maxLength: 9 }), async (steps) => {
          /** Sent to the node directly, and not (yet) mined. */
          const hidden = new Map<string, BuiltTx>();
          /** Submitted through the portal and accepted. */
          const portal = new Map<string, BuiltTx>();
          const seen = new Set<string>();
          const answers: string[] = [];
          /** The status streams of the portal's transactions, open for the whole run: how many of each one's frames were read, and of its status frames. */
          const streams = new Map<string, { stream: SseConnection; read: number; statuses: number }>();

          const sendPrivately = async (tx: BuiltTx) => {
            await node.rpc.call('sendrawtransaction', [tx.hex]);
            hidden.set(tx.txid, tx);
            seen.add(tx.txid);
          };
          /** A submission, followed by a callback URL as any stranger may ask. */
          const submitHere = async (path: string, body: object) => {
            const res = await post<{ status?: string }>(t.app, path, { ...body, callback_url: receiverUrl });
            answers.push(JSON.stringify(res.body));
            return res;
          };
          /** What the portal accepted, followed further: an email at its final event, and a status page left open. */
          const follow = async (txs: BuiltTx[]) => {
            await t.records.idle();
            for (const tx of txs) {
              portal.set(tx.txid, tx);
              const asked = await post(t.app, '/rest-api/notify-email', { txid: tx.txid, notify_email: 'watcher@example.com' });
              answers.push(JSON.stringify(asked.body));
              const stream = await watch(tx.txid);
              if (typeof stream === 'string') answers.push(stream);
              else streams.set(tx.txid, { stream, read: 0, statuses: 0 });
            }
          };
          /** The first of `m` the node's mempool still holds: one mined or replaced meanwhile can no longer be replaced. */
          const pick = async (m: Map<string, BuiltTx>): Promise<BuiltTx | undefined> => {
            const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
            return [...m.values()].find((tx) => mempool.has(tx.txid));
          };

          try {
            for (const step of steps) {
              switch (step) {
                case 'private':
                  await sendPrivately(await node.buildTx({ feeRate: 5 }));
                  break;
                case 'portal': {
                  const tx = await node.buildTx({ feeRate: 4 });
                  const res = await submitHere('/rest-api/submit-tx', { tx_hex: tx.hex });
                  if (res.body.status === 'success') await follow([tx]);
                  seen.add(tx.txid);
                  break;
                }
                case 'replace-privately': {
                  const original = await pick(portal);
                  if (!original) break;
                  portal.delete(original.txid);
                  await sendPrivately(await node.buildReplacement(original.hex, 40));
                  break;
                }
                case 'replace-here': {
                  const original = await pick(hidden);
                  if (!original) break;
                  const replacement = await node.buildReplacement(original.hex, 40);
                  const res = await submitHere('/rest-api/submit-tx', { tx_hex: replacement.hex });
                  if (res.body.status === 'success') await follow([replacement]);
                  seen.add(replacement.txid);
                  break;
                }
                case 'package-over-private': {
                  const original = await pick(hidden);
                  if (!original) break;
                  const parent = await node.buildReplacement(original.hex, 60);
                  const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 60 });
                  const res = await submitHere('/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
                  if (res.body.status === 'success') await follow([parent, child]);
                  seen.add(parent.txid).add(child.txid);
                  break;
                }
                case 'probe': {
                  const target = await pick(hidden);
                  if (!target) break;
                  // The stranger spends the same outpoint as the private transaction, without a key, and polls (and asks for an email) as the node judges it.
                  const input = decodeTxHex(target.hex).inputs[0]!;
                  const coin = await node.rpc.call<{ value: number } | null>('gettxout', [input.txid, input.vout, false]);
                  if (!coin) break;
                  const probe = unsignedSpendOf(input.txid, input.vout, Math.round(coin.value * 1e8));
                  const probeTxid = decodeTxHex(probe).txid;
                  seen.add(probeTxid);
                  const polls = Array.from({ length: 12 }, () => get(t.app, `/rest-api/status-check?tx_id=${probeTxid}`));
                  const email = post(t.app, '/rest-api/notify-email', { txid: probeTxid, notify_email: 'prober@example.com' });
                  await submitHere('/rest-api/submit-tx', { tx_hex: probe });
                  for (const res of [...(await Promise.all(polls)), await email]) answers.push(JSON.stringify(res.body));
                  break;
                }
                case 'mine': {
                  // Mined is public: those in the block may be named from now on; a replaced one never will be mined.
                  const [hash] = await node.mine(1);
                  const block = await node.rpc.call<{ tx: string[] }>('getblock', [hash, 1]);
                  for (const txid of block.tx) hidden.delete(txid);
                  break;
                }
              }

              // What the step set off (tracking, webhook deliveries, emails) has happened.
              await t.records.idle();
              let waitingFor: string | undefined;
              await until(async () => (waitingFor = await unsettled()) === undefined, async () => `after ${steps.join(', ')}: ${waitingFor}`, 30_000);

              // Every public read of every txid seen so far.
              for (const txid of seen) {
                for (const path of [`/rest-api/status-check?tx_id=${txid}`, `/api/transactions/status?tx_id=${txid}`, `/api/tx/${txid}`, `/api/tx/${txid}/status`]) {
                  answers.push(JSON.stringify((await get(t.app, path)).body));
                }
                answers.push(await firstStreamFrame(txid));
              }
              // What the open status pages were pushed since the last step.
              for (const watched of streams.values()) {
                for (const frame of watched.stream.frames.slice(watched.read)) {
                  watched.read++;
                  if (frame.kind !== 'event') continue;
                  answers.push(frame.data);
                  if (frame.event === 'status' && watched.statuses++ > 0) looked.laterFrames++;
                }
              }
              // Every webhook delivered and every email sent since the last step.
              for (const body of webhookBodies.splice(0)) {
                answers.push(body);
                looked.webhooks++;
                if ((JSON.parse(body) as { event?: string }).event === 'replaced') looked.replacedWebhooks++;
              }
              for (const mail of inbox.mails.splice(0)) {
                const text = textOf(mail.raw);
                answers.push(text);
                looked.emails++;
                if (/^Subject: Transaction \S+ was replaced/m.test(text)) looked.replacedEmails++;
              }

              const secret = [...hidden.keys()].filter((txid) => !portal.has(txid));
              for (const answer of answers.splice(0)) {
                for (const txid of secret) {
                  for (const form of [txid, shortTxid(txid)]) {
                    const at = answer.indexOf(form);
                    // The answer's start says what it is (a webhook's event, an email's headers); the text around the id, how it was named.
                    assert.ok(at === -1, `after ${steps.join(', ')}: an answer names the private ${txid}: ${answer.slice(0, 300)} ... ${answer.slice(Math.max(0, at - 200), at + 100)}`);
                  }
                }
              }
            }
          } finally {
            for (const { stream } of streams.values()) stream.close();
          }
        }),
        { numRuns: NUM_RUNS, seed: 20261127, endOnFailure: true },
      );
      ctx.diagnostic(`looked at ${JSON.stringify(looked)}`);
      assert.ok(looked.statusFrames > 0, 'some streams answered with a status');
      assert.ok(looked.laterFrames > 0, 'some open streams pushed a later status');
      assert.ok(looked.replacedWebhooks > 0 && looked.webhooks > looked.replacedWebhooks, 'webhooks were delivered, replacements among them');
      assert.ok(looked.replacedEmails > 0 && looked.emails > looked.replacedEmails, 'emails were sent, replacements among them');
    });
  });
}
