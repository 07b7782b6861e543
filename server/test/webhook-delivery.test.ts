import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { checkWebhookUrl, isPrivateAddress } from '../src/modules/notifications/destination-guard.ts';
import { deliverWebhook } from '../src/modules/notifications/webhook-delivery.ts';
import { newWebhookSecret, signatureHeader, verifySignature } from '../src/modules/notifications/webhook-signature.ts';

/** Webhook delivery against a real HTTP receiver: signatures, outcomes and the refusal of private destinations. */

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let port: number;
const received: Received[] = [];
let answerStatus = 204;
let hang = false;

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (hang) return;
      res.statusCode = answerStatus;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (url: string, body = '{"event":"mined"}') => ({ url, body, secret: 'whsec_test', idempotencyKey: 'evt-1', unixSeconds: 1_700_000_000 });

describe('signatures', () => {
  test('a signature verifies for its body and secret only, and only while fresh', () => {
    const secret = newWebhookSecret();
    const body = '{"event":"mined","txid":"ab"}';
    const header = signatureHeader(secret, body, 1_000);
    assert.equal(verifySignature(secret, body, header, 1_000), true);
    assert.equal(verifySignature(secret, body.replace('mined', 'evicted'), header, 1_000), false, 'tampered body');
    assert.equal(verifySignature(newWebhookSecret(), body, header, 1_000), false, 'other secret');
    assert.equal(verifySignature(secret, body, header.replace('t=1000', 't=1001'), 1_000), false, 'tampered timestamp');
    assert.equal(verifySignature(secret, body, header, 1_000 + 301), false, 'replayed later');
    assert.equal(verifySignature(secret, body, 'garbage', 1_000), false);
  });
});

describe('private destinations', () => {
  test('loopback, private, link-local, CGNAT and mapped addresses are private; public ones are not', () => {
    const ipv4InIpv6 = ['::7f00:1', '::ffff:0:7f00:1', '2002:a9fe:a9fe::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '64:ff9b::7f00:1', '64:ff9b:1::a9fe:a9fe'];
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '224.0.0.1', 'ff02::1', '2001:db8::1', ...ipv4InIpv6]) {
      assert.equal(isPrivateAddress(a), true, a);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8']) assert.equal(isPrivateAddress(a), false, a);
  });

  test('URLs that name a private address, use another scheme or carry credentials are refused with a reason', () => {
    const policy = { allowPrivate: false };
    for (const [url, reason] of [
      ['http://127.0.0.1/hook', /private or local address/],
      ['http://[::1]:8080/hook', /private or local address/],
      ['http://169.254.169.254/latest/meta-data/', /private or local address/],
      ['http://localhost:3000/', /private or local address/],
      ['http://2130706433/', /private or local address/], // 127.0.0.1 as one decimal number
      ['ftp://example.com/', /https:\/\/ or http:\/\//],
      ['https://user:pw@example.com/', /user name or password/],
      ['not a url', /not a valid URL/],
    ] as const) {
      assert.throws(() => checkWebhookUrl(url, policy), reason, url);
    }
    assert.equal(checkWebhookUrl('https://example.com/hook', policy).hostname, 'example.com');
    assert.equal(checkWebhookUrl('http://127.0.0.1/hook', { allowPrivate: true }).hostname, '127.0.0.1');
  });

  test('a name that resolves to loopback is refused when connecting, and the receiver hears nothing', async () => {
    let name: string | undefined;
    for (const candidate of ['ip6-localhost', 'localhost.', hostname()]) {
      const answer = await lookup(candidate).catch(() => undefined);
      if (answer && isPrivateAddress(answer.address) && candidate !== 'localhost') {
        name = candidate;
        break;
      }
    }
    assert.ok(name, 'this machine has a name other than "localhost" for a loopback address');
    const before = received.length;
    const outcome = await deliverWebhook(request(`http://${name}:${port}/hook`), { allowPrivate: false, timeoutMs: 5_000 });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.final, 'retrying cannot help');
    assert.match(!outcome.ok ? outcome.reason : '', /resolves to a private or local address/);
    assert.equal(received.length, before);
  });
});

describe('delivery to a receiver the operator allows', () => {
  const allowed = { allowPrivate: true, timeoutMs: 2_000 };

  test('the receiver gets the body, a verifiable signature and the idempotency key', async () => {
    answerStatus = 204;
    const outcome = await deliverWebhook(request(`http://127.0.0.1:${port}/hook`), allowed);
    assert.deepEqual(outcome, { ok: true, status: 204 });
    const last = received.at(-1)!;
    assert.equal(last.body, '{"event":"mined"}');
    assert.equal(last.headers['slipstream-delivery'], 'evt-1');
    assert.equal(last.headers['content-type'], 'application/json');
    assert.equal(verifySignature('whsec_test', last.body, String(last.headers['slipstream-signature']), 1_000_000_000 + 700_000_000), true);
  });

  test('an error answer, a redirect and a receiver that never answers are failures to retry', async () => {
    for (const status of [500, 302, 404]) {
      answerStatus = status;
      const outcome = await deliverWebhook(request(`http://127.0.0.1:${port}/hook`), allowed);
      assert.deepEqual(outcome, { ok: false, final: false, status, reason: `The receiver answered HTTP ${status}.` });
    }
    hang = true;
    try {
      const outcome = await deliverWebhook(request(`http://127.0.0.1:${port}/hook`), { ...allowed, timeoutMs: 200 });
      assert.equal(outcome.ok, false);
      assert.ok(!outcome.ok && !outcome.final);
      assert.match(!outcome.ok ? outcome.reason : '', /No complete answer within 200 ms/);
    } finally {
      hang = false;
      server.closeAllConnections();
    }
  });

  test('a receiver that trickles its answer is cut off at the deadline, however steadily it sends', async () => {
    // A byte every 100 ms never leaves the socket idle for the 500 ms timeout: only a bound on the whole attempt stops it.
    const trickle = net.createServer((socket) => {
      socket.on('error', () => {});
      const bytes = Buffer.from(`HTTP/1.1 200 OK\r\nx-slow: ${'z'.repeat(200)}\r\n\r\n`);
      let at = 0;
      const timer = setInterval(() => (at < bytes.length ? socket.write(bytes.subarray(at, ++at)) : clearInterval(timer)), 100);
      socket.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const outcome = await deliverWebhook(request(`http://127.0.0.1:${(trickle.address() as AddressInfo).port}/hook`), { ...allowed, timeoutMs: 500 });
      const took = Date.now() - started;
      assert.ok(!outcome.ok && !outcome.final, JSON.stringify(outcome));
      assert.match(!outcome.ok ? outcome.reason : '', /No complete answer within 500 ms/);
      assert.ok(took < 2_000, `settled after ${took} ms`);
    } finally {
      await new Promise((resolve) => trickle.close(resolve));
    }
  });

  test('a receiver that is down is a failure to retry', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await deliverWebhook(request(`http://127.0.0.1:${deadPort}/hook`), allowed);
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && !outcome.final && /ECONNREFUSED/.test(outcome.reason));
  });
});
