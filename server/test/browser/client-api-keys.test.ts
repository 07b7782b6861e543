import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import { MISSING_AUTHORIZATION_MESSAGE } from '../../src/modules/slipstream-api/slipstream-api.routes.ts';
import { launchBrowser, screenshot } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The Clients screen's API keys in Chromium, at 1280 and 390 px: an
 * administrator issues a key (shown once), the key works for the public
 * API's dry run, and revoking it ends it. A viewer has no Keys button.
 */

const CLIENT = 'Key Holder';
let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let admin: BrowserContext;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(3);
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

const dryRun = async (key: string, hex: string) => {
  const res = await fetch(`${app.base}/api/mempool/tests`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ tx_hexes: [hex] }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('API keys on the Clients screen', () => {
  for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
    test(`${name} (${viewport.width} px): issue a key shown once, use it, revoke it`, async () => {
      const page = await admin.newPage();
      await page.setViewportSize(viewport);
      await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
      await page.getByRole('button', { name: `API keys of client ${CLIENT}` }).click();
      const dialog = page.getByRole('dialog', { name: 'API Keys' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Issue API key' }).click();
      const secret = (await dialog.getByTestId('api-key-secret').textContent())?.trim() ?? '';
      assert.match(secret, /^sk_[A-Za-z0-9_-]{43}$/);
      await dialog.getByText('Copy this key now: it is not shown again.').waitFor();
      const prefix = secret.slice(0, 9);
      await dialog.getByRole('button', { name: `Revoke API key ${prefix}` }).waitFor();
      // Usable: nothing wider than the screen, the dialog included.
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, 'no sideways scrolling');
      assert.equal(await page.evaluate<boolean>("(() => { const d = document.querySelector('dialog[open]'); return d.scrollWidth > d.clientWidth + 1 || d.getBoundingClientRect().right > window.innerWidth + 1; })()"), false, 'the dialog fits');
      await screenshot(page, `client-api-keys-${name}`);

      const tx = await node.buildTx({ feeRate: 3 });
      const used = await dryRun(secret, tx.hex);
      assert.equal(used.status, 200, JSON.stringify(used.body));

      await dialog.getByRole('button', { name: `Revoke API key ${prefix}` }).click();
      // This key's row says so (the phone run also lists the key the desktop run revoked): the server has revoked it.
      await dialog.getByRole('listitem').filter({ hasText: `${prefix}…` }).getByText(/, revoked .* by admin/).waitFor();
      assert.deepEqual(await dryRun(secret, tx.hex), { status: 401, body: { is_success: false, message: MISSING_AUTHORIZATION_MESSAGE } });

      // Closed and opened again: the key itself is gone for good, its prefix stays listed.
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('button', { name: `API keys of client ${CLIENT}` }).click();
      await page.getByRole('dialog', { name: 'API Keys' }).getByText(`${prefix}…`).waitFor();
      assert.equal(await page.getByTestId('api-key-secret').count(), 0);
      await page.close();
    });
  }

  test('the form shows the error of the last action only', async () => {
    const page = await admin.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
    await page.getByRole('button', { name: `API keys of client ${CLIENT}` }).click();
    const dialog = page.getByRole('dialog', { name: 'API Keys' });
    const formError = dialog.locator('.form-error');
    const failOnce = (method: string, message: string) =>
      page.route(
        '**/rest-api/client/*/api-keys**',
        (route) =>
          route.request().method() === method
            ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message }) })
            : route.continue(),
        { times: 1 },
      );

    await dialog.getByRole('button', { name: 'Issue API key' }).click();
    const prefix = ((await dialog.getByTestId('api-key-secret').textContent()) ?? '').trim().slice(0, 9);
    const revoke = dialog.getByRole('button', { name: `Revoke API key ${prefix}` });

    // Revoking fails once; issuing after it works, and the revoke's failure no longer stands.
    await failOnce('DELETE', 'Revoking failed for the test.');
    await revoke.click();
    await formError.getByText('Revoking failed for the test.').waitFor();
    const secondSecret = dialog.getByTestId('api-key-secret');
    await dialog.getByRole('button', { name: 'Issue API key' }).click();
    await until(async () => ((await secondSecret.textContent()) ?? '').trim().slice(0, 9) !== prefix, async () => 'no new key shown');
    assert.equal(await formError.count(), 0, 'no error after the key was issued');

    // Issuing fails once; revoking after it works, and the failure no longer stands.
    await failOnce('POST', 'Issuing failed for the test.');
    await dialog.getByRole('button', { name: 'Issue API key' }).click();
    await formError.getByText('Issuing failed for the test.').waitFor();
    await revoke.click();
    await revoke.waitFor({ state: 'detached' });
    assert.equal(await formError.count(), 0, 'no error after the key was revoked');
    await page.close();
  });

  test('a viewer sees no Keys button', async () => {
    const viewer = await signedInContext(browser, app, 'viewer');
    const page = await viewer.newPage();
    await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
    await page.getByRole('cell', { name: CLIENT }).waitFor();
    assert.equal(await page.getByRole('button', { name: `API keys of client ${CLIENT}` }).count(), 0);
    await viewer.close();
  });
});
