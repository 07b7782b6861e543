import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { FEE_TOO_LOW_MESSAGE } from '../../src/modules/submission/submission.service.ts';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import type { TestNode } from '../helpers/regtest.ts';
import type { WebTestApp } from '../helpers/web-app.ts';

/**
 * The public web app in a real browser against the real server, node and
 * database (docs/behaviour.md#public-pages): paste, decode, submit, follow to the block; packages,
 * replacement, refusals, maintenance, FAQ and terms, a phone, accessibility.
 * The node is the oracle for what was accepted.
 */

let node: TestNode;
let app: WebTestApp;
let browser: Browser;
let context: BrowserContext;

let suite: BrowserSuite;

before(async () => {
  suite = await startBrowserSuite({ utxos: 12, clipboard: true });
  ({ node, app, browser, context } = suite);
});

after(() => suite?.close());

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.base}${path}`);
  return page;
}

const hexBox = (page: Page) => page.getByLabel(/Raw transaction hex/);

/** Submits through the portal's API: the status page answers only for transactions the portal recorded (or mined ones). */
async function submitThroughPortal(hex: string): Promise<void> {
  const res = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: hex }) });
  assert.equal(res.status, 200, await res.text());
}

const inMempool = async (txid: string) => (await node.rpc.call<string[]>('getrawmempool')).includes(txid);

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 2)}`);
}

