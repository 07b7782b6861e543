import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.ts';
import { launchBrowser, screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { fakeTxid, insertPackage, insertTx } from '../helpers/submission-fixtures.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The dashboard as a first-time user meets it on a laptop and a phone
 * (docs/behaviour.md#dashboard-shell): no screen wider than a 390 px phone,
 * the key columns of the wide tables in view at 1280 px without a sideways scroll, a failed list load
 * said in the table with a retry, the dashboard's 3000 ms toasts (copy toasts
 * too) that go with their page and keep clear of the header, and a viewer's
 * Failed Transactions with the selection but a retry that says why it is off.
 */

const LONG = 'A long description that a client manager typed in one go, with more words than a table cell should hold on one line';
const txidOf = (label: string) => createHash('sha256').update(label).digest('hex');

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let admin: BrowserContext;
let viewer: BrowserContext;

before(async () => {
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO clients (name, email, phone_number, alternate_phone, address, organization_name, organization_email, description)
     VALUES ('Northwind Mining Cooperative', 'operations@northwind-mining.example', '15550100200', '15550100300',
             '1200 Long Industrial Parkway, Building 7, Suite 400, Springfield', 'Northwind Mining Cooperative Holdings',
             'billing@northwind-mining-holdings.example', $1) RETURNING id`,
    [LONG],
  );
  await db.query(
    `INSERT INTO discount_codes (code, client_id, description, discount_percentage, valid_from, valid_until)
     VALUES ('FITCODE1', $1, $2, 25, '2025-01-01T00:00:00Z', '2030-12-31T23:59:59Z')`,
    [rows[0]!.id, LONG],
  );
  for (let i = 1; i <= 3; i++) {
    const txid = txidOf(`fit-failed-${i}`);
    await db.query(
      `INSERT INTO failed_txs (txid, tx_hex, client_code, status, errors, attempts, created_at, updated_at)
       VALUES ($1, $2, 'FITCODE1', 'Failed', $3, 2, $4, $4)`,
      [txid, `02000000${txid}`, ['mempool min fee not met, 150 < 300', 'package topology disallowed. not child-with-parents or parents depend on each other'], `2025-03-0${i}T12:00:00Z`],
    );
  }
  for (let i = 0; i < 3; i++) {
    await insertTx(db, {
      txid: fakeTxid(`fit-tx${i}`), txHex: `02000000${fakeTxid(`fit-hex${i}`)}`, clientCode: 'FITCODE1',
      vsize: 150 + i, fee: 600 + i, marketRate: 2, status: 'accepted', createdAt: `2025-03-0${i + 1}T12:00:00.000000Z`,
    });
  }
  await insertPackage(db, {
    txids: [fakeTxid('fit-package-a'), fakeTxid('fit-package-b')], txHexes: ['0200aa', '0200bb'], clientCode: 'FITCODE1',
    totalVsize: 400, totalFee: 2000, marketRate: 2, createdAt: '2025-04-01T08:00:00.000000Z',
  });
  browser = await launchBrowser();
  admin = await signedInContext(browser, app, 'admin');
  await admin.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
  viewer = await signedInContext(browser, app, 'viewer');
});

after(async () => {
  await admin?.close();
  await viewer?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

/** Every screen of the dashboard, by address. */
const SCREENS: ReadonlyArray<{ name: string; search: string; table?: string }> = [
  { name: 'tx-puller', search: 'section=txPuller', table: 'Tx Submissions' },
  { name: 'tx-puller-packages', search: 'section=txPuller&tab=package_submissions', table: 'Package Submissions' },
  { name: 'mempool', search: 'section=mempool' },
  { name: 'clients', search: 'section=clientmanagement', table: 'Client Management' },
  { name: 'discounts', search: 'section=discounts', table: 'Discount Management' },
  { name: 'failed-txs', search: 'section=failedtx', table: 'Failed Transaction' },
  { name: 'settings', search: 'section=settings' },
  { name: 'reports', search: 'section=reports', table: 'TX Reports' },
  { name: 'audit', search: 'section=audit', table: 'Audit Logs' },
  { name: 'setting-logs', search: 'section=audit&tab=settings' },
  { name: 'discount-logs', search: 'section=audit&tab=discounts' },
  { name: 'client-logs', search: 'section=audit&tab=clients' },
];

/**
 * Loads the dashboard at `search` in `page`, `width` px wide: a full page load, as a new tab's would be. A test
 * that visits screen after screen does it in one tab (the dashboard keeps nothing in the tab's sessionStorage),
 * which costs Chromium about half what a new tab each time does.
 */
async function loadAt(page: Page, search: string, width: number): Promise<Page> {
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  await page.goto(`${app.base}/dashboard?${search}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  // Rows (or the empty state) have arrived.
  if ((await page.locator('table').count()) > 0) await page.locator('table[aria-busy="false"]').first().waitFor();
  return page;
}

async function openAt(context: BrowserContext, search: string, width: number): Promise<Page> {
  return loadAt(await context.newPage(), search, width);
}

/** Where `locator` is, and whether it lies inside the viewport and inside its table's scrolling box. */
async function placement(locator: Locator): Promise<{ right: number; left: number; inViewport: boolean; inScrollBox: boolean }> {
  const box = await locator.boundingBox();
  const viewport = locator.page().viewportSize();
  assert.ok(box && viewport, 'the element is laid out');
  const scroller = locator.locator('xpath=ancestor::div[contains(concat(" ", @class, " "), " table-scroll ")]');
  const frame = (await scroller.count()) > 0 ? await scroller.boundingBox() : { x: 0, width: viewport.width };
  assert.ok(frame);
  const left = box.x;
  const right = box.x + box.width;
  return {
    left,
    right,
    inViewport: left >= 0 && right <= viewport.width + 0.5,
    inScrollBox: left >= frame.x - 0.5 && right <= frame.x + frame.width + 0.5,
  };
}

describe('a phone (390 px)', () => {
  test('no dashboard screen is wider than the viewport; Logout, Clear and the pager are on screen', async () => {
    const problems: string[] = [];
    const page = await admin.newPage();
    for (const screen of SCREENS) {
      await loadAt(page, screen.search, 390);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 390) problems.push(`${screen.name}: the page is ${width} px wide`);
      const controls: Array<[string, Locator]> = [['Logout', page.getByRole('button', { name: 'Logout' })]];
      if ((await page.getByRole('button', { name: 'Clear' }).count()) > 0) controls.push(['Clear', page.getByRole('button', { name: 'Clear' })]);
      if ((await page.getByRole('button', { name: 'Last page' }).count()) > 0) controls.push(['Last page', page.getByRole('button', { name: 'Last page' })]);
      for (const [name, control] of controls) {
        const where = await placement(control.first());
        if (!where.inViewport) problems.push(`${screen.name}: ${name} spans ${where.left}-${where.right} px`);
      }
      await screenshot(page, `fit-390-${screen.name}`);
    }
    await page.close();
    assert.deepEqual(problems, []);
  });
});

describe('every screen at 1280 px', () => {
  test('no page is wider than the viewport', async () => {
    const problems: string[] = [];
    const page = await admin.newPage();
    for (const screen of SCREENS) {
      await loadAt(page, screen.search, 1280);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 1280) problems.push(`${screen.name}: the page is ${width} px wide`);
      await screenshot(page, `fit-1280-all-${screen.name}`);
    }
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the Logs and Tx Puller tabs keep their places when the selected one turns bold', async () => {
    const page = await admin.newPage();
    for (const [search, nav, names] of [
      ['section=audit', 'Logs', ['Setting Logs', 'Discount Logs', 'Client Logs', 'Audit Logs']],
      ['section=txPuller', 'Tx Puller', ['Package Submissions', 'Tx Submissions']],
    ] as const) {
      await loadAt(page, search, 1280);
      const links = page.getByRole('navigation', { name: nav, exact: true }).getByRole('link');
      const boxes = async () => Promise.all((await links.all()).map(async (link) => JSON.stringify(await link.boundingBox())));
      const before = await boxes();
      for (const name of names) {
        await page.getByRole('link', { name, exact: true }).click();
        await page.locator(`a[aria-current="page"]`, { hasText: name }).waitFor();
        assert.deepEqual(await boxes(), before, `${nav}: after selecting ${name}`);
      }
    }
    await page.close();
  });
});

