import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import type { TestNode } from '../helpers/regtest.ts';
import { tarArchive } from '../helpers/tar-writer.ts';
import { until } from '../helpers/until.ts';
import type { TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';
import { REDECODE_MAX_MS, REDECODE_MAX_TRIES } from '../../../web/src/public/batch/batch-queue.ts';

/**
 * Many transactions at once (docs/behaviour.md#batch-page) in a real browser against the real
 * server, node and database: pasted lines and dropped archives become queue
 * rows, sent in order one at a time with each row's own result; a reload
 * keeps the queue; a 429 is waited out; bad input is refused in the page with
 * nothing sent. The node is the oracle for what was accepted.
 */

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let context: BrowserContext;

let suite: BrowserSuite;

before(async () => {
  suite = await startBrowserSuite({ utxos: 20 });
  ({ node, db, app, browser, context } = suite);
});

after(() => suite?.close());

async function openQueue(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.base}/batch`);
  await page.getByRole('heading', { name: /^Queue/ }).waitFor();
  return page;
}

const mempool = () => node.rpc.call<string[]>('getrawmempool');
const row = (page: Page, n: number): Locator => page.getByRole('listitem', { name: `Entry ${n}`, exact: true });
const rows = (page: Page) => page.getByTestId('batch-row');
const short = (txid: string) => `${txid.slice(0, 10)}...${txid.slice(-10)}`;

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 2)}`);
}

/** A wallet-made PSBT, signed but not finalized (what wallets hand their users); its coins are locked for it. */
async function signedPsbt(feeRate: number): Promise<{ psbt: string; txid: string; feeSats: number }> {
  const funded = await node.wallet.call<{ psbt: string; fee: number }>('walletcreatefundedpsbt', [
    [],
    [{ [await node.address()]: '0.001' }],
    0,
    { fee_rate: feeRate, lockUnspents: true },
  ]);
  const signed = await node.wallet.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [funded.psbt, true, 'ALL', true, false]);
  const final = await node.rpc.call<{ hex: string }>('finalizepsbt', [signed.psbt, true]);
  const { txid } = await node.rpc.call<{ txid: string }>('decoderawtransaction', [final.hex]);
  return { psbt: signed.psbt, txid, feeSats: Math.round(funded.fee * 1e8) };
}

/** Drops files on the page's drop zone, as a file manager would. */
async function dropFiles(page: Page, files: Array<{ name: string; data: Buffer }>): Promise<void> {
  const list = files.map((f) => ({ name: f.name, base64: f.data.toString('base64') }));
  // As text: the server's type check has no DOM types.
  const dataTransfer = await page.evaluateHandle(`(() => {
    const transfer = new DataTransfer();
    for (const f of ${JSON.stringify(list)}) transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name));
    return transfer;
  })()`);
  await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer });
}

/**
 * Puts text into a text box in one input event, as a paste does: Playwright's
 * fill types newlines one by one, which takes minutes for 10,001 lines.
 */
async function paste(box: Locator, text: string): Promise<void> {
  const id = await box.getAttribute('id');
  await box.page().evaluate(`(() => {
    const box = document.getElementById(${JSON.stringify(id)});
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, ${JSON.stringify(text)});
    box.dispatchEvent(new Event('input', { bubbles: true }));
  })()`);
}

async function acceptedRow(page: Page, n: number, txids: string[]): Promise<void> {
  const r = row(page, n);
  await r.getByText('Accepted into the mempool.').waitFor();
  for (const txid of txids) await r.getByRole('link', { name: `View mining status of ${txid}` }).waitFor();
}

