import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot } from '../helpers/browser.ts';
import type { TestNode } from '../helpers/regtest.ts';
import { signedInContext, type WebTestApp } from '../helpers/web-app.ts';

/**
 * What a returning user and an operator's probe meet in a real browser: a
 * transaction pasted again after it was mined (wrapped over lines, as tools
 * wrap it) is previewed and answered "already confirmed in block N" with a
 * link; the blank page /synchro/table fetches its endpoint and shows nothing;
 * a staff member finds their change in the Logs under their email, with
 * their username beside it.
 */

let node: TestNode;
let app: WebTestApp;
let browser: Browser;
let visitor: BrowserContext;

let suite: BrowserSuite;

before(async () => {
  suite = await startBrowserSuite({ utxos: 4 });
  ({ node, app, browser, context: visitor } = suite);
});

after(() => suite?.close());

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.base}${path}`);
  return page;
}

describe('a transaction already mined, pasted again', () => {
  test('the preview and the submission say which block holds it, with a link, instead of "inputs the node does not know"', async () => {
    const tx = await node.buildTx({ feeRate: 3 });
    await node.rpc.call('sendrawtransaction', [tx.hex]);
    await node.mine(1);
    const height = await node.rpc.call<number>('getblockcount');
    const expected = `This transaction is already confirmed in block ${height}.`;

    const page = await open(visitor, '/');
    const wrapped = (tx.hex.match(/.{1,76}/g) ?? []).join('\r\n');
    await page.getByLabel(/Raw transaction hex/).fill(wrapped);
    const summary = page.getByRole('region', { name: 'Decoded transactions' });
    await summary.getByText(expected).waitFor();
    assert.doesNotMatch(await summary.innerText(), /does not know/);
    assert.equal(await summary.getByRole('link', { name: 'View its status' }).getAttribute('href'), `/status?txid=${tx.txid}`);
    await screenshot(page, 'returning-user-already-confirmed-preview');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'the message and its link fit a phone');
    await screenshot(page, 'returning-user-already-confirmed-preview-390');
    await page.setViewportSize({ width: 1280, height: 720 });

    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'Submission failed.' });
    await failed.getByText(expected).waitFor();
    assert.doesNotMatch(await failed.innerText(), /txn-already-known|missing-inputs/);
    await failed.getByRole('link', { name: 'View its status' }).click();
    await page.waitForURL((url) => url.pathname === '/status' && url.searchParams.get('txid') === tx.txid);
    await page.getByText(String(height)).first().waitFor();
    await page.close();
  });
});

describe('the blank page /synchro/table', () => {
  test('signed in, it fetches the synchro table with the stored token and shows nothing', async () => {
    const staff = await signedInContext(browser, app, 'viewer');
    try {
      const page = await staff.newPage();
      const asked = page.waitForRequest((r) => r.url().endsWith('/rest-api/synchro/table'));
      await page.goto(`${app.base}/synchro/table`);
      assert.match((await asked).headers().authorization ?? '', /^Bearer /);
      await page.locator('main[data-synchro="loaded"]').waitFor({ state: 'attached' });
      assert.equal(new URL(page.url()).pathname, '/synchro/table', 'not redirected');
      assert.equal((await page.locator('body').innerText()).trim(), '', 'no visible content');
      await page.close();
    } finally {
      await staff.close();
    }
  });

  test('without a token it still shows nothing and stays, the endpoint refusing it', async () => {
    const page = await open(visitor, '/synchro/table');
    await page.locator('main[data-synchro="failed-401"]').waitFor({ state: 'attached' });
    assert.equal(new URL(page.url()).pathname, '/synchro/table');
    assert.equal((await page.locator('body').innerText()).trim(), '');
    await page.close();
  });
});

describe('the Logs tabs', () => {
  test('the Email column shows the email from the staff member\'s token, the username beside it, and the filter matches it', async () => {
    const staff = await signedInContext(browser, app, 'admin');
    try {
      const page = await staff.newPage();
      await page.goto(`${app.base}/dashboard?section=settings`);
      const stored = JSON.parse((await page.evaluate<string | null>("localStorage.getItem('okta-token-storage')")) ?? 'null') as { id_token: string };
      const bearer = { authorization: `Bearer ${stored.id_token}`, 'content-type': 'application/json' };
      const settings = (await (await fetch(`${app.base}/rest-api/settings/view`, { headers: bearer })).json()) as { result: Array<{ id: number; item: string }> };
      const tag = settings.result.find((x) => x.item === 'pool_coinbase_tag')!;
      const saved = await fetch(`${app.base}/rest-api/settings/update`, { method: 'POST', headers: bearer, body: JSON.stringify([{ id: tag.id, item: tag.item, value: '/Logged/' }]) });
      assert.equal(saved.status, 200);

      await page.goto(`${app.base}/dashboard?section=audit&tab=settings&username=admin%40example`);
      const table = page.getByRole('table', { name: 'Setting Logs' });
      const row = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Pool Coinbase Tag', exact: true }) });
      await row.first().waitFor();
      const cells = await row.first().getByRole('cell').allInnerTexts();
      assert.equal(cells[1], 'admin@example.test (admin)');
      await screenshot(page, 'returning-user-setting-logs-email');
      await page.close();
    } finally {
      await staff.close();
    }
  });
});
