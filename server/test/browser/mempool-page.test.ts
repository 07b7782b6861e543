import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The /mempool/ dashboard in a real browser on the real engine (issue 3):
 * transactions sent to the node appear in the projected blocks without a
 * reload, a mined block appears marked as the pool's own, and the staff
 * dashboard embeds the page.
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
  const context = await browser.newContext();
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