describe('the queue', () => {
  test('the submit page links to it', async () => {
    const page = await context.newPage();
    await page.goto(`${app.base}/`);
    await page.getByRole('link', { name: 'Submit many transactions or files' }).click();
    await page.waitForURL(`${app.base}/batch`);
    await page.getByRole('heading', { name: 'Submit many transactions' }).waitFor();
    await page.close();
  });

  test('five pasted lines (two hex singles, a PSBT, a package, a bad one): Send all gives each row its own result', async () => {
    const one = await node.buildTx({ feeRate: 6 });
    const two = await node.buildTx({ feeRate: 7 });
    const psbt = await signedPsbt(5);
    const parent = await node.buildTx({ feeRate: 5 });
    const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 8 });
    const bad = 'zz-not-hex';
    const page = await openQueue();
    await page.getByText(/Current minimum fee rate: \d+\.\d{2} sat\/vB/).waitFor();
    await page.getByLabel('Transactions, one per line').fill(`# from my wallet\n${one.hex}\n\n${two.hex}\n${psbt.psbt}\n${parent.hex}, ${child.hex}\n${bad}\n`);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.getByRole('status').filter({ hasText: 'Added 5 entries to the queue.' }).waitFor();
    assert.equal(await rows(page).count(), 5);

    // Each row decoded: txid, size, fee rate against the minimum; the PSBT with the fee it states.
    await row(page, 1).getByText(short(one.txid)).waitFor();
    await row(page, 1).getByText(`${one.vsize} vB`).waitFor();
    await row(page, 1).getByText(/^Clears the current minimum \(\d+\.\d{2} sat\/vB\)$/).waitFor();
    await row(page, 3).getByText(short(psbt.txid)).waitFor();
    await row(page, 3).getByText(`PSBT, fee stated in it: ${psbt.feeSats.toLocaleString('en-US')} sats`).waitFor();
    await row(page, 4).getByText('line 6 · package of 2').waitFor();
    await row(page, 4).getByText(short(child.txid)).waitFor();
    await row(page, 5).locator('.field-error').waitFor();
    assert.deepEqual(
      (await mempool()).filter((t) => [one.txid, two.txid, psbt.txid, parent.txid, child.txid].includes(t)),
      [],
      'decoding sends nothing',
    );
    await assertAccessible(page, 'queue, decoded');

    const direct = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: bad }) });
    const badMessage = ((await direct.json()) as { message: string }).message;
    await page.getByRole('button', { name: 'Send all' }).click();
    await acceptedRow(page, 1, [one.txid]);
    await acceptedRow(page, 2, [two.txid]);
    await acceptedRow(page, 3, [psbt.txid]);
    await acceptedRow(page, 4, [parent.txid, child.txid]);
    const refused = row(page, 5).locator('.batch-result.failed');
    await refused.waitFor();
    assert.equal(await refused.innerText(), `Not accepted. ${badMessage}`);
    const inPool = await mempool();
    for (const txid of [one.txid, two.txid, psbt.txid, parent.txid, child.txid]) assert.ok(inPool.includes(txid), `${txid} is in the node's mempool`);
    await page.getByText('4 accepted · 1 not accepted · 0 not sent').waitFor();
    await assertAccessible(page, 'queue, sent');
    await screenshot(page, 'batch-sent-1280');

    // Retry one: the bad row is sent again and gets the same answer; remove one; the rest stay.
    await page.getByRole('button', { name: 'Retry entry 5' }).click();
    await refused.waitFor();
    await page.getByRole('button', { name: 'Remove entry 5' }).click();
    assert.equal(await rows(page).count(), 4);

    // The status link leads to the transaction's page; Back finds the queue as it was.
    await row(page, 1).getByRole('link', { name: `View mining status of ${one.txid}` }).click();
    await page.waitForURL(`${app.base}/status?txid=${one.txid}`);
    await page.getByTestId('tx-status').waitFor();
    await page.goBack();
    await acceptedRow(page, 4, [parent.txid, child.txid]);
    assert.equal(await rows(page).count(), 4);
    await page.close();
  });

  test('a dropped .tar.gz of numbered parent and child files is queued in name order, sent in order and accepted; a reload keeps the queue', async () => {
    const parent = await node.buildTx({ feeRate: 5 });
    const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 6 });
    const grandchild = await node.buildChild({ parentHex: child.hex, vout: 0, feeRate: 7 });
    // Archive order reversed, and 10 after 2 only when numbers are read as numbers.
    const archive = gzipSync(
      tarArchive([
        { name: 'txs/10-grandchild.hex', data: `${grandchild.hex}\n` },
        { name: 'txs/2-child.hex', data: `${child.hex}\n` },
        { name: 'txs/1-parent.hex', data: `# parent first\n${parent.hex}\n` },
      ]),
    );
    const page = await openQueue();
    await dropFiles(page, [{ name: 'chain.tar.gz', data: archive }]);
    await page.getByRole('status').filter({ hasText: 'Added 3 entries to the queue.' }).waitFor();
    await row(page, 1).getByText('chain.tar.gz/txs/1-parent.hex line 2').waitFor();
    await row(page, 2).getByText('chain.tar.gz/txs/2-child.hex line 1').waitFor();
    await row(page, 3).getByText('chain.tar.gz/txs/10-grandchild.hex line 1').waitFor();
    await row(page, 3).getByText(short(grandchild.txid)).waitFor();

    // Not sent yet: a reload keeps the rows and what they were decoded as.
    await page.reload();
    await row(page, 3).getByText(short(grandchild.txid)).waitFor();
    assert.equal(await rows(page).count(), 3);
    await row(page, 1).getByText('Not sent yet').waitFor();

    await page.getByRole('button', { name: 'Send all' }).click();
    // One at a time, parents first: a child sent before its parent would be refused for missing inputs.
    await acceptedRow(page, 1, [parent.txid]);
    await acceptedRow(page, 2, [child.txid]);
    await acceptedRow(page, 3, [grandchild.txid]);
    const inPool = await mempool();
    for (const tx of [parent, child, grandchild]) assert.ok(inPool.includes(tx.txid));

    // Sent: a reload keeps each row's result, and nothing is sent again.
    await page.reload();
    await acceptedRow(page, 3, [grandchild.txid]);
    assert.equal(await rows(page).count(), 3);
    assert.equal(await page.getByRole('button', { name: 'Send all' }).isDisabled(), true, 'nothing left to send');
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('The queue is empty.').waitFor();
    await page.reload();
    await page.getByText('The queue is empty.').waitFor();
    await page.close();
  });

  test('a 429 in the middle is waited out for as long as Retry-After says, then the same row is sent again', async () => {
    const txs = [await node.buildTx({ feeRate: 6 }), await node.buildTx({ feeRate: 6 }), await node.buildTx({ feeRate: 6 })];
    const page = await openQueue();
    const calls: Array<{ at: number; limited: boolean; hex: string }> = [];
    // The server's own 429 (public-rate-limit.test.ts), given to the second submission once.
    await page.route('**/rest-api/submit-tx', async (route) => {
      const hex = (route.request().postDataJSON() as { tx_hex: string }).tx_hex;
      const limited = calls.length === 1;
      calls.push({ at: Date.now(), limited, hex });
      if (!limited) return route.continue();
      return route.fulfill({
        status: 429,
        headers: { 'retry-after': '3' },
        contentType: 'application/json',
        body: JSON.stringify({ status: 'error', message: 'Too many requests. Please retry in 3 seconds.' }),
      });
    });
    await page.getByLabel('Transactions, one per line').fill(txs.map((t) => t.hex).join('\n'));
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 3).getByText(short(txs[2]!.txid)).waitFor();
    await page.getByRole('button', { name: 'Send all' }).click();
    await page.getByRole('status').filter({ hasText: /The server asked us to slow down: the next request goes out in \d s\./ }).waitFor();
    await row(page, 2).getByText(/Too many requests: sending again in \d s/).waitFor();
    // The row waiting out the 429 and the one behind it are counted as waiting, not as nothing.
    assert.equal(await page.locator('.batch-toolbar .batch-muted').innerText(), '1 accepted · 0 not accepted · 2 waiting · 0 not sent');
    await acceptedRow(page, 3, [txs[2]!.txid]);
    await acceptedRow(page, 2, [txs[1]!.txid]);
    await acceptedRow(page, 1, [txs[0]!.txid]);
    assert.deepEqual(
      calls.map((c) => [c.hex, c.limited]),
      [
        [txs[0]!.hex, false],
        [txs[1]!.hex, true],
        [txs[1]!.hex, false],
        [txs[2]!.hex, false],
      ],
    );
    assert.ok(calls[2]!.at - calls[1]!.at >= 2900, `sent again ${calls[2]!.at - calls[1]!.at} ms after the 429, not before Retry-After's 3 s`);
    await page.close();
  });
});

