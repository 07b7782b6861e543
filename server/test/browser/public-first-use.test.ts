import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import type { TestNode } from '../helpers/regtest.ts';
import type { WebTestApp } from '../helpers/web-app.ts';

/**
 * The public pages where a first-time user tripped (docs/behaviour.md#status-page, docs/behaviour.md#limits-and-constants): a confirmed
 * transaction's page that turned red while nothing could change, the rate to
 * beat and odds shown for transactions past caring, two fee rates nobody
 * explained, toasts that followed the user and covered the controls, a txid
 * with two characters alone on its last line, tabs that shifted when one
 * turned bold, and Back from the status page emptying the form.
 */

let node: TestNode;
let app: WebTestApp;
let context: BrowserContext;

let suite: BrowserSuite;

before(async () => {
  suite = await startBrowserSuite({ utxos: 8, clipboard: true });
  ({ node, app, context } = suite);
});

after(() => suite?.close());

async function submitThroughPortal(hex: string): Promise<void> {
  const res = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: hex }) });
  assert.equal(res.status, 200, await res.text());
}

const hexBox = (page: Page) => page.getByLabel(/Raw transaction hex/);
const details = (page: Page) => page.locator('.status-details');

/** The characters of the text of the element at `selector` on each rendered line, top to bottom. */
async function lineLengths(page: Page, selector: string): Promise<number[]> {
  // An expression, not a function: the server's type-checking has no DOM library.
  const lines = await page.evaluate<number[] | null>(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    if (!element) return null;
    const lines = new Map();
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const top = Math.round(range.getBoundingClientRect().top);
        lines.set(top, (lines.get(top) ?? 0) + 1);
      }
    }
    return [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  })()`);
  assert.ok(lines, `${selector} is on the page`);
  assert.equal(lines.reduce((a, b) => a + b, 0), 64, `${selector} holds a whole txid`);
  return lines;
}

const overlaps = (a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('the status page of a transaction past waiting', () => {
  test('confirmed: the freshness indicator stops instead of turning red; no rate to beat, no odds', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    await submitThroughPortal(tx.hex);
    await node.mine();
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(`${app.base}/status?txid=${tx.txid}`);
    await page.getByTestId('tx-status').getByText('Confirmed').waitFor();
    // A minute later nothing has changed, and nothing could: the page must not call its answer stale.
    await page.clock.fastForward(61_000);
    await page.clock.fastForward(1_000);
    assert.equal(await page.locator('.last-update.stale, .last-update.ageing').count(), 0, 'the indicator does not age a final answer');
    assert.doesNotMatch(await page.locator('.status-page').innerText(), /Last update \d+ s ago/);
    const text = await details(page).innerText();
    assert.doesNotMatch(text, /Rate to beat/);
    assert.doesNotMatch(text, /Odds of mining/);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `status-confirmed-final-${width}`);
    }
    await page.close();
  });

  test('replaced: no rate to beat, no odds', async () => {
    const original = await node.buildTx({ feeRate: 4 });
    const replacement = await node.buildReplacement(original.hex, 12);
    await submitThroughPortal(original.hex);
    await submitThroughPortal(replacement.hex);
    const page = await context.newPage();
    await page.goto(`${app.base}/status?txid=${original.txid}`);
    await page.getByTestId('tx-status').getByText('No longer in the mempool (replaced or evicted)').waitFor();
    const text = await details(page).innerText();
    assert.doesNotMatch(text, /Rate to beat/);
    assert.doesNotMatch(text, /Odds of mining/);
    await page.close();
  });
});

describe('the two fee rates', () => {
  test('the submit page says what the minimum fee rate is for; the status page says what the rate to beat is and is not', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    await submitThroughPortal(tx.hex);
    const page = await context.newPage();
    await page.goto(`${app.base}/`);
    const minimum = page.locator('.minimum');
    await minimum.getByText(/Current minimum fee rate: \d+\.\d{2} sat\/vB/).waitFor();
    assert.match(await minimum.innerText(), /least a transaction must pay to be accepted/);
    await page.goto(`${app.base}/status?txid=${tx.txid}`);
    await page.getByTestId('tx-status').getByText('Waiting for the next block').waitFor();
    const text = await details(page).innerText();
    assert.match(text, /Rate to beat\s+\d+\.\d{2} sat\/vB\s*For this transaction's size, with its unconfirmed parents/);
    assert.match(text, /It is not the minimum to submit/);
    assert.match(text, /Odds of mining \(last 24 hours\)/, 'a waiting transaction keeps its odds');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `status-waiting-explained-${width}`);
    }
    const violations = await seriousA11yViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
    await page.close();
  });
});

describe('toasts on the public pages', () => {
  test('the success toast goes with its page; on the status page a toast keeps clear of the header and Close', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    for (const width of [1280, 390]) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${app.base}/`);
      if (width === 1280) {
        await hexBox(page).fill(tx.hex);
        await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
        const success = page.getByRole('alert').filter({ hasText: 'Transaction submitted successfully!' });
        await success.waitFor();
        await page.getByRole('link', { name: 'View mining status' }).click();
        await page.waitForURL(/\/status\?txid=/);
        await success.waitFor({ state: 'detached' });
      } else {
        await page.goto(`${app.base}/status?txid=${tx.txid}`);
      }
      await page.getByTestId('tx-status').waitFor();
      await page.getByRole('button', { name: 'Copy transaction ID' }).click();
      const copied = page.getByRole('alert').filter({ hasText: 'Txid copied!' });
      await copied.waitFor();
      // Let the toast finish sliding in before measuring it.
      const settled = `document.querySelector('.Toastify__toast')?.getAnimations().every((a) => a.playState !== 'running') ?? false`;
      await until(() => page.evaluate<boolean>(settled), async () => 'the toast is still moving');
      const toast = (await copied.boundingBox())!;
      for (const [name, control] of [
        ['the site header', page.locator('.site-header')],
        ['Close', page.getByRole('button', { name: 'Close', exact: true })],
        ['Refresh', page.getByRole('button', { name: 'Refresh' })],
      ] as const) {
        const box = (await control.boundingBox())!;
        assert.equal(overlaps(toast, box), false, `at ${width} px the toast ${JSON.stringify(toast)} covers ${name} ${JSON.stringify(box)}`);
      }
      await screenshot(page, `status-toast-${width}`);
      await page.getByRole('button', { name: 'Close', exact: true }).click();
      await page.waitForURL(`${app.base}/`);
      await copied.waitFor({ state: 'detached' });
      await page.close();
    }
  });
});

