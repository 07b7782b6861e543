import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { StatusResponse } from '../../src/modules/status/status.schemas.ts';
import type { BuiltTx } from '../../dev/bitcoin/regtest-wallet.ts';
import { launchBrowser, screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import { fillRandomMempool } from '../helpers/random-mempool.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The status page, live, in Chromium on a real node whose mempool spans
 * several blocks: a cheap transaction shows as not yet competitive, its
 * projected block highlighted and the bump advice as the engine computes
 * it; a child paying the advised fee is sent, and the page (never reloaded)
 * moves to waiting for the next block; a block is mined and it shows
 * confirmed. The updates come over the status stream: the 30-second poll
 * could not deliver them within the test.
 */

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;

before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
  await node.ensureUtxos(6);
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  browser = await launchBrowser();
  await fillRandomMempool(node, { seed: 31, payments: 300, large: 60, sigopHeavy: 0, prioritised: 0 });
});

after(async () => {
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

const statusOf = async (txid: string) => (await (await fetch(`${app.base}/rest-api/status-check?tx_id=${txid}`)).json()) as StatusResponse;

/** The builders take a rate (3 decimals) and pay ceil(rate × vsize): build until the child pays exactly `fee`. */
async function childPaying(parent: BuiltTx, vout: number, fee: number, vsize: number): Promise<BuiltTx> {
  let child = await node.buildChild({ parentHex: parent.hex, vout, feeRate: Math.floor((fee * 1000) / vsize) / 1000 });
  for (let k = 0; k < 3 && child.fee !== fee; k++) child = await node.buildChild({ parentHex: parent.hex, vout, feeRate: Math.floor((fee * 1000) / child.vsize) / 1000 });
  assert.equal(child.fee, fee);
  return child;
}

const statusText = (page: Page) => page.getByTestId('tx-status');

/**
 * The depth marker crosses none of its block's text at any depth: it moves
 * up and down with the depth (464,736 vB deep puts it mid-block, through
 * the text), so it must keep beside the text, never across it.
 */
async function markerClearOfText(page: Page, size: string): Promise<void> {
  const marker = await page.locator('.sl-marker').boundingBox();
  assert.ok(marker, `${size}: the depth marker is drawn`);
  const texts = page.getByTestId('tx-block').locator('.sl-cube p, .sl-cube p > span');
  for (const text of await texts.all()) {
    const box = (await text.boundingBox())!;
    const across: boolean = marker.x < box.x + box.width && box.x < marker.x + marker.width;
    assert.equal(across, false, `${size}: the marker ${JSON.stringify(marker)} would strike through "${await text.innerText()}" ${JSON.stringify(box)} at its height`);
  }
}

describe('status page, live and visual', () => {
  test('not yet competitive → waiting for the next block → confirmed, without a reload; the strip and the advice are the engine\'s', async () => {
    const cheap = await node.buildTx({ feeRate: 1 });
    await node.rpc.call('sendrawtransaction', [cheap.hex]);
    // The portal refuses a fee this low; it answers for an attempt it kept as failed.
    await db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [cheap.txid, cheap.hex]);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${app.base}/status?txid=${cheap.txid}`);
    await page.getByTestId('bump-advice').waitFor();
    assert.equal(await statusText(page).textContent(), 'Waiting: not yet competitive for the next block');
    await page.evaluate('window.__sameDocument = true');

    const engine = await statusOf(cheap.txid);
    const block = engine.transaction.position.block!;
    assert.ok(block > 0, `projected block ${block}`);
    const highlighted = page.getByTestId('tx-block');
    assert.equal(await highlighted.locator('.sl-label').textContent(), `Block ${block + 1}`);
    assert.equal(await page.getByTestId('tx-depth').textContent(), `${engine.transaction.position.vsize!.toLocaleString('en-US')} vB deep`);
    // The public mempool view is off: the strip shows no other block's figures.
    assert.equal(await page.locator('.sl-count').count(), 0);
    const advice = engine.bump!;
    // One rate to beat on the page, for this transaction's size: the details' and the advice's.
    assert.equal(advice.rate_to_beat, engine.rate_to_beat);
    assert.equal(await page.getByTestId('advice-rate-to-beat').textContent(), `${engine.rate_to_beat!.toFixed(2)} sat/vB`);
    assert.match(await page.locator('.status-details').innerText(), new RegExp(`Rate to beat\\s+${engine.rate_to_beat!.toFixed(2)} sat/vB`));
    assert.equal(await page.getByTestId('cpfp-fee').textContent(), `${advice.cpfp!.child_fee.toLocaleString('en-US')} sats`);
    assert.match((await page.getByTestId('bump-advice').textContent())!, new RegExp(advice.cpfp!.output));
    assert.equal(await page.getByTestId('rbf-fee').textContent(), `${advice.rbf!.fee.toLocaleString('en-US')} sats`);
    assert.match((await page.getByTestId('tx-eta').textContent())!, new RegExp(`^Likely within ${block + 1} blocks`));
    assert.deepEqual(await seriousA11yViolations(page), []);
    await markerClearOfText(page, '1280 px');
    await screenshot(page, 'status-live-behind-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, 'no sideways scrolling at 390 px');
    await markerClearOfText(page, '390 px');
    await screenshot(page, 'status-live-behind-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    const child = await childPaying(cheap, Number(advice.cpfp!.output.split(':')[1]), advice.cpfp!.child_fee, advice.cpfp!.child_vsize);
    // The child is the portal's too (kept as an attempt that timed out, as its parent is): a child the
    // portal did not record would lift the parent's block without the public figures counting it.
    await db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [child.txid, child.hex]);
    await node.rpc.call('sendrawtransaction', [child.hex]);
    await statusText(page).filter({ hasText: 'Waiting for the next block' }).waitFor({ timeout: 20_000 });
    const lifted = await statusOf(cheap.txid);
    assert.equal(lifted.transaction.position.block, 0, 'the engine puts the package in the next block');
    assert.equal(await highlighted.locator('.sl-label').textContent(), 'Next block');
    assert.equal(await page.getByTestId('bump-advice').count(), 0, 'no advice for a competitive transaction');
    await screenshot(page, 'status-live-next-desktop');

    await node.mine(1);
    await statusText(page).filter({ hasText: 'Confirmed' }).waitFor({ timeout: 20_000 });
    assert.equal(await page.evaluate('window.__sameDocument'), true, 'the page was not reloaded');
    await screenshot(page, 'status-live-confirmed-desktop');
    await page.close();
  });

  test('with the public mempool view on, the strip shows the other blocks\' figures, the engine\'s', async () => {
    const cheap = await node.buildTx({ feeRate: 1 });
    await node.rpc.call('sendrawtransaction', [cheap.hex]);
    await db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [cheap.txid, cheap.hex]);
    await db.query("UPDATE settings SET value = 'true' WHERE item = 'public_mempool_view'");
    app.settings.invalidate();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${app.base}/status?txid=${cheap.txid}`);
      await page.locator('.sl-count').first().waitFor();
      const state = (await (await fetch(`${app.base}/mempool/api/state`)).json()) as { projectedBlocks: Array<{ txCount: number }> };
      assert.equal(await page.locator('.sl-count').first().textContent(), `${state.projectedBlocks[0]!.txCount.toLocaleString('en-US')} txs`);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, 'status-live-public-view-desktop');
      await page.close();
    } finally {
      await db.query("UPDATE settings SET value = 'false' WHERE item = 'public_mempool_view'");
      app.settings.invalidate();
    }
  });
});