describe('submitting', () => {
  test('paste a wallet transaction, see it decoded, submit, follow it to its block', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    const page = await open('/');
    await page.getByText(/Current minimum fee rate: \d+\.\d{2} sat\/vB/).waitFor();
    const submit = page.getByRole('button', { name: 'SUBMIT', exact: true });
    assert.equal(await submit.isDisabled(), true, 'disabled while the box is empty');
    await hexBox(page).fill('   ');
    assert.equal(await submit.isDisabled(), true, 'disabled for blank input');

    await hexBox(page).fill(tx.hex);
    const summary = page.getByRole('region', { name: 'Decoded transactions' });
    await summary.getByText('Clears the current minimum').waitFor();
    const summaryText = await summary.innerText();
    assert.match(summaryText, new RegExp(`${tx.txid.slice(0, 10)}\\.\\.\\.${tx.txid.slice(-10)}`));
    assert.match(summaryText, new RegExp(`${tx.vsize} vB`));
    assert.match(summaryText, new RegExp(`${tx.fee.toLocaleString('en-US')} sats`));
    assert.equal(await inMempool(tx.txid), false, 'decoding never submits');
    await screenshot(page, 'submit-parsed');

    await submit.click();
    await page.getByText('Transaction submitted successfully!').waitFor();
    const accepted = page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' });
    await accepted.getByText(tx.txid).waitFor();
    assert.equal(await inMempool(tx.txid), true, 'the node has it');
    await accepted.getByRole('button', { name: `Copy txid ${tx.txid}` }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), tx.txid);
    await screenshot(page, 'submit-accepted');

    await accepted.getByRole('link', { name: 'View mining status' }).click();
    await page.waitForURL(`${app.base}/status?txid=${tx.txid}`);
    await page.getByTestId('tx-status').getByText('Waiting for the next block').waitFor();
    const details = await page.locator('.status-details').innerText();
    assert.match(details, new RegExp(`${tx.weight.toLocaleString('en-US')} WU`));
    assert.match(details, /First seen\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} E[SD]T/);
    assert.match(details, /Rate to beat\s+\d+\.\d{2} sat\/vB/);
    assert.match(page.url(), /\/status\?txid=/);
    await page.locator('.last-update.fresh').waitFor();
    await assertAccessible(page, 'status page');
    await screenshot(page, 'status-waiting');

    const [hash] = await node.mine();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('tx-status').getByText('Confirmed').waitFor();
    const height = await node.rpc.call<number>('getblockcount');
    assert.match(await page.locator('.status-details').innerText(), new RegExp(`Block height\\s+${height.toLocaleString('en-US')}`));
    const block = await node.rpc.call<{ tx: string[] }>('getblock', [hash]);
    assert.ok(block.tx.includes(tx.txid), 'the node mined it in that block');
    await screenshot(page, 'status-confirmed');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.waitForURL(`${app.base}/`);
    await page.close();
  });

  test('a package of a parent and its child, comma-separated', async () => {
    const parent = await node.buildTx({ feeRate: 5 });
    const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 8 });
    const page = await open('/');
    await hexBox(page).fill(`${parent.hex} ,\n${child.hex}`);
    await page.getByText('Package of 2 transactions').waitFor();
    await page.getByRole('region', { name: 'Decoded transactions' }).getByText('2 of 2').waitFor();
    await page.getByRole('button', { name: 'SUBMIT PACKAGE' }).click();
    await page.getByText('Package submitted successfully!').waitFor();
    const accepted = page.getByRole('status').filter({ hasText: 'Package accepted into the mempool.' });
    await accepted.getByText(parent.txid).waitFor();
    await accepted.getByText(child.txid).waitFor();
    assert.equal(await inMempool(parent.txid), true);
    assert.equal(await inMempool(child.txid), true);
    await page.close();
  });

  test('replace-by-fee: a higher-fee spend of the same input replaces the first', async () => {
    const original = await node.buildTx({ feeRate: 4 });
    const replacement = await node.buildReplacement(original.hex, 12);
    const page = await open('/');
    for (const tx of [original, replacement]) {
      await hexBox(page).fill(tx.hex);
      await page.getByRole('region', { name: 'Decoded transactions' }).getByText(tx.txid.slice(0, 10), { exact: false }).waitFor();
      await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Transaction accepted' }).getByText(tx.txid).waitFor();
    }
    assert.equal(await inMempool(original.txid), false, 'the first is gone');
    assert.equal(await inMempool(replacement.txid), true);
    await page.goto(`${app.base}/status?txid=${original.txid}`);
    await page.getByTestId('tx-status').getByText('No longer in the mempool (replaced or evicted)').waitFor();
    // The engine names the replacement, and the page leads to it.
    await page.getByTestId('tx-removal').getByRole('link', { name: /Follow the replacement/ }).click();
    await page.waitForURL(`${app.base}/status?txid=${replacement.txid}`);
    await page.getByTestId('tx-status').getByText('Waiting for the next block').waitFor();
    await page.close();
  });

  test('garbage and a fee below the minimum get the server\'s own words, and nothing reaches the node', async () => {
    const page = await open('/');
    await hexBox(page).fill('zz-not-hex');
    const problem = page.getByRole('region', { name: 'Decoded transactions' }).locator('.field-error');
    await problem.waitFor();
    const direct = await fetch(`${app.base}/rest-api/submit-tx`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_hex: 'zz-not-hex' }),
    });
    const serverMessage = ((await direct.json()) as { message: string }).message;
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'Submission failed.' });
    await failed.waitFor();
    assert.equal(await failed.innerText(), `Submission failed. ${serverMessage}`);

    const cheap = await node.buildTx({ feeRate: 1 });
    await hexBox(page).fill(cheap.hex);
    await page.getByRole('region', { name: 'Decoded transactions' }).getByText('Below the current minimum').waitFor();
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: FEE_TOO_LOW_MESSAGE }).waitFor();
    assert.equal(await inMempool(cheap.txid), false);
    await screenshot(page, 'submit-refused');
    await page.close();
  });

  test('?txhex= fills the box and decodes at once', async () => {
    const tx = await node.buildTx({ feeRate: 5 });
    const page = await open(`/?txhex=${tx.hex}`);
    assert.equal(await hexBox(page).inputValue(), tx.hex);
    await page.getByRole('region', { name: 'Decoded transactions' }).getByText('Clears the current minimum').waitFor();
    await page.close();
  });

  test('when the server cannot be reached for the minimum, the page says so', async () => {
    const page = await context.newPage();
    // The answer the server gives when its node is down, injected: the browser cannot stop the node.
    await page.route('**/rest-api/getinfo', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'The Bitcoin node is unavailable.' }) }),
    );
    await page.goto(`${app.base}/`);
    await page.getByText('Unable to connect to Slipstream server. Please try again in 60 seconds.').waitFor();
    await page.close();
  });
});

describe('the status page', () => {
  test('the last-update indicator turns orange after 29 s and red after 59 s without an answer; polling continues', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    await submitThroughPortal(tx.hex);
    const page = await context.newPage();
    await page.clock.install();
    // The live stream never answers either (other tests' transactions would otherwise keep this answer fresh): the poll is the fallback under test.
    await page.route('**/rest-api/status-stream?**', () => {});
    await page.goto(`${app.base}/status?txid=${tx.txid}`);
    await page.locator('.last-update.fresh').waitFor();
    // From now on the server does not answer: the page shows its answer getting old.
    let polls = 0;
    await page.route('**/rest-api/status-check?**', () => {
      polls += 1;
    });
    await page.clock.fastForward(30_000);
    await page.locator('.last-update.ageing').waitFor();
    await until(async () => polls >= 1, async () => 'no poll after 30 s');
    await page.clock.fastForward(30_000);
    await page.locator('.last-update.stale').waitFor();
    await page.close();
  });

  test('an unknown txid says the lookup failed', async () => {
    const page = await open(`/status?txid=${'ab'.repeat(32)}`);
    await page.getByText('Please enter a valid transaction hex.').waitFor();
    await page.close();
  });
});