describe('the portal out of reach while decoding', () => {
  test('a row the server could not be asked about is decoded again on its own once it answers, sooner when the browser comes back online', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    const page = await openQueue();
    const attempts: number[] = [];
    // No connection to the portal for the first two decodes: what the browser sees when the network is gone.
    await page.route('**/rest-api/parse-tx', async (route) => {
      attempts.push(Date.now());
      return attempts.length <= 2 ? route.abort('connectionrefused') : route.continue();
    });
    await page.getByLabel('Transactions, one per line').fill(tx.hex);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 1).getByText('Could not be decoded right now: the portal is out of reach. Trying again on its own; it can still be sent.').waitFor();
    // The first retry comes on its own, after its pause; the second at once when the browser says it is online again.
    await until(async () => attempts.length >= 2, async () => `${attempts.length} decode attempts`);
    // Said again until heard: the page listens only while a row waits out its failure.
    await until(async () => {
      await page.evaluate("window.dispatchEvent(new Event('online'))");
      return attempts.length >= 3;
    }, async () => `${attempts.length} decode attempts`);
    await row(page, 1).getByText(short(tx.txid)).waitFor();
    assert.equal(attempts.length, 3);
    assert.ok(attempts[1]! - attempts[0]! >= 1_900, `the first retry waited its pause (${attempts[1]! - attempts[0]!} ms)`);
    assert.ok(attempts[2]! - attempts[1]! < 3_000, `back online: tried again at once, not after a doubled pause (${attempts[2]! - attempts[1]!} ms)`);
    assert.equal((await mempool()).includes(tx.txid), false, 'decoding sends nothing');
    await page.close();
  });
});

