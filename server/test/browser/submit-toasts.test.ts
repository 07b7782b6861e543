import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { launchBrowser, screenshot } from '../helpers/browser.ts';

/**
 * The public submit page's toasts, measured in Chromium at 1280 and 390 px
 * with scrollbars drawn as a desktop browser draws them: each toast lies
 * inside the page's visible width, and a submission that fails closes
 * the success toast of the one before it, so the page never says
 * "submitted successfully" beside "Submission failed.".
 */

let suite: BrowserSuite;
let withScrollbars: Browser;
let context: BrowserContext;

before(async () => {
  suite = await startBrowserSuite({ utxos: 4 });
  withScrollbars = await launchBrowser({ scrollbars: true });
  context = await withScrollbars.newContext();
});

after(async () => {
  await context?.close();
  await withScrollbars?.close();
  await suite?.close();
});

const toasts = (page: Page) => page.locator('.Toastify__toast');

/** Every toast's box lies inside the page's visible width (the viewport less its scrollbar), once its entrance (a slide from the right) has ended. */
async function toastsInside(page: Page): Promise<void> {
  // react-toastify takes its enter class off when the entrance animation ends.
  await page.locator('.Toastify__toast').first().waitFor();
  await page.locator('.Toastify__toast[class*="-enter"]').first().waitFor({ state: 'detached' });
  // The toast, what it holds (its close button, its progress bar) and the container around it.
  const parts = page.locator('.Toastify__toast-container, .Toastify__toast, .Toastify__toast *');
  const boxes = await Promise.all((await parts.all()).map(async (t) => ({ what: await t.getAttribute('class'), box: await t.boundingBox() })));
  assert.ok(boxes.length > 1, 'a toast is shown');
  const width = await page.evaluate<number>('document.documentElement.clientWidth');
  for (const { what, box } of boxes) {
    if (!box || box.width === 0) continue;
    assert.ok(box.x >= 0 && box.x + box.width <= width, `at ${width} px ${String(what)} ${JSON.stringify(box)} lies inside the viewport`);
  }
}

for (const width of [1280, 390]) {
  test(`at ${width} px: the success toast lies inside the viewport, and a failed submission after it closes it`, async () => {
    const { node, app } = suite;
    const page = await context.newPage();
    await page.setViewportSize({ width, height: width > 500 ? 800 : 844 });
    await page.goto(`${app.base}/`);
    const good = await node.buildTx({ feeRate: 20 });
    await page.getByLabel(/Raw transaction hex/).fill(good.hex);
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    await page.getByText('Transaction submitted successfully!', { exact: true }).waitFor();
    await toastsInside(page);
    await screenshot(page, `submit-toast-success-${width}`, { fullPage: false });
    await page.getByRole('button', { name: `Copy txid ${good.txid}` }).click();
    await page.getByText('Txid copied!', { exact: true }).waitFor();
    await toastsInside(page);
    await screenshot(page, `submit-toast-two-${width}`, { fullPage: false });

    // Below the minimum fee: refused, while the success toast would still be up for seconds.
    const cheap = await node.buildTx({ feeRate: 0.2 });
    await page.getByLabel(/Raw transaction hex/).fill(cheap.hex);
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Submission failed.' }).waitFor();
    // Closed, or on its way out (its exit animation running): not left up for its 5 seconds.
    const success = toasts(page).filter({ hasText: 'Transaction submitted successfully!' });
    assert.equal(await success.and(page.locator(':not([class*="-exit"])')).count(), 0, 'the success toast is not left up beside "Submission failed."');
    await success.first().waitFor({ state: 'detached' });
    await screenshot(page, `submit-toast-failed-${width}`);
    await page.close();
  });
}
