import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { launchBrowser, screenshot, WEB_DIST_DIR } from '../helpers/browser.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The route table of SPEC.md section 2 in a real browser, against the real
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

test('/dashboard without a stored sign-in token goes to /login, which starts the sign-in redirect', async () => {
  const held: Route[] = [];
  const page = await visit('/dashboard', async (p) => {
    // Hold the requests to the provider so the redirect screen stays up to be seen.
    await p.route(`${t.idp.issuer}/**`, (route) => {
      held.push(route);
    });
  });
  await page.waitForURL(`${base}/login`);
  await page.getByText('Redirecting to login...').waitFor();
  await screenshot(page, 'login-redirect');
  // A page with requests still pending can hang its close: end them first.
  await Promise.all(held.map((route) => route.abort()));
  await page.getByRole('alert').waitFor(); // the failed discovery is reported
  await page.close();
});