describe('sending, stopped and started again', () => {
  test('Stop while a row is on its way, then Retry a refused row: the retried row is sent once the stopped send comes back', async () => {
    const one = await node.buildTx({ feeRate: 6 });
    const two = await node.buildTx({ feeRate: 6 });
    const bad = 'zz-not-hex';
    const page = await openQueue();
    const sent: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first transaction's submission is held until the test lets it through: a send in flight when Stop is pressed.
    await page.route('**/rest-api/submit-tx', async (route) => {
      const hex = (route.request().postDataJSON() as { tx_hex: string }).tx_hex;
      sent.push(hex);
      if (hex === one.hex) await released;
      return route.continue();
    });
    await page.getByLabel('Transactions, one per line').fill(`${bad}\n${one.hex}\n${two.hex}`);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 3).getByText(short(two.txid)).waitFor();
    await page.getByRole('button', { name: 'Send all' }).click();
    await row(page, 1).locator('.batch-result.failed').waitFor();
    await row(page, 2).getByText('Sending...').waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await row(page, 3).getByText('Not sent yet').waitFor();
    await page.getByRole('button', { name: 'Retry entry 1' }).click();
    await row(page, 1).getByText('Waiting its turn').waitFor();

    release();
    await acceptedRow(page, 2, [one.txid]);
    await until(async () => sent.filter((hex) => hex === bad).length === 2, async () => `sent: ${JSON.stringify(sent.map((hex) => hex.slice(0, 12)))}`);
    await row(page, 1).locator('.batch-result.failed').waitFor();
    await page.getByRole('button', { name: 'Send all' }).waitFor({ state: 'visible' });
    await until(async () => !(await page.getByRole('button', { name: 'Stop' }).isVisible()), async () => 'still sending');
    // Stopped means stopped: the row Stop took out of the line is not sent by the retry's loop.
    await row(page, 3).getByText('Not sent yet').waitFor();
    assert.deepEqual(sent, [bad, one.hex, bad]);
    await page.close();
  });

  test('a send that comes back after the page was left does not write its old copy of the queue over the new page\'s', async () => {
    const held = await node.buildTx({ feeRate: 6 });
    const later = await node.buildTx({ feeRate: 6 });
    const page = await openQueue();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/rest-api/submit-tx', async (route) => {
      await released;
      return route.continue();
    });
    await page.getByLabel('Transactions, one per line').fill(held.hex);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 1).getByText(short(held.txid)).waitFor();
    await page.getByRole('button', { name: 'Send all' }).click();
    await row(page, 1).getByText('Sending...').waitFor();

    // Away (in the page, not a reload) and back: the new page finds the send cut short, and adds a row of its own.
    await page.getByRole('link', { name: 'Submit a single transaction or package instead' }).click();
    await page.waitForURL(`${app.base}/`);
    // The submit page drawn: the queue's page is gone (unmounted), not just the address changed.
    await page.getByLabel(/Raw transaction hex/).waitFor();
    await page.goBack();
    await row(page, 1).getByText('Not sent yet').waitFor();
    await page.getByLabel('Transactions, one per line').fill(later.hex);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 2).getByText(short(later.txid)).waitFor();

    const answered = page.waitForResponse('**/rest-api/submit-tx');
    release();
    await answered;
    // The old page's loop handles the answer in the same turn it arrives; a moment is plenty for it to have written, if it were to.
    await page.waitForTimeout(300);
    await page.reload();
    await row(page, 2).getByText(short(later.txid)).waitFor();
    assert.equal(await rows(page).count(), 2, 'the new page\'s row is still queued');
    await row(page, 1).getByText('Not sent yet').waitFor();
    await page.close();
  });
});

