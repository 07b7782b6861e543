import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TX_PULLER_CSV_HEADER } from '../../src/modules/tx-puller/tx-puller.service.ts';
import { TX_REPORT_CSV_HEADER } from '../../src/modules/tx-reports/tx-reports.service.ts';
import { launchBrowser, screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { fakeTxid, insertPackage, insertTx, parseCsv, type PackageFixture, type TxFixture } from '../helpers/submission-fixtures.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The Tx Puller and TX Reports screens in a real browser, as a staff member
 * who views only (docs/behaviour.md#roles-and-permissions: download and view are for every
 * dashboard user): the tabs in the address and what changing them resets,
 * the filters, the status link and the copy toasts, the block-explorer links,
 * the downloads (the file's name and content, the 'Downloading' label), a
 * 401 during a download, and axe on both screens.
 */

const CODE = 'PULLTEST';
const STORAGE_KEY = 'okta-token-storage';

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let viewer: BrowserContext;

/** 25 accepted transactions of CODE, one a day in March 2025, and one still pending with the node. */
const txs: TxFixture[] = Array.from({ length: 25 }, (_, i) => ({
  txid: fakeTxid(`browser-tx${i}`),
  txHex: `02000000${fakeTxid(`browser-hex${i}`)}`,
  clientCode: CODE,
  vsize: 150 + i,
  fee: 600 + i,
  marketRate: 2,
  status: 'accepted' as const,
  createdAt: `2025-03-${String(i + 1).padStart(2, '0')}T12:00:00.000000Z`,
}));
const pending: TxFixture = { txid: fakeTxid('browser-pending'), txHex: '0200', clientCode: CODE, vsize: 150, fee: 600, marketRate: 2, status: 'pending', createdAt: '2025-03-31T12:00:00.000000Z' };
const packages: PackageFixture[] = Array.from({ length: 3 }, (_, i) => ({
  txids: [fakeTxid(`browser-package${i}a`), fakeTxid(`browser-package${i}b`)],
  txHexes: [`0200${i}a`, `0200${i}b`],
  clientCode: i === 0 ? 'PKGCODE' : CODE,
  totalVsize: 400,
  totalFee: 2000 + i,
  marketRate: 2,
  createdAt: `2025-04-0${i + 1}T08:00:00.000000Z`,
}));

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  for (const f of [...txs, pending]) await insertTx(db, f);
  for (const f of packages) await insertPackage(db, f);
  browser = await launchBrowser();
  viewer = await browser.newContext({ acceptDownloads: true });
  await viewer.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
  const page = await viewer.newPage();
  await page.goto(`${app.base}/dashboard`);
  await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await page.getByLabel('Username').fill('viewer');
  await page.getByLabel('Password').fill(app.password('viewer'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.origin === app.base && url.pathname === '/dashboard');
  await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
  await page.close();
});

after(async () => {
  await viewer?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

async function open(path: string): Promise<Page> {
  const page = await viewer.newPage();
  await page.goto(`${app.base}${path}`);
  return page;
}

const params = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The table's rows have arrived: not busy, and (when given) the pager says `range`. */
async function settled(page: Page, table: string, range?: string) {
  if (range !== undefined) await page.locator('.pager .range', { hasText: new RegExp(`^${escape(range)}$`) }).waitFor();
  await page.locator(`table[aria-label="${table}"][aria-busy="false"]`).waitFor();
  return page.getByRole('table', { name: table });
}

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 2)}`);
}

/** The download requests of a list endpoint. */
const downloadOf = (endpoint: string) => (url: URL) => url.pathname === `/rest-api/${endpoint}` && url.searchParams.get('download') === 'true';

const short = (txid: string) => `${txid.slice(0, 10)}...${txid.slice(-10)}`;
const newestTxs = () => [...txs].reverse();

/**
 * Clicks Download while the server's answer is held, checks the button says
 * 'Downloading' and cannot be pressed, then lets the answer through and
 * returns the file the browser saved.
 */
async function download(page: Page, endpoint: string): Promise<{ name: string; text: string }> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const pattern = downloadOf(endpoint);
  await page.route(pattern, async (route) => {
    await held;
    await route.continue();
  });
  try {
    const saved = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    const busy = page.getByRole('button', { name: 'Downloading', exact: true });
    await busy.waitFor();
    assert.equal(await busy.isDisabled(), true, 'the button cannot be pressed again while busy');
    release();
    const file = await saved;
    await page.getByRole('button', { name: 'Download', exact: true }).waitFor();
    const path = await file.path();
    return { name: file.suggestedFilename(), text: await readFile(path, 'utf8') };
  } finally {
    release();
    await page.unroute(pattern);
  }
}

describe('Tx Puller', () => {
  test('the default tab lists accepted transactions newest first, with the documented columns; nothing pending', async () => {
    const page = await open('/dashboard?section=txPuller');
    await page.getByRole('heading', { name: 'Tx Puller', level: 1 }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Tx Submissions' }).getAttribute('aria-current'), 'page');
    const table = await settled(page, 'Tx Submissions', '1 - 10 of 25');
    assert.deepEqual(await table.getByRole('columnheader').allInnerTexts(), ['Sno', 'Client Code', 'Timestamp', 'Tx ID', 'Tx Hex', 'TX SIZE', 'FeeRate', 'Total Fee', 'Slipstream Multiple']);
    const first = await table.getByRole('row').nth(1).getByRole('cell').allInnerTexts();
    const newest = newestTxs()[0]!;
    assert.equal(first[0], '1');
    assert.equal(first[1], CODE);
    assert.match(first[3]!, new RegExp(escape(short(newest.txid))));
    assert.match(first[4]!, new RegExp(escape(short(newest.txHex))));
    assert.deepEqual(first.slice(5), ['174 vB', `${(624 / 174).toFixed(2)} sat/vB`, '624 sats', `${(624 / 174 / 2).toFixed(2)}x`]);
    assert.equal(await page.getByText(short(pending.txid)).count(), 0, 'the pending transaction is not listed');
    await assertAccessible(page, 'Tx Puller');
    await screenshot(page, 'tx-puller');
    await page.close();
  });

  test('filters and page live in the address; changing tab resets both, and the tab is in the address', async () => {
    const page = await open('/dashboard?section=txPuller');
    await settled(page, 'Tx Submissions', '1 - 10 of 25');
    await page.getByLabel('Client Code').fill(CODE);
    await page.getByLabel('From Date').fill('2025-03-05');
    await page.getByLabel('To Date').fill('2025-03-20');
    await page.getByRole('button', { name: 'Search' }).click();
    await settled(page, 'Tx Submissions', '1 - 10 of 16');
    await page.getByRole('button', { name: 'Next page' }).click();
    await settled(page, 'Tx Submissions', '11 - 16 of 16');
    assert.deepEqual(params(page), { section: 'txPuller', client_code: CODE, from_date: '2025-03-05', to_date: '2025-03-20', page: '2' });

    await page.getByRole('link', { name: 'Package Submissions' }).click();
    const packagesTable = await settled(page, 'Package Submissions', '1 - 3 of 3');
    assert.deepEqual(params(page), { section: 'txPuller', tab: 'package_submissions' }, 'filters and page are gone');
    assert.equal(await page.getByRole('link', { name: 'Package Submissions' }).getAttribute('aria-current'), 'page');
    assert.equal(await page.getByLabel('Client Code').inputValue(), '', 'the filter bar starts empty');
    // A package row lists each member's id and hex.
    const newest = packages[2]!;
    const cells = await packagesTable.getByRole('row').nth(1).getByRole('cell').all();
    for (const txid of newest.txids) await cells[3]!.getByRole('link', { name: short(txid) }).waitFor();
    assert.equal(await cells[4]!.getByRole('button', { name: /^Copy Tx Hex/ }).count(), 2);
    await assertAccessible(page, 'Package Submissions');

    // The Tx ID filter on packages finds the package holding a member.
    await page.getByLabel('Tx ID', { exact: true }).fill(packages[0]!.txids[1]!);
    await page.getByRole('button', { name: 'Search' }).click();
    const filtered = await settled(page, 'Package Submissions', '1 - 1 of 1');
    assert.equal(await filtered.getByRole('row').nth(1).getByRole('cell').nth(1).innerText(), 'PKGCODE');

    await page.getByRole('link', { name: 'Tx Submissions' }).click();
    await settled(page, 'Tx Submissions', '1 - 10 of 25');
    assert.deepEqual(params(page), { section: 'txPuller', tab: 'tx_submissions' });
    assert.equal(await page.getByLabel('Tx ID', { exact: true }).inputValue(), '');
    // Reload keeps the tab.
    await page.goto(`${app.base}/dashboard?section=txPuller&tab=package_submissions`);
    await settled(page, 'Package Submissions', '1 - 3 of 3');
    await page.close();
  });

  test('a Tx ID links to its status page and copies; the hex copies whole', async () => {
    const page = await open('/dashboard?section=txPuller');
    const table = await settled(page, 'Tx Submissions', '1 - 10 of 25');
    const newest = newestTxs()[0]!;
    const link = table.getByRole('link', { name: short(newest.txid) });
    assert.equal(await link.getAttribute('href'), `/status?txid=${newest.txid}`);
    await table.getByRole('button', { name: `Copy Tx ID ${newest.txid}` }).click();
    await page.getByText('Tx ID copied!', { exact: true }).first().waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), newest.txid);
    await table.getByRole('button', { name: `Copy Tx Hex of ${newest.txid}` }).click();
    await page.getByText('Tx Hex copied!', { exact: true }).first().waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), newest.txHex);
    await link.click();
    await page.waitForURL((url) => url.pathname === '/status' && url.searchParams.get('txid') === newest.txid);
    await page.close();
  });

  test('Download saves every row the applied filters match, under the server\'s file name', async () => {
    const page = await open(`/dashboard?section=txPuller&client_code=${CODE}&from_date=2025-03-05&to_date=2025-03-20&page=2`);
    await settled(page, 'Tx Submissions', '11 - 16 of 16');
    const file = await download(page, 'tx-puller/list');
    assert.match(file.name, /^tx-puller-tx_submissions-report-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.csv$/);
    const [header, ...rows] = parseCsv(file.text);
    assert.deepEqual(header, [...TX_PULLER_CSV_HEADER]);
    const expected = newestTxs().filter((f) => f.createdAt >= '2025-03-05' && f.createdAt < '2025-03-21');
    assert.equal(expected.length, 16);
    assert.deepEqual(rows.map((r) => r[3]), expected.map((f) => f.txid), 'all 16, not the page of 6');
    assert.deepEqual(rows[0]!.slice(4, 8), [expected[0]!.txHex, String(expected[0]!.vsize), String(expected[0]!.fee / expected[0]!.vsize), String(expected[0]!.fee)]);

    await page.getByRole('link', { name: 'Package Submissions' }).click();
    await settled(page, 'Package Submissions', '1 - 3 of 3');
    const packagesFile = await download(page, 'tx-puller/list');
    assert.match(packagesFile.name, /^tx-puller-package_submissions-report-\d{4}(-\d{2}){5}\.csv$/);
    assert.deepEqual(parseCsv(packagesFile.text).slice(1).map((r) => r[3]), [...packages].reverse().map((p) => p.txids.join(',')));
    await page.close();
  });
});

describe('TX Reports', () => {
  test('single transactions and packages with revenue and premium; the payment tx copies with its toast', async () => {
    const page = await open('/dashboard?section=reports');
    await page.getByRole('heading', { name: 'TX Reports', level: 1 }).waitFor();
    const table = await settled(page, 'TX Reports', '1 - 10 of 28');
    assert.deepEqual(await table.getByRole('columnheader').allInnerTexts(), [
      'S.No', 'Timestamp', 'Payment Tx(s)', 'Client code', 'Tx Size (vBytes)', 'AVG FEERATE (SAT/VBYTE)', 'Slipstream Multiple', 'Revenue (sats)', 'Premium (Sats)', 'Public network',
    ]);
    // The newest is a package: both members, 2,002 sats, 400 vB at 2 sat/vB is 800 at the market.
    const first = table.getByRole('row').nth(1);
    const cells = await first.getByRole('cell').allInnerTexts();
    // A package is not judged for the public network: N/A.
    assert.deepEqual(cells.slice(3), [CODE, '400', (2002 / 400).toFixed(2), `${(2002 / 400 / 2).toFixed(2)}x`, '2,002', '1,202', 'N/A']);
    const newest = packages[2]!;
    for (const txid of newest.txids) assert.match(cells[2]!, new RegExp(escape(short(txid))));
    // Regtest has no block explorer: the ids are text, not links.
    assert.equal(await first.getByRole('link').count(), 0);
    await first.getByRole('button', { name: `Copy payment txid ${newest.txids[1]}` }).click();
    await page.getByText('Payment Txid copied!', { exact: true }).first().waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), newest.txids[1]);
    await assertAccessible(page, 'TX Reports');
    await screenshot(page, 'tx-reports');
    await page.close();
  });

  test('on mainnet a payment tx links to the block explorer', async () => {
    const page = await viewer.newPage();
    await page.route('**/rest-api/getinfo', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ block_height: 900_000, network: 'mainnet', fee_rate: 2 }) }));
    await page.goto(`${app.base}/dashboard?section=reports&txid=${txs[0]!.txid}`);
    const table = await settled(page, 'TX Reports', '1 - 1 of 1');
    const link = table.getByRole('link', { name: short(txs[0]!.txid) });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `https://mempool.space/tx/${txs[0]!.txid}`);
    assert.equal(await link.getAttribute('target'), '_blank');
    await page.close();
  });

  test('the Transaction filter finds a package by a member; Download saves the report of the applied filters', async () => {
    const page = await open('/dashboard?section=reports');
    await settled(page, 'TX Reports', '1 - 10 of 28');
    await page.getByLabel('Transaction').fill(packages[0]!.txids[0]!);
    await page.getByRole('button', { name: 'Search' }).click();
    const table = await settled(page, 'TX Reports', '1 - 1 of 1');
    assert.equal(await table.getByRole('row').nth(1).getByRole('cell').nth(3).innerText(), 'PKGCODE');
    assert.equal(params(page).txid, packages[0]!.txids[0]);

    await page.getByRole('button', { name: 'Clear' }).click();
    await settled(page, 'TX Reports', '1 - 10 of 28');
    await page.getByLabel('Client Code').fill(CODE);
    await page.getByLabel('From Date').fill('2025-03-25');
    await page.getByRole('button', { name: 'Search' }).click();
    await settled(page, 'TX Reports', '1 - 3 of 3');
    const file = await download(page, 'tx-reports/list');
    assert.match(file.name, /^tx-report-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.csv$/);
    assert.ok(file.text.endsWith('\r\n'));
    const [header, ...rows] = parseCsv(file.text);
    assert.deepEqual(header, [...TX_REPORT_CSV_HEADER]);
    assert.deepEqual(rows.map((r) => r[2]), [packages[2]!.txids.join(','), packages[1]!.txids.join(','), txs[24]!.txid]);
    assert.deepEqual(rows[2]!.slice(3), [CODE, '174', String(624 / 174), String(624 / 174 / 2), '624', String(624 - 348), '', '']);
    await page.close();
  });

  test('a download refused with 401 ends the session like any other call', async () => {
    const page = await open('/dashboard?section=reports');
    await settled(page, 'TX Reports', '1 - 10 of 28');
    await page.route(downloadOf('tx-reports/list'), (route) =>
      route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'Your session is not valid or has expired. Please sign in again.' }) }),
    );
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    await page.getByText('Session expired. Please log in again.').first().waitFor();
    await page.waitForURL(`${app.base}/`);
    await until(
      async () => (await page.evaluate<string | null>(`localStorage.getItem('${STORAGE_KEY}')`)) === null,
      async () => 'the stored token is still there',
    );
    await page.close();
  });
});
