import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { INVALID_TEXT, VALID_TEXT } from '../../../web/src/public/verify/verify-texts.ts';
import { screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import type { TestNode } from '../helpers/regtest.ts';
import type { WebTestApp } from '../helpers/web-app.ts';

/**
 * Receipts in Chromium (docs/behaviour.md#quotes-and-receipts): a
 * transaction submitted on the submit page comes with its receipt, kept in
 * the browser; the status page downloads it; /verify says valid for it, and
 * invalid for the same receipt with one field changed, at 1280 and 390 px;
 * once mined, it checks the node's merkle proof against the block header.
 */

let suite: BrowserSuite;
let node: TestNode;
let app: WebTestApp;
let browser: Browser;

before(async () => {
  suite = await startBrowserSuite({ utxos: 6 });
  ({ node, app, browser } = suite);
});

after(() => suite?.close());

/** The receipt with its fee changed, its header and signature kept. */
function tampered(receipt: string): string {
  const [head, body, signature] = receipt.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as { fee: number };
  return `${head}.${Buffer.from(JSON.stringify({ ...claims, fee: claims.fee + 1000 })).toString('base64url')}.${signature}`;
}

async function noSidewaysScroll(page: Page, width: number): Promise<void> {
  assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, `no sideways scrolling at ${width} px`);
}

async function verify(page: Page, receipt: string): Promise<string> {
  await page.goto(`${app.base}/verify`);
  await page.getByLabel('Receipt').fill(receipt);
  await page.getByRole('button', { name: 'VERIFY' }).click();
  const verdict = page.getByTestId('receipt-verdict');
  await verdict.waitFor();
  return verdict.innerText();
}

describe('receipts in the browser', () => {
  let receipt = '';
  let txid = '';

  test('the submit page names its quote and keeps the receipt; the status page downloads it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    try {
      const tx = await node.buildTx({ feeRate: 4 });
      txid = tx.txid;
      await page.goto(app.base);
      await page.getByTestId('quote-held').waitFor();
      assert.match(await page.getByTestId('quote-held').innerText(), /2\.00 sat\/vB is held for you until/);
      const sent = page.waitForRequest((r) => r.url().endsWith('/rest-api/submit-tx'));
      await page.getByLabel(/Raw transaction hex/).fill(tx.hex);
      await page.getByRole('button', { name: 'SUBMIT' }).click();
      const body = (await sent).postDataJSON() as { quote_id?: string };
      assert.match(body.quote_id ?? '', /^q1\./, 'the submission names the quote the page holds');
      await page.getByText('Transaction accepted into the mempool.').waitFor();
      receipt = await page.evaluate<string>(`JSON.parse(localStorage.getItem('slipstream-receipts')).find(([t]) => t === '${tx.txid}')[1]`);
      assert.match(receipt, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.equal(await page.getByRole('link', { name: 'Verify receipt' }).getAttribute('href'), `/verify#receipt=${receipt}`);

      await page.getByRole('link', { name: 'View mining status' }).click();
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download receipt' }).click();
      const file = await download;
      assert.equal(file.suggestedFilename(), `receipt-${tx.txid}.jws`);
      assert.equal((await readFile(await file.path(), 'utf8')).trim(), receipt);
      await screenshot(page, 'receipt-status-page');

      // Another browser never submitted it: nothing to offer, and nothing asked of the pool.
      const stranger = await browser.newPage();
      await stranger.goto(`${app.base}/status?txid=${tx.txid}`);
      await stranger.getByText('Transaction status').waitFor();
      await stranger.getByText('Virtual size').waitFor();
      assert.equal(await stranger.getByRole('button', { name: 'Download receipt' }).count(), 0);
      await stranger.close();
    } finally {
      await context.close();
    }
  });

  for (const width of [1280, 390]) {
    test(`/verify says valid for the real receipt and invalid for a tampered one at ${width} px`, async () => {
      assert.ok(receipt, 'the submit test ran first');
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      try {
        const valid = await verify(page, receipt);
        assert.match(valid, new RegExp(`^${VALID_TEXT}: signed by Slipstream \\(regtest\\)`));
        const details = await page.getByTestId('receipt-details').innerText();
        assert.ok(details.replace(/\s/g, '').includes(txid), 'the txid shown');
        assert.deepEqual(await seriousA11yViolations(page), []);
        await noSidewaysScroll(page, width);
        await screenshot(page, `verify-valid-${width}`);
        await page.screenshot({ path: `/tmp/verify-valid-${width}.png`, fullPage: true });

        const invalid = await verify(page, tampered(receipt));
        assert.match(invalid, new RegExp(`^${INVALID_TEXT.replace('.', '\\.')} The signature does not verify`));
        assert.equal(await page.getByTestId('receipt-details').count(), 0, 'nothing of a tampered receipt is shown as fact');
        await noSidewaysScroll(page, width);
        await screenshot(page, `verify-invalid-${width}`);
        await page.screenshot({ path: `/tmp/verify-invalid-${width}.png`, fullPage: true });
      } finally {
        await page.close();
      }
    });
  }

  test('once mined, /verify (opened from the link) checks the merkle proof against the block header', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    try {
      await page.goto(`${app.base}/verify#receipt=${receipt}`);
      await page.getByTestId('receipt-verdict').waitFor();
      await page.getByRole('button', { name: 'CHECK IT WAS MINED' }).click();
      assert.match(await page.getByTestId('proof-verdict').innerText(), /^Not mined yet/);
      const [hash] = await node.mine(1);
      await page.getByRole('button', { name: 'CHECK IT WAS MINED' }).click();
      await page.getByText(/^Mined in block/).waitFor();
      const proved = await page.getByTestId('proof-verdict').innerText();
      assert.match(proved, new RegExp(`Mined in block ${await node.rpc.call<number>('getblockcount')}\\.`));
      assert.ok(proved.replace(/\s/g, '').includes(hash!), 'the block hash shown');
      await noSidewaysScroll(page, 390);
      await screenshot(page, 'verify-mined-390');
      await page.screenshot({ path: '/tmp/verify-mined-390.png', fullPage: true });
    } finally {
      await page.close();
    }
  });
});
