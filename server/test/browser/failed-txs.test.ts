import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchBrowser, screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The Failed Transactions screen in a real browser
 * (docs/behaviour.md#failed-transactions): Failed by default, Timeout on
 * request, select-all over every match across the pages, Retry Selected Tx and the per-row Retry moving
 * rows into retry with jobs queued in the database, and a viewer's
 * read-only table. The tests run in order on one fixture:
 *
 *   25 Failed   one a day at noon, 1 to 25 March 2025; client ALPHA on odd days (13), BRAVO on even days (12)
 *    3 Timeout  1 to 3 April 2025, client ALPHA
 */

const TITLE = 'Failed Transaction';
const txidOf = (label: string) => createHash('sha256').update(label).digest('hex');
const hexOf = (txid: string) => `02000000${txid}${'ab'.repeat(40)}`;
const short = (text: string) => `${text.slice(0, 10)}...${text.slice(-10)}`;
const failedTxid = (day: number) => txidOf(`failed-${day}`);
const timeoutTxid = (day: number) => txidOf(`timeout-${day}`);

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let admin: BrowserContext;

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  const insert = (txid: string, status: string, clientCode: string, createdAt: string, errors: string[]) =>
    db.query(
      `INSERT INTO failed_txs (txid, tx_hex, client_code, status, errors, attempts, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [txid, hexOf(txid), clientCode, status, errors, errors.length, createdAt],
    );
  for (let day = 1; day <= 25; day++) {
    const errors = day === 25 ? ['mempool min fee not met, 150 < 300', 'mempool full'] : [`min relay fee not met ${day}`];
    await insert(failedTxid(day), 'Failed', day % 2 === 1 ? 'ALPHA' : 'BRAVO', `2025-03-${String(day).padStart(2, '0')}T12:00:00Z`, errors);
  }
  for (let day = 1; day <= 3; day++) await insert(timeoutTxid(day), 'Timeout', 'ALPHA', `2025-04-0${day}T12:00:00Z`, ['The node did not answer in time']);
  browser = await launchBrowser();
  admin = await signedInContext(browser, app, 'admin');
  await admin.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
});

after(async () => {
  await admin?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

async function open(context: BrowserContext, search = ''): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.base}/dashboard?section=failedtx${search}`);
  return page;
}

/** The table's rows have arrived: not busy, and the pager says `range`. */
async function settled(page: Page, range: string): Promise<Locator> {
  await page.locator('.pager .range', { hasText: new RegExp(`^${range}$`) }).waitFor();
  await page.locator(`table[aria-label="${TITLE}"][aria-busy="false"]`).waitFor();
  return page.getByRole('table', { name: TITLE });
}