describe('the 1,000-entry bound while an archive is read', () => {
  test('text added while an archive is still being read counts: the archive that no longer fits is refused whole', async () => {
    const page = await openQueue();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The archive reader's code loads when the first archive is dropped: held, it keeps the archive "being read".
    await page.route(/\/assets\/archive-reader-[^/]*\.js$/, async (route) => {
      await released;
      return route.continue();
    });
    const archiveLines = Array.from({ length: 501 }, (_, i) => `aa${i.toString(16).padStart(4, '0')}`).join('\n');
    await dropFiles(page, [{ name: 'late.tar', data: tarArchive([{ name: 'late.txt', data: archiveLines }]) }]);
    await page.getByRole('status').filter({ hasText: 'Reading files...' }).waitFor();
    await paste(page.getByLabel('Transactions, one per line'), Array.from({ length: 500 }, (_, i) => `bb${i.toString(16).padStart(4, '0')}`).join('\n'));
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.getByRole('status').filter({ hasText: 'Added 500 entries to the queue.' }).waitFor();

    release();
    await page
      .getByRole('alert')
      .filter({ hasText: 'That is 501 entries and 500 are already queued; the queue holds at most 1,000. Nothing was added to the queue.' })
      .waitFor();
    await page.getByRole('heading', { name: 'Queue (500)' }).waitFor();
    assert.equal(await rows(page).count(), 500);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('The queue is empty.').waitFor();
    await page.close();
  });
});

const PARSE_UNAVAILABLE = 'Could not be decoded right now: the portal is out of reach. Trying again on its own; it can still be sent.';
const PARSE_UNAVAILABLE_STOPPED =
  'Could not be decoded: the portal stayed out of reach. Trying again when this device comes back online, or reload the page to try now; it can still be sent.';

describe('the portal out of reach for long', () => {
  test(`the automatic tries stop after ${REDECODE_MAX_TRIES}, and another row decoding meanwhile does not start them again; online still tries`, async () => {
    const lost = await node.buildTx({ feeRate: 6 });
    const fine = await node.buildTx({ feeRate: 6 });
    const page = await context.newPage();
    // The page's timers on a clock the test moves: minutes of pauses pass in moments.
    await page.clock.install();
    await page.goto(`${app.base}/batch`);
    await page.getByRole('heading', { name: /^Queue/ }).waitFor();
    let lostAttempts = 0;
    let reachable = false;
    await page.route('**/rest-api/parse-tx', async (route) => {
      const hexes = (route.request().postDataJSON() as { tx_hexes: string[] }).tx_hexes;
      if (hexes[0] !== lost.hex) return route.continue();
      lostAttempts++;
      return reachable ? route.continue() : route.abort('connectionrefused');
    });
    await page.getByLabel('Transactions, one per line').fill(lost.hex);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 1).getByText(PARSE_UNAVAILABLE).waitFor();
    for (let tries = 1; tries <= REDECODE_MAX_TRIES; tries++) {
      // The next pause is set by an effect React runs a moment after the row shows its message: a clock
      // moved before that moves past no timer. So it is moved again until the try leaves (a try can only
      // leave after the previous one was refused and counted, so none is skipped or doubled).
      await until(async () => {
        if (lostAttempts === tries) await page.clock.runFor(REDECODE_MAX_MS);
        return lostAttempts === tries + 1;
      }, async () => `${lostAttempts} decode attempts, ${tries + 1} expected`);
      await row(page, 1).getByText(tries < REDECODE_MAX_TRIES ? PARSE_UNAVAILABLE : PARSE_UNAVAILABLE_STOPPED).waitFor();
    }

    // Another row decoding fine is no sign the portal answers for this one: no new round of tries.
    await page.getByLabel('Transactions, one per line').fill(fine.hex);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 2).getByText(short(fine.txid)).waitFor();
    await page.clock.runFor(10 * REDECODE_MAX_MS);
    // A try would leave at once (the timer's callback asks for it); a moment is plenty to see one.
    await page.waitForTimeout(300);
    assert.equal(lostAttempts, REDECODE_MAX_TRIES + 1, 'no automatic try after the last');
    await row(page, 1).getByText(PARSE_UNAVAILABLE_STOPPED).waitFor();

    // The browser saying it is online again still tries; this time the portal answers.
    reachable = true;
    await page.evaluate("window.dispatchEvent(new Event('online'))");
    await row(page, 1).getByText(short(lost.txid)).waitFor();
    assert.equal(lostAttempts, REDECODE_MAX_TRIES + 2);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.close();
  });
});

