import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.ts';
import { launchBrowser, screenshot, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The dashboard's shared table (docs/behaviour.md#tables-filters-and-dates) on its first real list,
 * the audit trail: paging, rows per page, filters with Search and Clear, the
 * date rule, list state in the address, the loading and empty states, the
 * details modal and the failure toast.
 */

const CODE = 'TABLETEST';
const ROWS = 25;

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  // One row a day in March 2025, oldest first; the odd days failed.
  for (let day = 1; day <= ROWS; day++) {
    await db.query(
      `INSERT INTO audit_logs (ip_address, endpoint, http_method, client_code, request_at, request_payload, response_payload, response_time_ms, error_message, source_type, is_success)
       VALUES ($1, '/rest-api/submit-tx', 'POST', $2, $3, $4, NULL, 12.5, $5, 'External', $6)`,
      [`198.51.100.${day}`, CODE, `2025-03-${String(day).padStart(2, '0')}T12:00:00Z`, '{"tx_hex":"00"}', day % 2 === 1 ? 'rejected' : null, day % 2 === 0],
    );
  }
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  await page.goto(`${app.base}/dashboard?section=audit`);
  await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await page.getByLabel('Username').fill('viewer');
  await page.getByLabel('Password').fill(app.password('viewer'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.base}/dashboard?section=audit`);
});

after(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

const table = () => page.getByRole('table', { name: 'Audit Logs' });
const range = () => page.locator('.pager .range');
const params = () => Object.fromEntries(new URL(page.url()).searchParams);

/** The label says `text` and the rows it describes have arrived. */
async function rangeIs(text: string): Promise<void> {
  await page.locator('.pager .range', { hasText: new RegExp(`^${text}$`) }).waitFor();
  await page.locator('table[aria-label="Audit Logs"][aria-busy="false"]').waitFor();
}

async function firstIp(): Promise<string> {
  return (await table().locator('tbody tr').first().locator('td').nth(1).textContent()) ?? '';
}

test('Search filters by client code from page 1, and the filters live in the address', async () => {
  await page.getByLabel('Client Code').fill(CODE);
  await page.getByRole('button', { name: 'Search' }).click();
  await rangeIs(`1 - 10 of ${ROWS}`);
  assert.deepEqual(params(), { section: 'audit', client_code: CODE });
  // Newest first, numbered from 1.
  assert.equal(await firstIp(), '198.51.100.25');
  assert.equal(await table().locator('tbody tr').first().locator('td').first().textContent(), '1');
  await screenshot(page, 'audit-logs');
});

test('next, last, previous and first move through the pages; Sno continues across pages', async () => {
  await page.getByRole('button', { name: 'Next page' }).click();
  await rangeIs(`11 - 20 of ${ROWS}`);
  assert.equal(params().page, '2');
  assert.equal(await table().locator('tbody tr').first().locator('td').first().textContent(), '11');
  await page.getByRole('button', { name: 'Last page' }).click();
  await rangeIs(`21 - 25 of ${ROWS}`);
  assert.equal(await table().locator('tbody tr').count(), 5);
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Previous page' }).click();
  await rangeIs(`11 - 20 of ${ROWS}`);
  await page.getByRole('button', { name: 'First page' }).click();
  await rangeIs(`1 - 10 of ${ROWS}`);
  assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
});

test('changing rows per page goes back to page 1; a reload keeps the whole list state', async () => {
  await page.getByRole('button', { name: 'Next page' }).click();
  await rangeIs(`11 - 20 of ${ROWS}`);
  await page.getByLabel('Rows per page').selectOption('20');
  await rangeIs(`1 - 20 of ${ROWS}`);
  assert.equal(params().page, undefined);
  assert.equal(params().limit, '20');
  await page.getByRole('button', { name: 'Next page' }).click();
  await rangeIs(`21 - 25 of ${ROWS}`);
  await page.reload();
  await rangeIs(`21 - 25 of ${ROWS}`);
  assert.equal(await page.getByLabel('Client Code').inputValue(), CODE, 'the filter bar shows the applied filter again');
});

test('a To date before the From date says so and cannot be searched; a valid range is inclusive', async () => {
  await page.getByLabel('From Date').fill('2025-03-10');
  await page.getByLabel('To Date').fill('2025-03-05');
  await page.getByText('Date input not valid.').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Search' }).isDisabled(), true);
  await page.getByLabel('From Date').fill('2025-03-05');
  await page.getByLabel('To Date').fill('2025-03-10');
  assert.equal(await page.getByText('Date input not valid.').count(), 0);
  await page.getByRole('button', { name: 'Search' }).click();
  await rangeIs('1 - 6 of 6');
  assert.equal(params().from_date, '2025-03-05');
  assert.equal(params().to_date, '2025-03-10');
  assert.equal(await firstIp(), '198.51.100.10');
});

test('a status filter combines with the others', async () => {
  await page.getByLabel('Status').selectOption({ label: 'Failed' });
  await page.getByRole('button', { name: 'Search' }).click();
  await rangeIs('1 - 3 of 3'); // the 5th, 7th and 9th
  assert.equal(params().is_success, 'false');
});

test('Clear drops every filter and reloads the unfiltered list from page 1', async () => {
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.waitForURL((url) => !url.searchParams.has('client_code'));
  assert.deepEqual(Object.keys(params()).sort(), ['limit', 'section']);
  // The filter bar follows the address on its next render.
  const inputs = async () => [await page.getByLabel('Client Code').inputValue(), await page.getByLabel('From Date').inputValue()];
  await until(async () => (await inputs()).every((v) => v === ''), async () => `filter inputs still ${JSON.stringify(await inputs())}`);
  // Unfiltered includes the sign-in's own requests, so at least our rows.
  const total = async () => Number(/of (\d+)$/.exec((await range().textContent()) ?? '')?.[1]);
  await until(async () => (await total()) >= ROWS, async () => `the unfiltered total is ${await total()}`);
});

test('no match shows No data found; a slow answer shows Loading data...', async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/rest-api/audits/list?**', async (route) => {
    await held;
    await route.continue();
  });
  await page.getByLabel('Client Code').fill('NO-SUCH-CODE');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('Loading data...').waitFor();
  release();
  await page.getByText('No data found').waitFor();
  await rangeIs('0 - 0 of 0');
  await page.unroute('**/rest-api/audits/list?**');
});

test('View opens the Audit Details modal, missing values as None', async () => {
  await page.goto(`${app.base}/dashboard?section=audit&client_code=${CODE}&limit=20`);
  await rangeIs(`1 - 20 of ${ROWS}`);
  // The second row, the 24th, succeeded: no error message.
  await table().getByRole('button', { name: 'View' }).nth(1).click();
  const modal = page.getByRole('dialog', { name: 'Audit Details' });
  await modal.waitFor();
  const text = (await modal.textContent()) ?? '';
  assert.match(text, /198\.51\.100\.24/);
  assert.match(text, /Response PayloadNone/);
  assert.match(text, /Error MessageNone/);
  assert.match(text, /SuccessYes/);
  await screenshot(page, 'audit-details');
  await modal.getByRole('button', { name: 'Close' }).click();
  await modal.waitFor({ state: 'hidden' });
  // Focus goes back to the button that opened it.
  assert.equal(await page.evaluate<string>('document.activeElement?.textContent ?? ""'), 'View');
});

test('a failing call toasts the server\'s message', async () => {
  await page.goto(`${app.base}/dashboard?section=audit&client_code=${CODE}`);
  await rangeIs(`1 - 10 of ${ROWS}`);
  // The database being down is what answers 503 with this message; the browser cannot stop it, so the answer is injected.
  await page.route('**/rest-api/audits/list?**', (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: SERVICE_UNAVAILABLE_MESSAGE }) }),
  );
  await page.getByRole('button', { name: 'Next page' }).click();
  // The toast says it (the table says it too, with a Retry: dashboard-fit.test.ts).
  await page.locator('.Toastify').getByText(SERVICE_UNAVAILABLE_MESSAGE).waitFor();
  await page.unroute('**/rest-api/audits/list?**');
});