const params = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);
const selectAll = (page: Page) => page.getByRole('checkbox', { name: /^Select all/ });
const rowBoxes = (page: Page) => page.getByRole('table', { name: TITLE }).getByRole('checkbox', { name: /^Select transaction / });
const totalSelected = (page: Page, n: number) => page.getByRole('status').filter({ hasText: new RegExp(`^Total selected: ${n}$`) }).waitFor();

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 2)}`);
}

async function toast(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: true }).first().waitFor();
}

const statuses = async (txids: string[]) =>
  (await db.query<{ txid: string; status: string }>('SELECT txid, status FROM failed_txs WHERE txid = ANY($1::text[]) ORDER BY txid', [txids])).rows;
const retryJobKeys = async () =>
  (await db.query<{ key: string }>("SELECT j.key FROM jobs j WHERE j.kind = 'retry' AND j.state = 'queued' ORDER BY j.key")).rows.map((r) => r.key);
const idsOf = async (txids: string[]) =>
  (await db.query<{ id: number }>('SELECT id FROM failed_txs WHERE txid = ANY($1::text[]) ORDER BY id', [txids])).rows.map((r) => r.id);

describe('an administrator', () => {
  test('sees the Failed list by default, newest first, each row with its shortened hex to copy and its reasons', async () => {
    const page = await open(admin);
    const table = await settled(page, '1 - 10 of 25');
    assert.equal(await page.getByLabel('Status').inputValue(), '', 'the default status');
    assert.equal(await page.getByLabel('Status').locator('option:checked').textContent(), 'Failed');
    const first = await table.locator('tbody tr').first().getByRole('cell').allInnerTexts();
    assert.equal(first[1], '1');
    assert.match(first[2]!, new RegExp(`^${short(failedTxid(25))}`));
    assert.match(first[3]!, new RegExp(`^${short(hexOf(failedTxid(25)))}`));
    assert.equal(first[4], 'ALPHA');
    assert.match(first[5]!, /^2025-03-2[56] \d{2}:\d{2}:\d{2}$/);
    // Each reason in plain words, the node's own after it (the submit page's table, bitcoin/reject-reasons.ts).
    assert.equal(
      first[6],
      "The fee is below what the pool's mempool needs while it is this full. Raise the fee and submit again. (node: mempool min fee not met, 150 < 300)\n" +
        "The pool's mempool is full and the fee is too low to make room for it. Raise the fee or try again later. (node: mempool full)",
    );
    assert.match(first[7]!, /^Retry$/);
    await table.getByRole('button', { name: `Copy transaction hex of ${failedTxid(25)}` }).click();
    await toast(page, 'Transaction hex copied!');
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), hexOf(failedTxid(25)));
    await assertAccessible(page, 'Failed Transactions');
    await screenshot(page, 'failed-txs');
    await page.close();
  });

  test('finds a row by the start of its txid, as the table shows it shortened, at 1280 and 390 px', async () => {
    const page = await open(admin);
    await settled(page, '1 - 10 of 25');
    await page.getByRole('textbox', { name: 'Transaction ID' }).fill(failedTxid(7).slice(0, 10));
    await page.getByRole('button', { name: 'Search' }).click();
    const table = await settled(page, '1 - 1 of 1');
    const cells = await table.locator('tbody tr').first().getByRole('cell').allInnerTexts();
    assert.match(cells[2]!, new RegExp(`^${short(failedTxid(7))}`));
    assert.equal(cells[6], "The fee is below the node's minimum relay fee rate. Raise the fee and submit again. (node: min relay fee not met 7)");
    await screenshot(page, 'failed-txs-prefix-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await settled(page, '1 - 1 of 1');
    await screenshot(page, 'failed-txs-prefix-390');
    await page.close();
  });

  test('switches to Timeout through the Status filter, kept in the address; Clear goes back to Failed', async () => {
    const page = await open(admin);
    await settled(page, '1 - 10 of 25');
    await page.getByLabel('Status').selectOption({ label: 'Timeout' });
    await page.getByRole('button', { name: 'Search' }).click();
    const table = await settled(page, '1 - 3 of 3');
    assert.equal(params(page).tx_status, 'Timeout');
    const buttons = await table.getByRole('button', { name: /^Copy transaction ID / }).all();
    const txids = await Promise.all(buttons.map((b) => b.getAttribute('aria-label')));
    assert.deepEqual(txids, [3, 2, 1].map((day) => `Copy transaction ID ${timeoutTxid(day)}`));
    await page.reload();
    await settled(page, '1 - 3 of 3');
    assert.equal(await page.getByLabel('Status').inputValue(), 'Timeout');
    await page.getByRole('button', { name: 'Clear' }).click();
    await settled(page, '1 - 10 of 25');
    assert.equal(params(page).tx_status, undefined);
    await page.close();
  });

  test('select-all picks every match across the pages; Retry Selected Tx moves them into retry and starts again on page 1', async () => {
    const page = await open(admin, '&client_code=BRAVO&page=2');
    await settled(page, '11 - 12 of 12');
    await totalSelected(page, 0);
    assert.equal(await page.getByRole('button', { name: 'Retry Selected Tx' }).isDisabled(), true, 'nothing to retry yet');

    await selectAll(page).check();
    await totalSelected(page, 12);
    assert.deepEqual(await Promise.all((await rowBoxes(page).all()).map((box) => box.isChecked())), [true, true]);
    // The selection holds on the other page, where a row can be left out.
    await page.getByRole('button', { name: 'First page' }).click();
    await settled(page, '1 - 10 of 12');
    await totalSelected(page, 12);
    await page.getByRole('checkbox', { name: `Select transaction ${failedTxid(24)}` }).uncheck();
    await totalSelected(page, 11);
    assert.equal(await selectAll(page).isChecked(), false, 'not every match is selected any more');
    // Unchecking select-all clears the whole selection.
    await selectAll(page).check();
    await totalSelected(page, 12);
    await selectAll(page).uncheck();
    await totalSelected(page, 0);
    await page.getByRole('checkbox', { name: `Select transaction ${failedTxid(24)}` }).check();
    await totalSelected(page, 1);
    await selectAll(page).check();
    await totalSelected(page, 12);
    await page.getByRole('button', { name: 'Next page' }).click();
    await settled(page, '11 - 12 of 12');
    await assertAccessible(page, 'Failed Transactions with a selection');
    await screenshot(page, 'failed-txs-selected');

    await page.getByRole('button', { name: 'Retry Selected Tx' }).click();
    await toast(page, 'Transactions updated successfully!');
    // Selection and filters reset, on page 1, and the list reloads without the retried rows.
    await totalSelected(page, 0);
    await settled(page, '1 - 10 of 13');
    assert.deepEqual(Object.keys(params(page)).sort(), ['section']);
    const inputs = async () => [await page.getByLabel('Client Code').inputValue(), await page.getByRole('textbox', { name: 'Transaction ID' }).inputValue()];
    await until(async () => (await inputs()).every((v) => v === ''), async () => `filter inputs still ${JSON.stringify(await inputs())}`);
    assert.equal(await selectAll(page).isChecked(), false);
    assert.equal(await page.getByLabel('Client Code').inputValue(), '');
    const bravo = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24].map(failedTxid);
    assert.deepEqual((await statuses(bravo)).map((r) => r.status), Array(12).fill('Retrying'));
    assert.deepEqual(await retryJobKeys(), (await idsOf(bravo)).map((id) => `retry:${id}`).sort());
    await page.close();
  });

  test('a row\'s Retry says Retrying... while its request runs, then the row leaves the Failed list', async () => {
    const page = await open(admin);
    const table = await settled(page, '1 - 10 of 13');
    const txid = failedTxid(25);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/rest-api/retry-txs/update', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await table.getByRole('button', { name: `Retry transaction ${txid}` }).click();
      const busy = table.getByRole('button', { name: `Retrying transaction ${txid}` });
      await busy.waitFor();
      assert.equal(await busy.textContent(), 'Retrying...');
      assert.equal(await busy.isDisabled(), true);
      // Only that row is busy.
      assert.equal(await table.getByRole('button', { name: /^Retrying transaction / }).count(), 1);
      assert.equal(await table.getByRole('button', { name: `Retry transaction ${failedTxid(23)}` }).textContent(), 'Retry');
    } finally {
      release();
    }
    await toast(page, 'Transactions updated successfully!');
    await settled(page, '1 - 10 of 12');
    assert.equal(await table.getByRole('button', { name: `Retry transaction ${txid}` }).count(), 0);
    assert.deepEqual(await statuses([txid]), [{ txid, status: 'Retrying' }]);
    const [id] = await idsOf([txid]);
    assert.ok((await retryJobKeys()).includes(`retry:${id}`));
    await page.unroute('**/rest-api/retry-txs/update');
    await page.close();
  });

  test('a refused retry toasts the server\'s message and keeps the selection', async () => {
    const page = await open(admin, '&tx_status=Timeout');
    await settled(page, '1 - 3 of 3');
    await selectAll(page).check();
    await totalSelected(page, 3);
    await page.route('**/rest-api/retry-txs/update', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'The database is resting.' }) }),
    );
    await page.getByRole('button', { name: 'Retry Selected Tx' }).click();
    await toast(page, 'The database is resting.');
    await totalSelected(page, 3);
    assert.equal(params(page).tx_status, 'Timeout');
    assert.deepEqual((await statuses([1, 2, 3].map(timeoutTxid))).map((r) => r.status), ['Timeout', 'Timeout', 'Timeout']);
    await page.unroute('**/rest-api/retry-txs/update');
    await page.close();
  });
});

describe('a viewer', () => {
  test('sees the selection but cannot retry: Retry Selected Tx disabled with the reason, no Retry Tx column', async () => {
    const viewer = await signedInContext(browser, app, 'viewer');
    try {
      const page = await open(viewer);
      const table = await settled(page, '1 - 10 of 12');
      await page.getByText('· View only').waitFor();
      await table.getByRole('button', { name: `Copy transaction ID ${failedTxid(23)}` }).waitFor();
      // docs/behaviour.md#roles-and-permissions makes only Retry Tx admin-only: the selection and its count are for everyone.
      assert.equal(await rowBoxes(page).count(), 10);
      await totalSelected(page, 0);
      assert.equal(await page.getByRole('button', { name: 'Retry Selected Tx' }).isDisabled(), true);
      await page.getByText('Only administrators can retry transactions.').waitFor();
      assert.equal(await page.getByRole('button', { name: /^Retry transaction/ }).count(), 0);
      assert.deepEqual(await table.getByRole('columnheader').allInnerTexts(), ['Select', 'Sno', 'Transaction ID', 'Transaction Hex', 'Client code', 'Timestamp', 'Reason']);
      await assertAccessible(page, 'Failed Transactions for a viewer');
      await screenshot(page, 'failed-txs-viewer');
      await page.close();
    } finally {
      await viewer.close();
    }
  });
});