describe('a laptop (1280 px)', () => {
  /** The header texts of the columns that must be in view, and a cell of each to check. */
  const KEY_COLUMNS: ReadonlyArray<{ search: string; table: string; headers: string[]; cells: (page: Page) => Locator[] }> = [
    {
      search: 'section=discounts', table: 'Discount Management', headers: ['Actions'],
      cells: (page) => [page.getByRole('button', { name: 'Edit client code FITCODE1' }), page.getByRole('button', { name: 'Delete client code FITCODE1' })],
    },
    {
      search: 'section=failedtx', table: 'Failed Transaction', headers: ['Reason', 'Retry Tx'],
      cells: (page) => [page.getByRole('button', { name: `Retry transaction ${txidOf('fit-failed-3')}` })],
    },
    { search: 'section=txPuller', table: 'Tx Submissions', headers: ['TX SIZE', 'FeeRate', 'Total Fee', 'Slipstream Multiple'], cells: () => [] },
    { search: 'section=txPuller&tab=package_submissions', table: 'Package Submissions', headers: ['TX SIZE', 'FeeRate', 'Total Fee', 'Slipstream Multiple'], cells: () => [] },
    { search: 'section=reports', table: 'TX Reports', headers: ['AVG FEERATE (SAT/VBYTE)', 'Slipstream Multiple', 'Revenue (sats)', 'Premium (Sats)'], cells: () => [] },
    { search: 'section=clientmanagement', table: 'Client Management', headers: ['Actions'], cells: () => [] },
  ];

  test('the key columns are in view without scrolling sideways', async () => {
    const problems: string[] = [];
    const page = await admin.newPage();
    for (const screen of KEY_COLUMNS) {
      await loadAt(page, screen.search, 1280);
      const table = page.getByRole('table', { name: screen.table });
      await table.locator('tbody tr').first().waitFor();
      for (const header of screen.headers) {
        const where = await placement(table.getByRole('columnheader', { name: header, exact: true }));
        if (!where.inScrollBox || !where.inViewport) problems.push(`${screen.table}: the ${header} column spans ${where.left}-${where.right} px, out of view`);
      }
      for (const cell of screen.cells(page)) {
        const where = await placement(cell);
        if (!where.inScrollBox || !where.inViewport) problems.push(`${screen.table}: ${await cell.getAttribute('aria-label')} spans ${where.left}-${where.right} px, out of view`);
      }
      await screenshot(page, `fit-1280-${screen.search.replace(/[=&]/g, '-')}`);
    }
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the wide screens pass axe at 1280 and 390 px', async () => {
    const page = await admin.newPage();
    for (const width of [1280, 390]) {
      for (const search of ['section=discounts', 'section=failedtx', 'section=reports']) {
        await loadAt(page, search, width);
        const violations = await seriousA11yViolations(page);
        assert.deepEqual(violations, [], `${search} at ${width} px: ${JSON.stringify(violations, null, 2)}`);
      }
    }
    await page.close();
  });
});

