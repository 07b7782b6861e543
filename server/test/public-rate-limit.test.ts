import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * RATE_LIMIT_MAX is "public API requests per client IP per window" (README):
 * one budget per address, spent by every public route alike, so that
 * spreading requests over several endpoints buys no more of them. The node is
 * pointed at a closed port: the limit applies whatever the node does.
 */

const BUDGET = 6;

for (const engine of testDatabases()) {
  describe(`one public rate-limit budget per client IP (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      const rpc = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 1000, maxConcurrency: 1 });
      t = await startTestApp(undefined, db, { rpc, rateLimitMax: BUDGET });
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    const getinfo = (ip: string) => t.app.inject({ method: 'GET', url: '/rest-api/getinfo', remoteAddress: ip });
    const parseTx = (ip: string) => t.app.inject({ method: 'POST', url: '/rest-api/parse-tx', payload: { tx_hexes: [] }, remoteAddress: ip });
    const statusCheck = (ip: string) => t.app.inject({ method: 'GET', url: '/rest-api/status-check?tx_id=nothex', remoteAddress: ip });
    const siteInfo = (ip: string) => t.app.inject({ method: 'GET', url: '/rest-api/site-info', remoteAddress: ip });
    const submitTx = (ip: string) => t.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: 'zz' }, remoteAddress: ip });

    test('requests spread over getinfo, parse-tx and status-check spend one budget; the next public request is refused with 429 and Retry-After', async () => {
      const ip = '127.0.2.1';
      const spent: Array<[string, number]> = [];
      for (let i = 0; i < BUDGET / 3; i++) {
        for (const call of [getinfo, parseTx, statusCheck]) spent.push([call.name, (await call(ip)).statusCode]);
      }
      assert.equal(spent.length, BUDGET);
      for (const [name, statusCode] of spent) assert.notEqual(statusCode, 429, `${name} within the budget`);
      // Every public route now refuses this address, including ones it never called.
      for (const call of [siteInfo, submitTx, getinfo, parseTx, statusCheck]) {
        const limited = await call(ip);
        assert.equal(limited.statusCode, 429, `${call.name} after the budget is spent`);
        assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After is set');
        assert.deepEqual(Object.keys(limited.json<object>()).sort(), ['message', 'status']);
        assert.match(limited.json<{ message: string }>().message, /^Too many requests\. Please retry in \d+ seconds\.$/);
      }
      // Another address has its own budget.
      assert.equal((await siteInfo('127.0.2.2')).statusCode, 200);
    });

    test('the health check is not rate limited', async () => {
      const ip = '127.0.2.3';
      for (let i = 0; i < BUDGET; i++) assert.notEqual((await siteInfo(ip)).statusCode, 429);
      assert.equal((await siteInfo(ip)).statusCode, 429);
      assert.notEqual((await t.app.inject({ method: 'GET', url: '/rest-api/health', remoteAddress: ip })).statusCode, 429);
    });
  });
}
