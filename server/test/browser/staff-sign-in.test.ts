import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { decodeJwt } from 'jose';
import { hashPassword } from '../../src/auth/passwords.ts';
import { removeAccount, saveAccount } from '../../src/auth/staff-accounts.repository.ts';
import { launchBrowser, screenshot, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * Staff sign-in in a real browser (docs/behaviour.md#staff-sign-in): the authorization code flow with
 * PKCE through the embedded OpenID provider, the token set under the documented
 * storage key, roles, renewal, expiry, logout and the dashboard shell.
 */

const STORAGE_KEY = 'okta-token-storage';
const SESSION_EXPIRED = 'Session expired. Please log in again.';
const MENU = ['Tx Puller', 'Mempool', 'Clients', 'Discounts', 'Failed Transactions', 'Settings', 'Reports', 'Logs'];
const LOCAL_PASSWORD = 'a local staff password, long enough';

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  await saveAccount(db, { username: 'breakglass', passwordHash: await hashPassword(LOCAL_PASSWORD), isAdmin: true });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

interface StoredSet {
  id_token: string;
  access_token?: string;
  refresh_token?: string;
  expires_at: number;
  [key: string]: unknown;
}

async function storedSet(page: Page): Promise<StoredSet | null> {
  const raw = await page.evaluate<string | null>(`localStorage.getItem('${STORAGE_KEY}')`);
  return raw === null ? null : (JSON.parse(raw) as StoredSet);
}

async function writeStoredSet(page: Page, value: StoredSet): Promise<void> {
  await page.evaluate(`localStorage.setItem('${STORAGE_KEY}', ${JSON.stringify(JSON.stringify(value))})`);
}

/** Fills in the provider's own login page, wherever the app sent the browser. */
async function signInAtProvider(page: Page, username: 'admin' | 'viewer'): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(app.password(username));
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A fresh browser profile signed in as `username`, on the dashboard. */
async function signedIn(username: 'admin' | 'viewer', path = '/dashboard'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${app.base}${path}`);
  await signInAtProvider(page, username);
  await page.waitForURL((url) => url.origin === app.base && url.pathname === '/dashboard');
  await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
  return { context, page };
}

describe('sign-in with the OpenID provider (PKCE)', () => {
  test('an admin asks for a dashboard section, signs in at the provider and comes back to that address', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.base}/dashboard?section=settings`);
    // The guard sends the browser to /login, which starts the redirect.
    await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
    await signInAtProvider(page, 'admin');
    await page.waitForURL(`${app.base}/dashboard?section=settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();

    const set = await storedSet(page);
    assert.ok(set, 'the token set is stored under okta-token-storage');
    const claims = decodeJwt(set.id_token);
    assert.equal(claims.iss, app.idp.issuer);
    assert.equal(claims.aud, 'slipstream-portal');
    assert.deepEqual(claims.groups, ['app-slipstream-users']);

    // The shell: network name capitalised, 8 sections in order, admin columns.
    await page.getByTestId('network').getByText('Regtest', { exact: true }).waitFor();
    const menu = await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link').allTextContents();
    assert.deepEqual(menu, MENU);
    await page.getByRole('columnheader', { name: 'Actions' }).waitFor();
    // The Settings screen lists the real settings, each editable by an admin.
    await page.getByRole('cell', { name: 'Maintenance Mode', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit Maintenance Mode' }).waitFor();
    await page.getByText('admin · Admin').waitFor();
    await screenshot(page, 'dashboard-admin-settings');
    await context.close();
  });

  test('the authorization request carries an S256 code challenge and the documented scopes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorizeRequest = page.waitForRequest((request) => request.url().startsWith(`${app.idp.issuer}/auth`));
    await page.goto(`${app.base}/login`);
    const url = new URL((await authorizeRequest).url());
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.match(url.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(url.searchParams.get('scope'), 'openid profile email groups');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('redirect_uri'), `${app.base}/login/callback`);
    // Closing a context while its page is mid-navigation can hang Chromium's target close: let it land first.
    await page.getByLabel('Username').waitFor();
    await context.close();
  });

  test('/login with a stored token goes straight to /dashboard; the default section is Tx Puller', async () => {
    const { context, page } = await signedIn('admin');
    await page.goto(`${app.base}/login`);
    await page.waitForURL(`${app.base}/dashboard`);
    await page.getByRole('heading', { name: 'Tx Puller', level: 1 }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Tx Puller' }).getAttribute('aria-current'), 'page');
    await context.close();
  });

  test('a viewer sees every section but no Actions columns', async () => {
    const { context, page } = await signedIn('viewer');
    const menu = await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link').allTextContents();
    assert.deepEqual(menu, MENU);
    await page.getByText('· View only').waitFor();
    for (const section of ['Settings', 'Clients', 'Discounts']) {
      await page.getByRole('link', { name: section, exact: true }).click();
      await page.getByRole('columnheader', { name: 'Description' }).waitFor();
      assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0, `${section} has no Actions column for a viewer`);
    }
    // The server agrees: the viewer's token is refused on an admin-only check.
    const set = (await storedSet(page))!;
    const me = await fetch(`${app.base}/rest-api/staff/me`, { headers: { authorization: `Bearer ${set.id_token}` } });
    assert.equal(((await me.json()) as { is_admin: boolean }).is_admin, false);
    await screenshot(page, 'dashboard-viewer');
    await context.close();
  });

  test('the section is in the address: reload and a shared link open the same section', async () => {
    const { context, page } = await signedIn('admin');
    await page.getByRole('link', { name: 'Failed Transactions' }).click();
    await page.waitForURL(`${app.base}/dashboard?section=failedtx`);
    await page.reload();
    await page.getByRole('heading', { name: 'Failed Transaction', level: 1 }).waitFor();
    await page.goto(`${app.base}/dashboard?section=mempool`);
    const frame = page.locator('iframe[title="Mempool"]');
    assert.equal(await frame.getAttribute('src'), '/mempool/');
    await context.close();
  });
});

describe('the DASHBOARD button', () => {
  test('shows on / only with a stored token, and never on other pages', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.base}/`);
    await page.getByRole('heading', { name: /Direct Transaction Submission Portal\./ }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'DASHBOARD' }).count(), 0, 'hidden without a token');
    await context.close();

    const { context: signedInContext, page: staffPage } = await signedIn('viewer');
    await staffPage.goto(`${app.base}/`);
    await staffPage.getByRole('link', { name: 'DASHBOARD' }).click();
    await staffPage.waitForURL(`${app.base}/dashboard`);
    await staffPage.goto(`${app.base}/status?txid=abcdef`);
    await staffPage.getByRole('heading', { name: 'Transaction status' }).waitFor();
    assert.equal(await staffPage.getByRole('link', { name: 'DASHBOARD' }).count(), 0, 'not on other pages');
    await signedInContext.close();
  });
});

