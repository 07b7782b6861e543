import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { launchBrowser, screenshot, until, WEB_DIST_DIR } from '../helpers/browser.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The route table of docs/behaviour.md#web-routes in a real browser, against the real
 * server (history routing) on a real node and database.
 */

let node: TestNode;
let db: TestDatabase;
let t: WebTestApp;
let browser: Browser;
let base: string;

before(async () => {
  assert.ok(existsSync(path.join(WEB_DIST_DIR, 'index.html')), 'the web app is built (npm test builds it first)');
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  t = await startWebTestApp(node, db);
  base = t.base;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await t?.close();
  await db?.close();
  await node?.stop();
});

async function visit(pathname: string, setup?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await browser.newPage();
  if (setup) await setup(page);
  await page.goto(`${base}${pathname}`);
  return page;
}

test('the landing page shows the banner: the network name, then the portal name', async () => {
  const page = await visit('/');
  await page.getByRole('heading', { name: 'regtest Direct Transaction Submission Portal.' }).waitFor();
  await screenshot(page, 'landing');
  await page.close();
});

test('any other path goes to /', async () => {
  const page = await visit('/no/such/page?x=1');
  await page.waitForURL(`${base}/`);
  await page.close();
});

test('/status needs a txid of at least 3 characters, otherwise it goes to /', async () => {
  for (const bad of ['/status', '/status?txid=', '/status?txid=ab']) {
    const page = await visit(bad);
    await page.waitForURL(`${base}/`);
    await page.close();
  }
  const page = await visit('/status?txid=abc');
  await page.getByRole('heading', { name: 'Transaction status' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/status');
  await page.close();
});

test('/tx/<txid>, the path form block explorers use, opens the status page of that txid', async () => {
  const tx = await node.buildTx({ feeRate: 3 });
  assert.equal((await t.app.inject({ method: 'POST', url: '/api/transactions', payload: { tx_hex: tx.hex } })).statusCode, 200);
  const page = await visit(`/tx/${tx.txid}`);
  await page.getByRole('heading', { name: 'Transaction status' }).waitFor();
  await page.getByText(tx.txid.slice(0, 20)).first().waitFor();
  assert.equal(new URL(page.url()).pathname, `/tx/${tx.txid}`);
  await page.close();
});

test('/dashboard without a stored sign-in token goes to /login, which starts the sign-in redirect', async () => {
  const held: Route[] = [];
  let attempts = 0;
  const page = await visit('/dashboard', async (p) => {
    // The sign-in layer's backoff (1, 2, 4, 8, 16 s) runs on a test clock.
    await p.clock.install();
    // Hold the first request to the provider so the redirect screen stays up to be seen; refuse the rest.
    await p.route(`${t.idp.issuer}/**`, async (route) => {
      attempts += 1;
      if (attempts === 1) held.push(route);
      else await route.abort('connectionrefused');
    });
  });
  await page.waitForURL(`${base}/login`);
  await page.getByText('Redirecting to login...').waitFor();
  await screenshot(page, 'login-redirect');
  // A page with requests still pending can hang its close: end them first.
  await Promise.all(held.map((route) => route.abort('connectionrefused')));
  // docs/behaviour.md#sign-in-retries: retried 5 times on a network failure, then the failed discovery is reported.
  const alert = page.getByRole('alert');
  await until(
    async () => {
      await page.clock.fastForward(4_000);
      return (await alert.count()) > 0;
    },
    async () => `no failure shown after ${attempts} attempts`,
  );
  assert.equal(attempts, 6, 'the first attempt and 5 retries');
  await page.close();
});