describe('the stream and the poll together', () => {
  /** A transaction paying enough for the next block, known to the portal (kept as a failed attempt), its page open and waiting. */
  async function openWaiting(): Promise<{ page: Page; tx: BuiltTx }> {
    const tx = await node.buildTx({ feeRate: 300 });
    await node.rpc.call('sendrawtransaction', [tx.hex]);
    await db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [tx.txid, tx.hex]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const streamOpened = page.waitForRequest('**/rest-api/status-stream?*');
    await page.goto(`${app.base}/status?txid=${tx.txid}`);
    await statusText(page).filter({ hasText: 'Waiting for the next block' }).waitFor();
    await streamOpened;
    return { page, tx };
  }

  /** A poll now, as TanStack Query makes one when the tab comes back into view (the answer is stale at once). */
  const pollNow = (page: Page) => page.evaluate("window.dispatchEvent(new Event('visibilitychange'))");

  test('a poll that fails leaves the stream open: the next change still arrives', async () => {
    const { page } = await openWaiting();
    await page.route('**/rest-api/status-check?*', (route) => route.abort('connectionrefused'));
    const failed = page.waitForEvent('requestfailed', (request) => request.url().includes('/rest-api/status-check'));
    await pollNow(page);
    await failed;
    // The poll is still failing: only the stream can bring the block.
    await node.mine(1);
    await statusText(page).filter({ hasText: 'Confirmed' }).waitFor({ timeout: 20_000 });
    await page.close();
  });

  test('a poll asked before the stream\'s newer answer does not put the older state back when it lands', async () => {
    const { page, tx } = await openWaiting();
    const older = await (await fetch(`${app.base}/rest-api/status-check?tx_id=${tx.txid}`)).text();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let landed!: () => void;
    const handled = new Promise<void>((resolve) => (landed = resolve));
    // The poll is held and then answered with the state from before the block, as a slow answer would.
    await page.route('**/rest-api/status-check?*', async (route) => {
      await released;
      // The page may have given up on the request meanwhile: then there is nothing to answer.
      await route.fulfill({ status: 200, contentType: 'application/json', body: older }).catch(() => undefined);
      landed();
    });
    const polled = page.waitForRequest('**/rest-api/status-check?*');
    await pollNow(page);
    await polled;
    await node.mine(1);
    await statusText(page).filter({ hasText: 'Confirmed' }).waitFor({ timeout: 20_000 });
    // Every status the page shows from now on: put back, the older state would show only until the
    // stream (opened again for a transaction no longer final) sends the newer one once more.
    await page.evaluate(`(() => {
      window.__shown = [];
      const note = () => window.__shown.push(document.querySelector('[data-testid="tx-status"]')?.textContent ?? null);
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);

    release();
    await handled;
    // The page reads the answer in the same moments it arrives; a little while is plenty for it to have shown it, if it were to.
    await page.waitForTimeout(500);
    const shown = await page.evaluate<Array<string | null>>('window.__shown');
    assert.deepEqual([...new Set(shown)].filter((text) => text !== 'Confirmed'), [], `shown after the block: ${JSON.stringify(shown)}`);
    assert.equal(await statusText(page).textContent(), 'Confirmed');
    await page.close();
  });
});
