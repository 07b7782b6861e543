import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import type { TestNode } from '../helpers/regtest.ts';
import type { WebTestApp } from '../helpers/web-app.ts';

/**
 * A batch row's verdict against the minimum follows the newest answer: the
 * parse answer, then a newer minimum the page learns (rows not sent yet are
 * judged again), then the row's own send answer (accepted is not "below";
 * refused as below is "below" even when the parse said it cleared). The
 * minimum is moved mid-session with the staff fee rate floor; the node is the
 * oracle for what was accepted.
 */

let node: TestNode;
let app: WebTestApp;
let browser: Browser;
let context: BrowserContext;
let suite: BrowserSuite;

before(async () => {
  suite = await startBrowserSuite({ utxos: 10 });
  ({ node, app, browser, context } = suite);
  // The minimum is the floor alone: on an idle regtest node the market is its 1 sat/vB relay minimum, below every floor here.
  await app.setSetting('slipstream_multiplier', '1');
  await app.setSetting('fee_rate_floor', '2');
});

after(() => suite?.close());

const row = (page: Page, n: number): Locator => page.getByRole('listitem', { name: `Entry ${n}`, exact: true });
const short = (txid: string) => `${txid.slice(0, 10)}...${txid.slice(-10)}`;
const verdict = (page: Page, n: number) => row(page, n).locator('.verdict');
/** The page's getinfo is asked again every minute: the page's clock is moved past it. */
const MINUTE = 60_000;

async function verdicts(page: Page, expected: string[]): Promise<void> {
  for (const [i, text] of expected.entries()) await verdict(page, i + 1).filter({ hasText: new RegExp(`^${text.replace(/[().]/g, '\\$&')}$`) }).waitFor();
}

describe('a row\'s verdict against the minimum', () => {
  test('judged again when a newer minimum arrives, and by its own send answer', async () => {
    const low = await node.buildTx({ feeRate: 4 });
    const mid = await node.buildTx({ feeRate: 6 });
    const high = await node.buildTx({ feeRate: 9 });
    const late = await node.buildTx({ feeRate: 8 });
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(`${app.base}/batch`);
    await page.getByText('Current minimum fee rate: 2.00 sat/vB').waitFor();
    await page.getByLabel('Transactions, one per line').fill([low.hex, mid.hex, high.hex].join('\n'));
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 3).getByText(short(high.txid)).waitFor();
    await verdicts(page, ['Clears the current minimum (2.00 sat/vB)', 'Clears the current minimum (2.00 sat/vB)', 'Clears the current minimum (2.00 sat/vB)']);

    // Staff raise the floor; the page learns it at its next refresh: the unsent rows are judged against it.
    await app.setSetting('fee_rate_floor', '5');
    await page.clock.runFor(MINUTE);
    await page.getByText('Current minimum fee rate: 5.00 sat/vB').waitFor();
    await verdicts(page, ['Below the current minimum (5.00 sat/vB)', 'Clears the current minimum (5.00 sat/vB)', 'Clears the current minimum (5.00 sat/vB)']);
    await screenshot(page, 'batch-verdict-rejudged-1280');

    // Sent: the answers are the truth. The one below is refused and says so; the others are accepted and no longer
    // judged against a minimum that may move on.
    await page.getByRole('button', { name: 'Send all' }).click();
    await row(page, 3).getByText('Accepted into the mempool.').waitFor();
    await row(page, 1).getByText(/^Not accepted\./).waitFor();
    await verdicts(page, ['Below the current minimum (5.00 sat/vB)', 'Cleared the minimum when sent', 'Cleared the minimum when sent']);
    const inPool = await node.rpc.call<string[]>('getrawmempool');
    assert.deepEqual([low, mid, high].map((t) => inPool.includes(t.txid)), [false, true, true]);

    // A row decoded as clearing, then sent after the floor rose past it (before the page's next refresh): refused,
    // it says it is below, and the page asks for the minimum at once.
    await page.getByLabel('Transactions, one per line').fill(late.hex);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 4).getByText(short(late.txid)).waitFor();
    await verdict(page, 4).filter({ hasText: /^Clears the current minimum \(5\.00 sat\/vB\)$/ }).waitFor();
    await app.setSetting('fee_rate_floor', '8.5');
    await page.getByRole('button', { name: 'Send all' }).click();
    await row(page, 4).getByText(/^Not accepted\./).waitFor();
    await page.getByText('Current minimum fee rate: 8.50 sat/vB').waitFor();
    await verdicts(page, ['Below the current minimum (8.50 sat/vB)', 'Cleared the minimum when sent', 'Cleared the minimum when sent', 'Below the current minimum (8.50 sat/vB)']);

    // The floor falls: the refused rows are judged against the newer minimum (they can be retried), the sent ones stay.
    await app.setSetting('fee_rate_floor', '3');
    await page.clock.runFor(MINUTE);
    await page.getByText('Current minimum fee rate: 3.00 sat/vB').waitFor();
    await verdicts(page, ['Clears the current minimum (3.00 sat/vB)', 'Cleared the minimum when sent', 'Cleared the minimum when sent', 'Clears the current minimum (3.00 sat/vB)']);
    assert.deepEqual(await seriousA11yViolations(page), []);
    await screenshot(page, 'batch-verdict-1280');
    await page.close();
  });

  test('390 px wide: the verdicts fit without sideways scrolling; screenshot kept', async () => {
    await app.setSetting('fee_rate_floor', '3');
    const tx = await node.buildTx({ feeRate: 2.5 });
    const screen = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const page = await screen.newPage();
      await page.goto(`${app.base}/batch`);
      await page.getByLabel('Transactions, one per line').fill(tx.hex);
      await page.getByRole('button', { name: 'Add to queue' }).click();
      await verdict(page, 1).filter({ hasText: /^Below the current minimum \(3\.00 sat\/vB\)$/ }).waitFor();
      await page.getByRole('button', { name: 'Send all' }).click();
      await row(page, 1).getByText(/^Not accepted\./).waitFor();
      await verdict(page, 1).filter({ hasText: /^Below the current minimum \(3\.00 sat\/vB\)$/ }).waitFor();
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, 'no sideways scrolling');
      await screenshot(page, 'batch-verdict-phone');
    } finally {
      await screen.close();
    }
  });
});
