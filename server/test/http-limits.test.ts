import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { MAX_TX_HEX_CHARS } from '../src/modules/submission/submission.schemas.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Limits at the HTTP edge, which apply before any node call: body size, rate
 * limits, error shapes. The node is pointed at a closed port on purpose: none
 * of these requests may reach it.
 */

for (const engine of testDatabases()) {
  describe(`HTTP limits (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      const rpc = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 1000, maxConcurrency: 1 });
      // No timer flushes the audit queue: what is written at close, close() wrote.
      t = await startTestApp(undefined, db, { rpc, rateLimitMax: 5, auditFlushIntervalMs: 3_600_000 });
    });

    after(async () => {
      await t?.close().catch(() => {});
      await db?.close();
    });

    const auditCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs')).rows[0]!.n;

    test('a body over what a 4,000,000 WU transaction needs is refused with 413 and a clear message', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/rest-api/submit-tx',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.9' },
        payload: JSON.stringify({ tx_hex: '0'.repeat(MAX_TX_HEX_CHARS + 64 * 1024) }),
        remoteAddress: '127.0.0.2',
      });
      assert.equal(res.statusCode, 413);
      assert.deepEqual(res.json(), { status: 'error', message: 'The request body is too large.' });
    });

    test('malformed JSON gets a 400 in the API\'s error shape, without a stack trace', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/rest-api/submit-tx',
        headers: { 'content-type': 'application/json' },
        payload: '{"tx_hex": ',
        remoteAddress: '127.0.0.3',
      });
      assert.equal(res.statusCode, 400);
      const body = res.json<{ status: string; message: string; stack?: string }>();
      assert.equal(body.status, 'error');
      assert.equal(body.stack, undefined);
      assert.doesNotMatch(res.body, /at .*\.ts:\d+/);
    });

    test('per-IP rate limit: 429 with Retry-After once the window is used up, other IPs unaffected', async () => {
      const hit = (ip: string) =>
        t.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: 'zz' }, remoteAddress: ip });
      for (let i = 0; i < 5; i++) assert.equal((await hit('127.0.0.9')).statusCode, 400);
      const limited = await hit('127.0.0.9');
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After is set');
      assert.match(limited.json<{ message: string }>().message, /Too many requests/);
      assert.equal((await hit('127.0.0.10')).statusCode, 400);
    });

    test('the audit trail records failures with their message; the web app\'s header alone makes a request External, not Internal', async () => {
      await t.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: 'zz', client_code: 'WEB-1' }, headers: { 'x-portal-client': 'web' }, remoteAddress: '127.0.0.11' });
      await t.audit.flush();
      const { rows } = await db.query<{ source_type: string; is_success: boolean; error_message: string; ip_address: string }>(
        "SELECT source_type, is_success, error_message, ip_address FROM audit_logs WHERE client_code = 'WEB-1'",
      );
      assert.deepEqual(rows, [{ source_type: 'External', is_success: false, error_message: 'Transaction hex contains characters that are not hexadecimal.', ip_address: '127.0.0.11' }]);
    });

    test('a graceful shutdown writes every queued audit row', async () => {
      await t.audit.flush();
      const beforeCount = await auditCount();
      const requests = 40;
      for (let i = 0; i < requests; i++) {
        await t.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: 'zz' }, remoteAddress: `127.0.1.${i}` });
      }
      assert.equal(t.audit.stats().queued, requests, 'nothing written before close');
      await t.close();
      assert.equal(await auditCount(), beforeCount + requests);
    });
  });
}