describe('FAQ, terms and maintenance', () => {
  test('the FAQ tab lists 12 questions that open and close on click', async () => {
    const page = await open('/');
    await page.getByRole('tab', { name: 'FAQ' }).click();
    const questions = page.getByRole('tabpanel').getByRole('button', { expanded: false });
    await questions.first().waitFor();
    assert.equal(await questions.count(), 12);
    const first = questions.first();
    const name = (await first.innerText()).trim();
    await first.click();
    const opened = page.getByRole('button', { name, expanded: true });
    await opened.waitFor();
    const answerId = await opened.getAttribute('aria-controls');
    assert.ok(answerId && (await page.locator(`[id="${answerId}"]`).isVisible()), 'the answer shows');
    await opened.click();
    await page.getByRole('button', { name, expanded: false }).waitFor();
    await assertAccessible(page, 'FAQ tab');
    await screenshot(page, 'faq');
    await page.close();
  });

  test('the TERMS tab carries the points the specification lists', async () => {
    const page = await open('/?tab=terms');
    const text = await page.getByRole('tabpanel').innerText();
    for (const point of [/18/, /\$1,000/, /Delaware/, /30/, /60/, /90/, /one \(1\) year/i, /sanction/i, /personal data/i]) {
      assert.match(text, point);
    }
    await assertAccessible(page, 'terms tab');
    await page.close();
  });

  test('maintenance on: the maintenance screen with its FAQ panel; off again: the submit page', async () => {
    await app.setSetting('maintenance_mode', 'true');
    try {
      const page = await open('/');
      await page.getByText('Adding more RAM to mempool, check back later!').waitFor();
      await page.getByText('For custom blocks please contact blocks@example.com').waitFor();
      await page.getByText(/2025/).first().waitFor();
      assert.equal(await page.locator('video').count(), 1);
      assert.equal(await page.getByRole('button', { name: 'SUBMIT', exact: true }).count(), 0);
      await assertAccessible(page, 'maintenance screen');
      await screenshot(page, 'maintenance');
      await page.getByRole('button', { name: 'LEARN MORE' }).click();
      const questions = page.getByRole('button', { expanded: false });
      await questions.first().waitFor();
      assert.equal(await questions.count(), 12);
      await questions.nth(3).click();
      await page.getByRole('button', { expanded: true }).waitFor();
      await screenshot(page, 'maintenance-faq');
      await page.getByRole('button', { name: 'Close' }).click();
      await page.getByText('Adding more RAM to mempool, check back later!').waitFor();
      // The API refuses submissions meanwhile (docs/behaviour.md#maintenance-screen).
      const tx = await node.buildTx({ feeRate: 5 });
      const res = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex }) });
      assert.equal(res.status, 503);
      await page.close();
    } finally {
      await app.setSetting('maintenance_mode', 'false');
    }
    const page = await open('/');
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).waitFor();
    await page.close();
  });
});

describe('a phone-sized screen', () => {
  test('the submit and status pages fit a 390 px screen, txids shortened', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const tx = await node.buildTx({ feeRate: 6 });
      await submitThroughPortal(tx.hex);
      const page = await phone.newPage();
      await page.goto(`${app.base}/?txhex=${tx.hex}`);
      await page.getByRole('region', { name: 'Decoded transactions' }).waitFor();
      const overflow = () => page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1');
      assert.equal(await overflow(), false, 'no sideways scrolling on the submit page');
      await assertAccessible(page, 'submit page on a phone');
      await screenshot(page, 'submit-phone');
      await page.goto(`${app.base}/status?txid=${tx.txid}`);
      await page.getByTestId('tx-status').waitFor();
      await page.getByText(`${tx.txid.slice(0, 10)}...${tx.txid.slice(-10)}`).waitFor();
      assert.equal(await overflow(), false, 'no sideways scrolling on the status page');
      await screenshot(page, 'status-phone');
    } finally {
      await phone.close();
    }
  });
});
