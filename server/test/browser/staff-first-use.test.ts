import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/passwords.ts';
import { saveAccount } from '../../src/auth/staff-accounts.repository.ts';
import { a11yRuleViolations, launchBrowser, screenshot } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * What a first-time member of staff trips on, in Chromium at 1280 and 390
 * px: a setting that cannot be what it says is refused with what is wrong;
 * the Clients dialogs write dates as the rest of the dashboard does; the
 * list sections are landmarks that can be told apart; and a sign-in
 * provider that does not answer is said at once, with the password sign-in
 * offered.
 */

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;
const CLIENT = 'Dates Client';
/** yyyy-MM-dd HH:mm:ss, the dashboard's format (docs/behaviour.md#tables-filters-and-dates) with the time. */
const DATE_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/;

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let admin: BrowserContext;

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  await db.query('INSERT INTO clients (name) VALUES ($1)', [CLIENT]);
  browser = await launchBrowser();
  admin = await signedInContext(browser, app, 'admin');
});

after(async () => {
  await admin?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

/**
 * Loads the dashboard at `search` in `page`: a full page load, as a new tab's would be. A test that visits
 * screen after screen does it in one tab (the dashboard keeps nothing in the tab's sessionStorage), which
 * costs Chromium about half what a new tab each time does.
 */
async function load(page: Page, search: string, viewport: { width: number; height: number }): Promise<Page> {
  await page.setViewportSize(viewport);
  await page.goto(`${app.base}/dashboard?${search}`);
  // The section's own heading: on a phone the navigation hides behind its toggle.
  await page.getByRole('heading', { level: 1 }).waitFor();
  return page;
}

async function open(context: BrowserContext, search: string, viewport: { width: number; height: number }): Promise<Page> {
  return load(await context.newPage(), search, viewport);
}

const fitsTheScreen = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth + 1');

describe('Settings', () => {
  for (const [name, viewport] of VIEWPORTS) {
    test(`${name} (${viewport.width} px): a payout address that is not one is refused, saying what is wrong, and nothing changes`, async () => {
      const page = await open(admin, 'section=settings', viewport);
      await page.getByRole('button', { name: 'Edit Pool Payout Addresses' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit Pool Payout Addresses' });
      await dialog.getByText("Addresses of this portal's network, separated by commas").waitFor();
      await dialog.getByLabel('Value').fill('notanaddress');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.getByText("Value must be regtest addresses separated by commas: 'notanaddress' is not an address").waitFor();
      assert.equal(await page.getByText('Settings updated successfully!').count(), 0);
      assert.equal(await fitsTheScreen(page), true, 'no sideways scrolling');
      await screenshot(page, `settings-refused-address-${name}`);
      const { rows } = await db.query<{ value: string }>("SELECT value FROM settings WHERE item = 'pool_payout_addresses'");
      assert.equal(rows[0]!.value, '');
      await page.close();
    });
  }
});

describe('the Clients dialogs', () => {
  for (const [name, viewport] of VIEWPORTS) {
    test(`${name} (${viewport.width} px): API keys and webhook dates read yyyy-MM-dd HH:mm:ss`, async () => {
      const page = await open(admin, `section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`, viewport);
      await page.getByRole('button', { name: `API keys of client ${CLIENT}` }).click();
      const keys = page.getByRole('dialog', { name: 'API Keys' });
      await keys.getByRole('button', { name: 'Issue API key' }).click();
      const issued = keys.getByText(/issued .* by admin/).first();
      await issued.waitFor();
      const keyLine = (await issued.textContent()) ?? '';
      assert.match(keyLine, new RegExp(`issued ${DATE_TIME.source} by admin`), keyLine);
      assert.doesNotMatch(keyLine, /[AP]M|\d+\/\d+\/\d+/, keyLine);
      await screenshot(page, `client-api-key-dates-${name}`);
      await keys.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: `Webhook of client ${CLIENT}` }).click();
      const webhook = page.getByRole('dialog', { name: 'Webhook' });
      await webhook.getByLabel('Webhook URL').fill(`http://127.0.0.1:9/hook-${name}`);
      await webhook.getByRole('button', { name: 'Save webhook' }).click();
      const meta = webhook.getByText(/^Set .*, last changed .*\.$/);
      await meta.waitFor();
      const metaLine = (await meta.textContent()) ?? '';
      assert.match(metaLine, new RegExp(`^Set ${DATE_TIME.source}, last changed ${DATE_TIME.source}\\.$`), metaLine);
      assert.equal(await fitsTheScreen(page), true, 'no sideways scrolling');
      await screenshot(page, `client-webhook-dates-${name}`);
      await page.close();
    });
  }
});

describe('the dashboard lists', () => {
  test('each list section and its scrolling table are landmarks of different names (axe landmark-unique), at 1280 and 390 px', async () => {
    const page = await admin.newPage();
    for (const [, viewport] of VIEWPORTS) {
      for (const section of ['txPuller', 'clientmanagement', 'discounts', 'failedtx', 'settings', 'reports', 'audit']) {
        await load(page, `section=${section}`, viewport);
        await page.locator('.table-scroll').first().waitFor();
        const violations = await a11yRuleViolations(page, ['landmark-unique']);
        assert.deepEqual(violations, [], `${section} at ${viewport.width} px: ${JSON.stringify(violations, null, 2)}`);
      }
    }
    await page.close();
  });
});

describe('sign-in when the provider does not answer', () => {
  test('says so from the first failed attempt, offers the password sign-in, and then says the provider is unreachable', async () => {
    await saveAccount(db, { username: 'breakglass', passwordHash: await hashPassword('a password for the day it is down'), isAdmin: true });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setViewportSize(VIEWPORTS[1][1]);
    let attempts = 0;
    await page.route(`${app.idp.issuer}/**`, async (route) => {
      attempts++;
      await route.abort('connectionrefused');
    });
    await page.goto(`${app.base}/login`);
    await page.getByRole('status').filter({ hasText: 'The sign-in provider is not answering (attempt 1 of 6); trying again.' }).waitFor();
    assert.ok(attempts < 6, `said before the retries were spent (${attempts} attempts so far)`);
    await page.getByRole('link', { name: 'Sign in with a staff account instead' }).waitFor();
    await screenshot(page, 'login-provider-not-answering-phone');

    // The retries of docs/behaviour.md#sign-in-retries run their course (1+2+4+8+16 s), then the page says what is wrong in words.
    const unreachable = page.getByRole('alert');
    await unreachable.waitFor({ timeout: 60_000 });
    assert.equal(await unreachable.textContent(), `The sign-in provider at ${app.idp.issuer} is unreachable.`);
    assert.equal(attempts, 6);
    assert.equal(await page.getByText('TypeError').count(), 0);
    await screenshot(page, 'login-provider-unreachable-phone');
    await page.setViewportSize(VIEWPORTS[0][1]);
    await screenshot(page, 'login-provider-unreachable-desktop');

    await page.getByRole('link', { name: 'Sign in with a staff account instead' }).click();
    await page.getByLabel('Username').fill('breakglass');
    await page.getByLabel('Password').fill('a password for the day it is down');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard');
    await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
    await context.close();
  });
});
