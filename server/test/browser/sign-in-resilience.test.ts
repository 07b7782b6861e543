import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * Staff sign-in when things go wrong (docs/behaviour.md#sign-in-retries): the
 * retries (5, waiting 2^n s from 1 s, on a network failure or a 429) on the
 * identity provider's own endpoints, and a session that goes on with its
 * still-valid ID token when the short-lived access token has expired and the
 * set cannot be renewed.
 */

const STORAGE_KEY = 'okta-token-storage';
const SESSION_EXPIRED = 'Session expired. Please log in again.';

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

async function signInAtProvider(page: Page, username: 'admin' | 'viewer'): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(app.password(username));
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Where the page goes first: the provider's login page, or an error shown on the portal's own page. */
async function providerOrAlert(page: Page): Promise<string> {
  return Promise.race([
    page.waitForURL((url) => url.href.startsWith(app.idp.issuer), { timeout: 60_000 }).then(() => 'provider'),
    page.getByRole('alert').waitFor({ timeout: 60_000 }).then(async () => `alert: ${await page.getByRole('alert').innerText()}`),
  ]);
}

describe('the provider\'s endpoints', () => {
  test('discovery and the token call are retried on a network failure and a 429, then sign-in completes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cors = { 'access-control-allow-origin': app.base };
    const discovery: string[] = [];
    await page.route(`${app.idp.issuer}/.well-known/openid-configuration`, async (route) => {
      discovery.push(new Date().toISOString());
      // Two refused connections, one 429, then the provider answers.
      if (discovery.length <= 2) await route.abort('connectionrefused');
      else if (discovery.length === 3) await route.fulfill({ status: 429, headers: cors, body: 'slow down' });
      else await route.continue();
    });
    const token: string[] = [];
    await page.route(`${app.idp.issuer}/token`, async (route) => {
      token.push(route.request().method());
      if (route.request().method() === 'POST' && token.filter((m) => m === 'POST').length === 1) await route.abort('connectionrefused');
      else await route.continue();
    });
    await page.goto(`${app.base}/login`);
    assert.equal(await providerOrAlert(page), 'provider', 'the provider being briefly unreachable must not end the sign-in');
    assert.equal(discovery.length, 4, 'four attempts: two network failures and a 429 retried');
    await signInAtProvider(page, 'admin');
    await page.waitForURL((url) => url.origin === app.base && url.pathname === '/dashboard');
    await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
    assert.equal(token.filter((m) => m === 'POST').length, 2, 'the code was redeemed on the second attempt');
    await context.close();
  });
});

describe('an expired access token', () => {
  test('reopening the dashboard goes on with the still-valid ID token when the set cannot be renewed', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.base}/dashboard`);
    await signInAtProvider(page, 'admin');
    await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
    const raw = await page.evaluate<string | null>(`localStorage.getItem('${STORAGE_KEY}')`);
    const set = JSON.parse(raw!) as Record<string, unknown>;
    // The access token ran out a second ago, and the refresh token is no good (the provider restarted and forgot it).
    const stale = JSON.stringify({ ...set, refresh_token: 'forgotten-by-the-provider', expires_at: Math.floor(Date.now() / 1000) - 1 });
    await page.evaluate(`localStorage.setItem('${STORAGE_KEY}', ${JSON.stringify(stale)})`);
    const refused = page.waitForResponse((r) => r.url() === `${app.idp.issuer}/token` && r.request().method() === 'POST');
    await page.goto(`${app.base}/dashboard?section=discounts`);
    assert.equal((await refused).status(), 400, 'the renewal was tried and refused');
    // The session goes on: another section loads with the ID token as the bearer.
    await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('table', { name: 'Settings' }).locator('tbody tr').first().waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    assert.equal(await page.getByText(SESSION_EXPIRED).count(), 0);
    assert.equal(await page.evaluate<string | null>(`localStorage.getItem('${STORAGE_KEY}')`), stale, 'the set is kept until its ID token expires');
    await context.close();
  });
});