describe('the end of a session', () => {
  test('logout ends the provider session too and removes the token; the dashboard then asks to sign in again', async () => {
    const { context, page } = await signedIn('admin');
    await page.getByRole('button', { name: 'Logout' }).click();
    // RP-initiated logout: the provider asks, then returns to the portal's /.
    await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app.base}/`);
    assert.equal(await storedSet(page), null);
    assert.equal(await page.getByRole('link', { name: 'DASHBOARD' }).count(), 0);
    // Signed out at the provider: the next visit shows its login form again.
    await page.goto(`${app.base}/dashboard`);
    await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
    await page.getByLabel('Username').waitFor();
    await context.close();
  });

  test('a token the server rejects: the toast, the token removed, back to /', async () => {
    const { context, page } = await signedIn('admin');
    const set = (await storedSet(page))!;
    // Tampered payload: the signature no longer matches.
    const [header, payload, signature] = set.id_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, groups: ['app-slipstream-users', 'root'] })).toString('base64url');
    await writeStoredSet(page, { ...set, id_token: `${header}.${forged}.${signature}` });
    await page.reload();
    await page.getByText(SESSION_EXPIRED).waitFor();
    await page.waitForURL(`${app.base}/`);
    assert.equal(await storedSet(page), null);
    await screenshot(page, 'session-expired');
    await context.close();
  });

  test('a token set about to expire is renewed with the refresh token before it does', async () => {
    const { context, page } = await signedIn('admin');
    const before = (await storedSet(page))!;
    assert.ok(before.refresh_token, 'the provider issued a refresh token');
    const seen: string[] = [];
    page.on('response', (r) => seen.push(`${r.status()} ${r.url()}`));
    // Thirty seconds left: inside the renewal window, so the keeper renews at once.
    const soon = Math.floor(Date.now() / 1000) + 30;
    await writeStoredSet(page, { ...before, expires_at: soon });
    await page.reload();
    // The new set lives past the renewal window. (Its ID token may equal the old one
    // byte for byte: same claims within the same second, and RS256 is deterministic.)
    await until(
      async () => ((await storedSet(page))?.expires_at ?? 0) > soon + 60,
      async () => `no renewal at ${page.url()}; responses: ${seen.join(', ')}`,
    );
    const after = (await storedSet(page))!;
    assert.ok(seen.some((line) => line.startsWith(`200 ${app.idp.issuer}/token`)), 'renewed at the token endpoint');
    assert.equal(decodeJwt(after.id_token).sub, 'admin');
    assert.equal(page.url(), `${app.base}/dashboard`);
    await context.close();
  });

  test('a token set whose ID token has expired and cannot be renewed takes the 401 path', async () => {
    const { context, page } = await signedIn('admin');
    const set = (await storedSet(page))!;
    await writeStoredSet(page, { ...set, refresh_token: 'revoked-or-unknown', expires_at: Math.floor(Date.now() / 1000) - 1 });
    // The ID token (the bearer) lives an hour; an expired access token alone keeps the session
    // (sign-in-resilience.test.ts). The browser's clock moves past the ID token's expiry instead.
    await page.clock.install({ time: Date.now() + 2 * 60 * 60 * 1000 });
    await page.reload();
    await page.getByText(SESSION_EXPIRED).waitFor();
    await page.waitForURL(`${app.base}/`);
    assert.equal(await storedSet(page), null);
    await context.close();
  });
});

describe('local staff accounts', () => {
  test('a wrong password toasts the server\'s one generic message; the right one signs in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.base}/login?method=password`);
    await page.getByLabel('Username').fill('breakglass');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: /Invalid username or password/ }).waitFor();
    assert.equal(await storedSet(page), null);

    await page.getByLabel('Password').fill(LOCAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Login successful!').waitFor();
    await page.waitForURL(`${app.base}/dashboard`);
    await page.getByText('breakglass · Admin').waitFor();
    await context.close();
  });

  test('a local token about to expire is renewed by the portal, and a removed account ends the session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.base}/login?method=password`);
    await page.getByLabel('Username').fill('breakglass');
    await page.getByLabel('Password').fill(LOCAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.base}/dashboard`);
    const before = (await storedSet(page))!;
    const seen: string[] = [];
    page.on('response', (r) => seen.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    // Thirty seconds left: inside the renewal window, so the keeper renews at once.
    const soon = Math.floor(Date.now() / 1000) + 30;
    await writeStoredSet(page, { ...before, expires_at: soon });
    await page.reload();
    await until(
      async () => ((await storedSet(page))?.expires_at ?? 0) > soon + 60,
      async () => `no renewal at ${page.url()}; responses: ${seen.join(', ')}`,
    );
    const after = (await storedSet(page))!;
    assert.ok(seen.includes(`200 POST ${app.base}/rest-api/login/renew`), 'renewed at the portal');
    assert.equal(decodeJwt(after.id_token).sub, 'local:breakglass');
    assert.notEqual(after.id_token, before.id_token);
    assert.equal(page.url(), `${app.base}/dashboard`);

    // The account is removed: the next renewal is refused, the session ends as any refused token does.
    await removeAccount(db, 'breakglass');
    await writeStoredSet(page, { ...after, expires_at: Math.floor(Date.now() / 1000) + 30 });
    await page.reload();
    await page.getByText(SESSION_EXPIRED).waitFor();
    await page.waitForURL(`${app.base}/`);
    assert.equal(await storedSet(page), null);
    await context.close();
  });
});

describe('a phone-sized screen', () => {
  test('the navigation hides behind a toggle and closes after a choice', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${app.base}/dashboard`);
    await signInAtProvider(page, 'admin');
    await page.waitForURL(`${app.base}/dashboard`);
    const nav = page.getByRole('navigation', { name: 'Dashboard sections' });
    const toggle = page.getByRole('button', { name: 'Menu' });
    await toggle.waitFor();
    assert.equal(await nav.isVisible(), false, 'hidden until asked for');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Discounts' }).click();
    await page.getByRole('heading', { name: 'Discount Management', level: 1 }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    await screenshot(page, 'dashboard-phone');
    await context.close();
  });
});
