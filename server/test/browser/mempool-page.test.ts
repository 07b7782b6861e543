import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The /mempool/ dashboard in a real browser on the real engine (docs/behaviour.md#mempool-view):
 * transactions sent to the node appear in the projected blocks without a
 * reload, a mined block appears marked as the pool's own, and the staff
 * dashboard embeds the page. The view is private by default: signed-in
 * staff see it (the page sends their token as a header), anyone else is
 * told so, unless the public mempool view setting is on.
 */

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(4);
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

test('transactions show up in the projected blocks live, and a mined block as ours', async () => {
  const context = await signedInContext(browser, app, 'viewer');
  const page = await context.newPage();
  await page.goto(`${app.base}/mempool/`);
  const strip = page.getByRole('region', { name: 'Projected and mined blocks' });
  await strip.waitFor();
  for (let i = 0; i < 3; i++) {
    const tx = await node.buildTx({ feeRate: 5 + i });
    await node.rpc.call('sendrawtransaction', [tx.hex]);
  }
  // No reload: the page follows the engine's stream.
  await strip.getByText('3 txs').first().waitFor({ timeout: 20_000 });
  await screenshot(page, 'mempool-page');
  assert.deepEqual(await seriousA11yViolations(page), []);

  await node.mine();
  const height = await node.rpc.call<number>('getblockcount');
  const newest = new RegExp(`Ours\\s+Height\\s+${height}\\s+4 txs`);
  await until(async () => newest.test(await strip.innerText()), async () => `no block ${height} in: ${await strip.innerText()}`, 20_000);
  // The new block (our three and the coinbase) arrived without a reload, marked as the pool's own (on regtest every block is).
  assert.match(await strip.innerText(), /The mempool is empty\./);
  await context.close();
});

test('the staff dashboard embeds it full height', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${app.base}/dashboard?section=mempool`);
  await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await page.getByLabel('Username').fill('viewer');
  await page.getByLabel('Password').fill(app.password('viewer'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.base}/dashboard?section=mempool`);
  const frame = page.frameLocator('iframe[title="Mempool"]');
  await frame.getByRole('heading', { name: 'Fee rates in the mempool' }).waitFor();
  const box = await page.locator('iframe[title="Mempool"]').boundingBox();
  const viewport = page.viewportSize()!;
  assert.ok(box && box.height > viewport.height * 0.6, `the frame is ${box?.height} px tall in a ${viewport.height} px window`);
  await screenshot(page, 'dashboard-mempool');
  await context.close();
});

test('private by default: an anonymous visit says so instead of waiting, and a sign-in in another tab brings the view', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/mempool/api/')) asked.push(request.url());
  });
  await page.goto(`${app.base}/mempool/`);
  await page.getByText('The mempool view is private: sign in to the dashboard to see it.').waitFor();
  await page.getByRole('status').filter({ hasText: 'Private' }).waitFor();
  assert.equal(await page.getByRole('region', { name: 'Projected and mined blocks' }).count(), 0);
  assert.equal(await page.getByRole('link', { name: 'Sign in' }).getAttribute('href'), '/dashboard?section=mempool');
  assert.deepEqual(await seriousA11yViolations(page), []);
  await screenshot(page, 'mempool-page-private');
  // It stopped asking: no retry loop against a 401.
  const settled = asked.length;
  await page.waitForTimeout(4_000);
  assert.equal(asked.length, settled, `asked again: ${asked.slice(settled).join(', ')}`);
  assert.ok(asked.every((url) => !/token|bearer|id_token/i.test(url)), 'no token in a URL');

  // Signed in in another tab of the same browser: this one hears of the stored session and shows the view.
  const other = await context.newPage();
  await other.goto(`${app.base}/dashboard`);
  await other.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await other.getByLabel('Username').fill('viewer');
  await other.getByLabel('Password').fill(app.password('viewer'));
  await other.getByRole('button', { name: 'Sign in' }).click();
  await other.waitForURL((url) => url.origin === app.base && url.pathname === '/dashboard');
  await page.getByRole('region', { name: 'Projected and mined blocks' }).waitFor({ timeout: 20_000 });
  assert.ok(asked.every((url) => !/token|bearer|id_token/i.test(url)), 'no token in a URL');
  await context.close();
});

test('an administrator opens the view to everyone from the Settings screen and closes it again; both changes are in the Setting Logs', async () => {
  const admin = await signedInContext(browser, app, 'admin');
  const visitor = await browser.newContext();
  try {
    const page = await admin.newPage();
    await page.goto(`${app.base}/dashboard?section=settings`);
    await page.locator('table[aria-label="Settings"][aria-busy="false"]').waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Public Mempool View', exact: true }) });
    assert.equal((await row.getByRole('cell').allInnerTexts())[1], 'false', 'off by default');
    for (const value of ['true', 'false'] as const) {
      await page.getByRole('button', { name: 'Edit Public Mempool View' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit Public Mempool View' });
      await dialog.getByLabel('Value').selectOption(value);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Settings updated successfully!', { exact: true }).first().waitFor();
      await dialog.waitFor({ state: 'hidden' });
      await until(async () => (await row.getByRole('cell').allInnerTexts())[1] === value, async () => `the row says ${(await row.getByRole('cell').allInnerTexts()).join(' | ')}`);

      // Anyone, without signing in:
      const view = await visitor.newPage();
      await view.goto(`${app.base}/mempool/`);
      if (value === 'true') await view.getByRole('region', { name: 'Projected and mined blocks' }).waitFor();
      else await view.getByText('The mempool view is private: sign in to the dashboard to see it.').waitFor();
      await view.close();
    }

    await page.goto(`${app.base}/dashboard?section=audit&tab=settings`);
    await page.locator('table[aria-label="Setting Logs"][aria-busy="false"]').waitFor();
    await page.getByLabel('Name').fill('Public Mempool View');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.pager .range', { hasText: /^1 - 2 of 2$/ }).waitFor();
    const logs = page.getByRole('table', { name: 'Setting Logs' });
    const rows = await Promise.all([0, 1].map(async (i) => (await logs.locator('tbody tr').nth(i).getByRole('cell').allInnerTexts()).slice(1, 5)));
    // The Email column: the staff member's email from the sign-in token, the username beside it.
    assert.deepEqual(rows, [
      ['admin@example.test (admin)', 'Public Mempool View', 'true', 'false'],
      ['admin@example.test (admin)', 'Public Mempool View', 'false', 'true'],
    ]);
  } finally {
    await visitor.close();
    await admin.close();
  }
});