describe('the server\'s own rate limit', () => {
  test('a 429 from the portal\'s limiter is waited out as its Retry-After says, and every row still gets its result', async () => {
    // Opening the page spends 2 requests (site-info, getinfo) and decoding 3 rows 3 more: the second submission is the 7th.
    const limited = await startWebTestApp(node, db, { rateLimitMax: 6, rateLimitWindowMs: 20_000 });
    const txs = [await node.buildTx({ feeRate: 6 }), await node.buildTx({ feeRate: 6 }), await node.buildTx({ feeRate: 6 })];
    const page = await context.newPage();
    try {
      const refusals: Array<{ url: string; retryAfter: string | null }> = [];
      page.on('response', (response) => {
        if (response.status() === 429) refusals.push({ url: response.url(), retryAfter: response.headers()['retry-after'] ?? null });
      });
      await page.goto(`${limited.base}/batch`);
      await page.getByText(/Current minimum fee rate/).waitFor();
      await page.getByLabel('Transactions, one per line').fill(txs.map((t) => t.hex).join('\n'));
      await page.getByRole('button', { name: 'Add to queue' }).click();
      await row(page, 3).getByText(short(txs[2]!.txid)).waitFor();
      await page.getByRole('button', { name: 'Send all' }).click();
      await page.getByRole('status').filter({ hasText: /The server asked us to slow down/ }).waitFor();
      for (const [i, tx] of txs.entries()) await acceptedRow(page, i + 1, [tx.txid]);
      assert.ok(refusals.length >= 1, 'the limiter refused a request');
      assert.ok(refusals.every((r) => Number(r.retryAfter) > 0), `each 429 carried Retry-After: ${JSON.stringify(refusals)}`);
      assert.ok(refusals.some((r) => r.url.endsWith('/rest-api/submit-tx')), `a submission was refused: ${JSON.stringify(refusals)}`);
      const inPool = await mempool();
      for (const tx of txs) assert.ok(inPool.includes(tx.txid));
    } finally {
      await page.close();
      await limited.close();
    }
  });
});

describe('maintenance', () => {
  test('while staff have submissions paused, /batch shows the maintenance screen, as / does', async () => {
    await app.setSetting('maintenance_mode', 'true');
    try {
      const page = await context.newPage();
      await page.goto(`${app.base}/batch`);
      await page.getByText('Adding more RAM to mempool, check back later!').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Send all' }).count(), 0);
      await page.close();
    } finally {
      await app.setSetting('maintenance_mode', 'false');
    }
  });
});

describe('a PSBT in the single-paste box', () => {
  test('the summary says it is a PSBT, with the fee it states and the extracted txid; SUBMIT sends the finalized transaction', async () => {
    const { psbt, txid, feeSats } = await signedPsbt(6);
    const page = await context.newPage();
    await page.goto(`${app.base}/`);
    // Wallets wrap base64 over lines; the box takes it as one entry.
    await page.getByLabel(/Raw transaction hex/).fill(psbt.replace(/(.{64})/g, '$1\n'));
    const summary = page.getByRole('region', { name: 'Decoded transactions' });
    await summary.getByText(`Fee stated in it: ${feeSats.toLocaleString('en-US')} sats`).waitFor();
    await summary.getByText(short(txid)).waitFor();
    assert.equal((await mempool()).includes(txid), false, 'decoding sends nothing');
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
    try {
      await page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' }).getByText(txid).waitFor();
    } catch (error) {
      // Say what the page showed instead, and whether the node took it, rather than only that the toast never came.
      const shown = [...(await page.getByRole('status').allInnerTexts()), ...(await page.getByRole('alert').allInnerTexts())];
      assert.fail(`no accepted toast for ${txid}; the page shows ${JSON.stringify(shown)}; in the node's mempool: ${(await mempool()).includes(txid)} (${(error as Error).message.split('\n')[0]})`);
    }
    assert.equal((await mempool()).includes(txid), true, 'the node has the extracted transaction');
    await page.close();
  });
});

