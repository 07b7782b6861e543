import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * A tool's own page, served from another origin (its own port), using the
 * portal from the user's browser tab as Slipstream clients do: it reads the
 * rates, submits a transaction and polls its status with fetch, in
 * Chromium. The same page cannot read a staff endpoint: the browser blocks
 * the answer, as the portal gives staff routes no CORS.
 */

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let tool: http.Server;
let toolUrl: string;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(5);
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  browser = await launchBrowser();
  tool = http.createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>inscription tool</title><p>A page elsewhere.</p>');
  });
  await new Promise<void>((resolve) => tool.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another host as well as another port.
  toolUrl = `http://localhost:${(tool.address() as { port: number }).port}/`;
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => tool?.close(resolve));
  await app?.close();
  await db?.close();
  await node?.stop();
});

/** Runs `fetch` in the tool's page: the status and JSON body, or the error the browser raised. */
async function fetchFromTool(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, init);
        return { status: res.status, body: (await res.json()) as Record<string, unknown>, error: null };
      } catch (error) {
        return { status: 0, body: null, error: String(error) };
      }
    },
    { url, init },
  );
}

describe('the public API from a page of another origin, in Chromium', () => {
  test('reads the rates, submits through /api/transactions and reads the status; a staff endpoint stays unreadable', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(toolUrl);
    assert.notEqual(new URL(toolUrl).origin, app.base);

    const rates = await fetchFromTool(page, `${app.base}/api/rates`);
    assert.equal(rates.status, 200, JSON.stringify(rates));
    assert.equal(typeof rates.body?.effective_rate, 'number');

    const tx = await node.buildTx({ feeRate: 3 });
    // A JSON POST: the browser sends a preflight first, which the portal must answer.
    const submitted = await fetchFromTool(page, `${app.base}/api/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex }) });
    const { receipt, ...answer } = (submitted.body ?? {}) as { receipt?: unknown };
    assert.deepEqual({ ...submitted, body: answer }, { status: 200, body: { status: 'success', message: tx.txid }, error: null });
    // The receipt, and the keys that check it, are readable from any origin too.
    assert.equal(typeof receipt, 'string');
    const keys = await fetchFromTool(page, `${app.base}/.well-known/jwks.json`);
    assert.equal(keys.status, 200, JSON.stringify(keys));
    assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid));

    const status = await fetchFromTool(page, `${app.base}/api/transactions/status?tx_id=${tx.txid}`);
    assert.equal(status.status, 200);
    assert.deepEqual([status.body?.is_success, status.body?.tx_id, status.body?.state], [true, tx.txid, 'in_mempool']);
    const explorer = await fetchFromTool(page, `${app.base}/api/tx/${tx.txid}/status`);
    assert.deepEqual(explorer.body, { confirmed: false });

    // A staff endpoint: the browser refuses the page the answer (no CORS), with or without a token.
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Array<Record<string, string>>) {
      const staff = await fetchFromTool(page, `${app.base}/rest-api/client/view`, { headers });
      assert.equal(staff.status, 0, JSON.stringify(staff));
      assert.match(staff.error ?? '', /TypeError: Failed to fetch/);
    }
    const login = await fetchFromTool(page, `${app.base}/rest-api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.match(login.error ?? '', /Failed to fetch/, 'login is not callable from another origin');
    await context.close();
  });

  test('a 429 from the shared per-address budget: the page reads Retry-After', async () => {
    const limitedDb = await testDatabases()[0]!.open();
    const limited = await startWebTestApp(node, limitedDb, { rateLimitMax: 2 });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(toolUrl);
      const answers = await page.evaluate(async (base) => {
        const seen: Array<{ status: number; retryAfter: string | null }> = [];
        for (const path of ['/api/rates', '/rest-api/getinfo', '/api/system']) {
          const res = await fetch(`${base}${path}`);
          seen.push({ status: res.status, retryAfter: res.headers.get('Retry-After') });
        }
        return seen;
      }, limited.base);
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 429], 'one budget for both APIs');
      assert.match(answers[2]!.retryAfter ?? '', /^\d+$/, 'Retry-After is exposed to the page');
      await context.close();
    } finally {
      await limited.close();
      await limitedDb.close();
    }
  });
});