describe('small things', () => {
  test('a txid never leaves a few characters alone on its last line', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    const page = await context.newPage();
    const problems: string[] = [];
    await page.goto(`${app.base}/`);
    await hexBox(page).fill(tx.hex);
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    const accepted = page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' });
    await accepted.waitFor();
    for (const width of [1280, 900, 700, 600, 500, 390, 320]) {
      await page.setViewportSize({ width, height: 800 });
      const lines = await lineLengths(page, '.outcome.accepted code');
      if (new Set(lines).size > 1) problems.push(`submit page at ${width} px: ${lines.join(' + ')}`);
      if (width === 1280 || width === 390) await screenshot(page, `submit-accepted-txid-${width}`);
    }
    await page.goto(`${app.base}/status?txid=${tx.txid}`);
    await page.getByTestId('tx-status').waitFor();
    for (const width of [1280, 1024, 900, 800, 700, 640]) {
      await page.setViewportSize({ width, height: 800 });
      const lines = await lineLengths(page, '.txid-full');
      if (new Set(lines).size > 1) problems.push(`status page at ${width} px: ${lines.join(' + ')}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('selecting a tab moves no tab: each keeps the room of its bold label', async () => {
    const page = await context.newPage();
    await page.goto(`${app.base}/`);
    const tabs = page.getByRole('tablist', { name: 'Submit page' }).getByRole('tab');
    const boxes = async () => Promise.all((await tabs.all()).map(async (tab) => JSON.stringify(await tab.boundingBox())));
    const before = await boxes();
    for (const name of ['FAQ', 'TERMS', 'SUBMIT TX/PACKAGE']) {
      // exact: the reserved bold copy of the label is invisible to assistive technology too.
      await page.getByRole('tab', { name, exact: true }).click();
      await page.getByRole('tab', { name, exact: true, selected: true }).waitFor();
      assert.deepEqual(await boxes(), before, `after selecting ${name}`);
    }
    await page.close();
  });

  test('Back from the status page finds the form as it was left', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    const page = await context.newPage();
    await page.goto(`${app.base}/`);
    await hexBox(page).fill(tx.hex);
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    await page.getByRole('link', { name: 'View mining status' }).click();
    await page.getByTestId('tx-status').waitFor();
    await page.goBack();
    await page.waitForURL(`${app.base}/`);
    assert.equal(await hexBox(page).inputValue(), tx.hex);
    await page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' }).waitFor();
    // A fresh visit (a reload) starts empty: nothing was written to storage.
    await page.reload();
    assert.equal(await hexBox(page).inputValue(), '');
    await page.close();
  });
});