describe('bad input: a clear message in the page, nothing queued, nothing sent', () => {
  test('an archive bomb, 10,001 lines, a 70 MB file', async () => {
    const page = await openQueue();
    const alert = page.getByRole('alert');
    const before = await mempool();

    const lines = Array.from({ length: 10_001 }, (_, i) => `02000000${i.toString(16).padStart(8, '0')}`).join('\n');
    await paste(page.getByLabel('Transactions, one per line'), lines);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await alert.filter({ hasText: 'That is 10,001 entries; the queue holds at most 1,000. Nothing was added to the queue.' }).waitFor();

    const bomb = gzipSync(tarArchive([{ name: 'zeros.hex', data: Buffer.alloc(65 * 1024 * 1024) }]), { level: 9 });
    await dropFiles(page, [{ name: 'bomb.tar.gz', data: bomb }]);
    await alert.filter({ hasText: 'bomb.tar.gz unpacks to more than 64 MB; at most 64 MB is read at once. Nothing was added to the queue.' }).waitFor();

    const dir = mkdtempSync(path.join(tmpdir(), 'batch-big-'));
    try {
      const big = path.join(dir, 'big.txt');
      writeFileSync(big, Buffer.alloc(70 * 1024 * 1024, 0x61));
      await page.getByLabel('Choose files').setInputFiles(big);
      await alert.filter({ hasText: 'big.txt is 70.0 MB; at most 64 MB is read at once. Nothing was added to the queue.' }).waitFor();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    await page.getByText('The queue is empty.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send all' }).isDisabled(), true);
    assert.deepEqual(await mempool(), before);
    await assertAccessible(page, 'queue with a refusal');
    await page.close();
  });

  test('a PSBT with garbage after it: the row shows the server\'s message, and the node gets nothing', async () => {
    const { psbt, txid } = await signedPsbt(5);
    const broken = `${psbt}garbage`;
    const parsed = await fetch(`${app.base}/rest-api/parse-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hexes: [broken] }) });
    const item = ((await parsed.json()) as { transactions: Array<{ status: string; message: string }> }).transactions[0]!;
    assert.equal(item.status, 'error', 'the server refuses it');
    const submitted = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: broken }) });
    const submitMessage = ((await submitted.json()) as { message: string }).message;

    const page = await openQueue();
    await page.getByLabel('Transactions, one per line').fill(broken);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await row(page, 1).locator('.field-error').filter({ hasText: item.message }).waitFor();
    await page.getByRole('button', { name: 'Send all' }).click();
    const refused = row(page, 1).locator('.batch-result.failed');
    await refused.waitFor();
    assert.equal(await refused.innerText(), `Not accepted. ${submitMessage}`);
    assert.equal((await mempool()).includes(txid), false);
    await page.close();
  });
});

describe('screens', () => {
  test('390 px and 1280 px wide: no sideways scrolling, accessible; screenshots kept', async () => {
    const tx = await node.buildTx({ feeRate: 6 });
    const parent = await node.buildTx({ feeRate: 5 });
    const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 8 });
    for (const [name, viewport] of [
      ['batch-phone', { width: 390, height: 844 }],
      ['batch-1280', { width: 1280, height: 900 }],
    ] as const) {
      const screen = await browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
      try {
        const page = await screen.newPage();
        await page.goto(`${app.base}/batch`);
        await page.getByLabel('Transactions, one per line').fill(`${tx.hex}\n${parent.hex},${child.hex}\nnot-a-transaction`);
        await page.getByRole('button', { name: 'Add to queue' }).click();
        await row(page, 2).getByText(short(child.txid)).waitFor();
        await row(page, 3).locator('.field-error').waitFor();
        await page.getByText(/Current minimum fee rate/).waitFor();
        assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, `${name}: no sideways scrolling`);
        await assertAccessible(page, name);
        await screenshot(page, name);
      } finally {
        await screen.close();
      }
    }
  });
});
