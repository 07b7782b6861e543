import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { StatusResponse } from '../../src/modules/status/status.schemas.ts';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import { fillRandomMempool } from '../helpers/random-mempool.ts';
import type { BuiltTx } from '../helpers/regtest.ts';

/**
 * The rate to beat for a large transaction's size, as a first-time user
 * meets it (docs/status-page.md): on a full next block, an oversize
 * transaction paying a little over the market rate is accepted, and the
 * submit page's summary, its status page and its bump advice give one and
 * the same rate to beat (above the market rate: it must push out more than
 * the block's cheapest transaction), all saying it is not yet in line.
 * Paying just over that figure (a replacement) puts it in line for the next
 * block, as the summary, the status page and the node-fed projection agree.
 */

let suite: BrowserSuite;

before(async () => {
  suite = await startBrowserSuite({ utxos: 12, nodeArgs: ['-checkmempool=0'] });
  // The minimum is the market rate itself: the oversize transaction can pay just over it and be accepted.
  await suite.app.setSetting('slipstream_multiplier', '1');
  await suite.app.setSetting('fee_rate_floor', '0');
  await fillRandomMempool(suite.node, { seed: 41, payments: 300, large: 60, sigopHeavy: 0, prioritised: 0 });
});

after(() => suite?.close());

const statusOf = async (txid: string) => (await suite.app.app.inject({ method: 'GET', url: `/rest-api/status-check?tx_id=${txid}` })).json<StatusResponse>();
const hexBox = (page: Page) => page.getByLabel(/Raw transaction hex/);
const accepted = (page: Page) => page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' });

/** Pastes and submits `tx` on the submit page; answers the summary's rate to beat and what it says. */
async function submitOnPage(page: Page, tx: BuiltTx): Promise<{ rate: string; text: string }> {
  await page.goto(`${suite.app.base}/`);
  await hexBox(page).fill(tx.hex);
  await page.getByRole('region', { name: 'Decoded transactions' }).getByText('Clears the current minimum').waitFor();
  await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
  const outcome = accepted(page);
  await outcome.getByText(tx.txid).waitFor();
  const line = outcome.getByTestId('accepted-rate');
  await line.waitFor();
  return { rate: (await line.getByTestId('accepted-rate-to-beat').textContent())!, text: (await line.textContent())! };
}

/** The status page's 'Rate to beat' figure (the hint after it aside). */
async function statusPageRate(page: Page): Promise<string> {
  const value = page.locator('dt', { hasText: /^Rate to beat$/ }).locator('xpath=following-sibling::dd[1]');
  await value.waitFor();
  return /^[\d.]+ sat\/vB/.exec((await value.textContent())!)![0];
}

describe('the rate to beat of an oversize transaction', () => {
  test('one figure on the submit summary, the status page and the bump advice; paying it puts the transaction in line', async () => {
    const view = await suite.app.mempool.view();
    assert.equal(view.nextBlockFull, true, 'the setup: a full projected next block');

    // About 155 kvB at a hair over the market rate: accepted, but too large to displace the block's cheapest alone.
    const original = await suite.node.buildOversize({ feeRate: Math.ceil(view.marketRate * 1000) / 1000 + 0.01 });
    const page = await suite.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const first = await submitOnPage(page, original);
    const answer = await statusOf(original.txid);
    assert.notEqual(answer.transaction.position.block, 0, `${original.fee / original.vsize} sat/vB is not enough for its size`);
    assert.ok(answer.rate_to_beat! > answer.market_rate!, `rate to beat ${answer.rate_to_beat} against the market rate ${answer.market_rate}`);
    assert.equal(first.rate, `${answer.rate_to_beat!.toFixed(2)} sat/vB`);
    assert.match(first.text, /Not yet in line for the next block/);
    await screenshot(page, 'rate-to-beat-summary-waiting-1280');

    await page.goto(`${suite.app.base}/status?txid=${original.txid}`);
    assert.equal(await statusPageRate(page), first.rate, 'the status page gives the same figure');
    await page.getByTestId('advice-rate-to-beat').waitFor();
    assert.equal(await page.getByTestId('advice-rate-to-beat').textContent(), first.rate, 'so does the bump advice');
    assert.deepEqual(await seriousA11yViolations(page), []);
    await screenshot(page, 'rate-to-beat-status-waiting-1280');

    // Pays just over the figure (the builder's rates have 3 decimals): in line for the next block.
    const toBeat = answer.rate_to_beat!;
    let replacement = await suite.node.buildReplacement(original.hex, Math.floor(toBeat * 1000) / 1000 + 0.001);
    if (replacement.fee / replacement.vsize <= toBeat) replacement = await suite.node.buildReplacement(original.hex, Math.floor(toBeat * 1000) / 1000 + 0.002);
    assert.ok(replacement.fee / replacement.vsize > toBeat);
    const second = await submitOnPage(page, replacement);
    assert.match(second.text, /In line for the next block/);
    const now = await statusOf(replacement.txid);
    assert.equal(now.transaction.position.block, 0, `${replacement.fee / replacement.vsize} sat/vB against ${toBeat}`);
    assert.equal(now.bump, null);
    await screenshot(page, 'rate-to-beat-summary-in-line-1280');

    // The same at a phone's width: the summary line wraps inside the outcome box.
    await page.setViewportSize({ width: 390, height: 844 });
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 390, `the page is ${width} px wide`);
    await screenshot(page, 'rate-to-beat-summary-in-line-390');
    await page.close();
  });
});