describe('a list that fails to load', () => {
  test('says so in the table with a Retry, not "No data found"; Retry loads the rows', async () => {
    const page = await admin.newPage();
    await page.route('**/rest-api/client-code/view?**', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: SERVICE_UNAVAILABLE_MESSAGE }) }),
    );
    await page.goto(`${app.base}/dashboard?section=discounts`);
    const table = page.getByRole('region', { name: 'Discount Management table' }).locator('..');
    const failure = page.locator('.data-table').getByRole('alert');
    await failure.waitFor();
    assert.match((await failure.innerText()) ?? '', new RegExp(SERVICE_UNAVAILABLE_MESSAGE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(await page.getByText('No data found').count(), 0, 'a failure is not an empty list');
    await screenshot(page, 'list-load-failed');
    await page.unroute('**/rest-api/client-code/view?**');
    await table.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('table', { name: 'Discount Management' }).getByText('FITCODE1').waitFor();
    assert.equal(await failure.count(), 0);
    await page.close();
  });
});

describe('toasts on the dashboard', () => {
  test('a copy toast closes after 3000 ms, stays clear of the header, and goes when the section changes', async () => {
    for (const width of [1280, 390]) {
      const page = await openAt(admin, 'section=discounts', width);
      await page.getByRole('button', { name: 'Copy client code FITCODE1' }).click();
      const toast = page.getByRole('alert').filter({ hasText: 'Client code copied!' });
      await toast.waitFor();
      // react-toastify closes a toast when its progress bar's animation ends: that animation's length is the auto-close delay.
      const duration = await page.evaluate<string>(`getComputedStyle(document.querySelector('.Toastify__progress-bar')).animationDuration`);
      assert.equal(duration, '3s', `the dashboard toast's auto-close at ${width} px`);
      const header = await page.locator('.dashboard-header').boundingBox();
      const box = await toast.boundingBox();
      assert.ok(header && box, 'header and toast are laid out');
      assert.ok(box.y >= header.y + header.height, `at ${width} px the toast (top ${box.y}) covers the header (bottom ${header.y + header.height})`);
      // The picture once the toast has finished sliding in.
      const settled = `document.querySelector('.Toastify__toast')?.getAnimations().every((a) => a.playState !== 'running') ?? false`;
      await until(() => page.evaluate<boolean>(settled), async () => 'the toast is still moving');
      await screenshot(page, `toast-dashboard-${width}`);
      // Leaving for another section takes the page's toast with it.
      if (width < 600) await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Settings' }).click();
      await page.waitForURL(/section=settings/);
      await toast.waitFor({ state: 'detached' });
      await page.close();
    }
  });
});

describe('a viewer on Failed Transactions', () => {
  test('sees the selection and the count; Retry Selected Tx is disabled and says why', async () => {
    const page = await openAt(viewer, 'section=failedtx', 1280);
    await page.getByText('· View only').waitFor();
    const box = page.getByRole('checkbox', { name: `Select transaction ${txidOf('fit-failed-1')}` });
    await box.check();
    await page.getByRole('status').filter({ hasText: /^Total selected: 1$/ }).waitFor();
    await page.getByRole('checkbox', { name: /^Select all/ }).check();
    await page.getByRole('status').filter({ hasText: /^Total selected: 3$/ }).waitFor();
    const retry = page.getByRole('button', { name: 'Retry Selected Tx' });
    assert.equal(await retry.isDisabled(), true);
    const why = await retry.getAttribute('title');
    assert.match(why ?? '', /administrator/i);
    // The reason is also in the accessible description, for those who never hover.
    const note = await retry.getAttribute('aria-describedby');
    assert.ok(note, 'the button is described by its note');
    assert.match((await page.locator(`#${note}`).textContent()) ?? '', /administrator/i);
    assert.equal(await page.getByRole('button', { name: /^Retry transaction/ }).count(), 0, 'the per-row Retry Tx stays for administrators');
    const violations = await seriousA11yViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
    await screenshot(page, 'failed-txs-viewer-selection');
    await page.close();
  });
});
