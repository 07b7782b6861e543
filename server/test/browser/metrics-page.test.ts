import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import type { Clock } from '../../src/lib/clock.ts';
import { launchBrowser, screenshot, seriousA11yViolations, WEB_DIST_DIR } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';
import { ACCEPTANCE_MEANS } from '../../../web/src/metrics-page/refusal-labels.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.ts';
import { FEE_TOO_LOW_MESSAGE } from '../../src/modules/submission/submission-rules.ts';

/**
 * The staff /metrics page in a real browser: signed-in staff (a viewer) see
 * submissions and acceptance, revenue and the node's health drawn from the
 * database's rows, with text alternatives that carry the same figures; the
 * period lives in the address; a visitor without a sign-in goes to /login.
 * The app's clock is pinned so the fixture rows fall on known days.
 */

const NOW = new Date('2031-03-20T15:00:00Z');
const clock: Clock = { now: () => new Date(NOW) };

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
/** A viewer's browser profile, signed in once by the first test; later tests open pages in it. */
let viewer: BrowserContext | undefined;

let rows = 0;
const hex64 = (prefix: string) => `${prefix}${String(++rows)}`.padStart(64, '0');

async function insertTx(at: string, fee: number): Promise<void> {
  await db.query(
    `INSERT INTO tx_submissions (txid, wtxid, tx_hex, fee, fee_rate, functional_rate, market_rate, threshold_rate, multiplier, status, created_at)
     VALUES ($1, $1, '00', $2, 1, 1, 1, 1, 1, 'accepted', $3)`,
    [hex64('a'), fee, at],
  );
}

async function insertFailure(at: string): Promise<void> {
  await db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors, created_at) VALUES ($1, '00', 'Failed', ARRAY['node down'], $2)`, [hex64('f'), at]);
}

async function insertRefusal(at: string, message: string): Promise<void> {
  await db.query(
    `INSERT INTO audit_logs (ip_address, endpoint, http_method, request_at, error_message, source_type, is_success) VALUES ('192.0.2.7', '/rest-api/submit-tx', 'POST', $1, $2, 'External', false)`,
    [at, message],
  );
}

before(async () => {
  assert.ok(existsSync(path.join(WEB_DIST_DIR, 'index.html')), 'the web app is built (npm test builds it first)');
  node = await startTestNode();
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db, { clock });
  browser = await launchBrowser();
  // Today (Mar 20): 3 accepted, 1 failed. Mar 18: 1 accepted. Mar 10: outside 7 days, inside 14 and 30.
  await insertTx('2031-03-20T09:00:00Z', 1500);
  await insertTx('2031-03-20T10:00:00Z', 2500);
  await db.query(`INSERT INTO package_submissions (package_hash, txids, tx_hexes, total_fee, created_at) VALUES ('p1', ARRAY[$1], ARRAY['00'], 6000, '2031-03-20T11:00:00Z')`, [hex64('b')]);
  await insertFailure('2031-03-20T12:00:00Z');
  // Refused today, as the audit trail has them: one fee too low, one while the node was down (the failure kept for retry).
  await insertRefusal('2031-03-20T11:30:00Z', FEE_TOO_LOW_MESSAGE);
  await insertRefusal('2031-03-20T12:00:00Z', NODE_UNAVAILABLE_MESSAGE);
  await insertTx('2031-03-18T08:00:00Z', 2_000_000);
  await insertTx('2031-03-10T08:00:00Z', 42_000);
  // The node's health comes from the engine's dashboard feed, published a moment after its first projection.
  const height = await node.rpc.call<number>('getblockcount');
  for (let i = 0; app.mempool.feed.current()?.recentBlocks[0]?.height !== height; i++) {
    assert.ok(i < 300, 'the mempool engine published its first state');
    await app.mempool.view();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

after(async () => {
  await viewer?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
});

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 2)}`);
}

/** Each row of a table as the text of its cells (header cells included). */
async function tableRows(table: Locator): Promise<string[][]> {
  const body = table.locator('tbody tr');
  const out: string[][] = [];
  for (let i = 0; i < (await body.count()); i++) {
    out.push((await body.nth(i).locator('th, td').allTextContents()).map((t) => t.trim()));
  }
  return out;
}

/** The page shows `days` days' figures (and not an earlier period's kept on screen while loading). */
async function showing(page: Page, text: string): Promise<void> {
  await page.getByTestId('metrics-period').filter({ hasText: text }).waitFor();
  await page.locator('main[aria-busy="false"]').waitFor();
}

describe('the /metrics page', () => {
  test('a visitor without a stored sign-in is sent to /login', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const held: Route[] = [];
    // Hold the provider's requests so that the redirect screen stays up to be seen.
    await page.route(`${app.idp.issuer}/**`, (route) => {
      held.push(route);
    });
    await page.goto(`${app.base}/metrics?days=30`);
    await page.waitForURL(`${app.base}/login`);
    await page.getByText('Redirecting to login...').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Metrics' }).count(), 0);
    await Promise.all(held.map((route) => route.abort()));
    await page.close();
    await context.close();
  });

  test('signed-in staff (a viewer) see the three charts with the figures of the rows, after signing in from /metrics', async () => {
    viewer = await browser.newContext();
    const page = await viewer.newPage();
    await page.goto(`${app.base}/metrics?days=7`);
    await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
    await page.getByLabel('Username').fill('viewer');
    await page.getByLabel('Password').fill(app.password('viewer'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the sign-in started, period included.
    await page.waitForURL(`${app.base}/metrics?days=7`);
    await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor();
    await showing(page, 'Mar 14, 2031 to Mar 20, 2031 (UTC), 7 days');

    const submissions = page.getByRole('region', { name: 'Submissions and acceptance' });
    const chart = submissions.getByRole('img', { name: 'Submissions and acceptance' });
    await chart.waitFor();
    const summary = 'Over 7 days: 4 accepted, 2 refused, acceptance 66.7%.';
    assert.equal(await chart.locator('desc').textContent(), summary, 'the chart is described by its totals');
    assert.equal(await submissions.locator('.metrics-summary').textContent(), summary);
    const perDay = await tableRows(submissions.getByRole('table', { name: 'Submissions and acceptance per day' }));
    assert.equal(perDay.length, 7);
    assert.deepEqual(perDay[0], ['Mar 14, 2031', '0', '0', '0', 'N/A']);
    assert.deepEqual(perDay[4], ['Mar 18, 2031', '1', '0', '0', '100%']);
    assert.deepEqual(perDay[6], ['Mar 20, 2031', '3', '2', '1', '60%']);
    // A bar for each day with submissions: accepted on 2 days, refused on 1.
    assert.equal(await chart.locator('rect.accepted').count(), 2);
    assert.equal(await chart.locator('rect.refused').count(), 1);
    // What the rate means, and every refusal by reason, said on the page.
    await submissions.getByText(ACCEPTANCE_MEANS).waitFor();
    assert.deepEqual(await submissions.getByRole('list', { name: 'Refused, by reason' }).getByRole('listitem').allInnerTexts(), ['Fee too low: 1', 'Node or database unavailable: 1']);
    await submissions.getByText('Kept for retry over the period: 1.').waitFor();
    await chart.getByText('Day (UTC)').waitFor();
    await chart.getByText('Submissions', { exact: true }).waitFor();
    await chart.getByText('Acceptance', { exact: true }).waitFor();

    const revenue = page.getByRole('region', { name: 'Revenue per day' });
    const revenueChart = revenue.getByRole('img', { name: 'Revenue per day' });
    assert.equal(await revenueChart.locator('desc').textContent(), 'Over 7 days: 2,010,000 sats in fees, highest on Mar 18, 2031 (2,000,000 sats).');
    const revenueDays = await tableRows(revenue.getByRole('table', { name: 'Revenue per day' }));
    assert.deepEqual(revenueDays[4], ['Mar 18, 2031', '2,000,000']);
    assert.deepEqual(revenueDays[6], ['Mar 20, 2031', '10,000']);
    assert.equal(await revenueChart.locator('rect.revenue').count(), 2);

    const health = page.getByRole('region', { name: 'Node health' });
    const height = await node.rpc.call<number>('getblockcount');
    const value = (term: string) => health.locator('div').filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) }).locator('dd');
    await value('Connection').filter({ hasText: /^Connected$/ }).waitFor();
    await value('Tip height').filter({ hasText: height.toLocaleString('en-US') }).waitFor();
    assert.match((await value('Mempool transactions').textContent()) ?? '', /^\d[\d,]*$/);

    await assertAccessible(page, '/metrics');
    await screenshot(page, 'metrics-page');
    // On a phone the notes and the reasons wrap within the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth + 1'), true, 'no sideways scrolling at 390 px');
    await screenshot(page, 'metrics-page-phone');
    await page.close();
  });

  test('the period selector changes the address and the figures', async () => {
    assert.ok(viewer, 'signed in by the test before');
    const page = await viewer.newPage();
    await page.goto(`${app.base}/metrics?days=7`);
    await showing(page, '7 days');
    const perDay = page.getByRole('table', { name: 'Submissions and acceptance per day' });

    await page.getByRole('navigation', { name: 'Period' }).getByRole('link', { name: '30 days' }).click();
    await page.waitForURL(`${app.base}/metrics?days=30`);
    await showing(page, 'Feb 19, 2031 to Mar 20, 2031 (UTC), 30 days');
    assert.equal(await page.getByRole('link', { name: '30 days' }).getAttribute('aria-current'), 'true');
    const month = await tableRows(perDay);
    assert.equal(month.length, 30);
    assert.deepEqual(month.find((r) => r[0] === 'Mar 10, 2031'), ['Mar 10, 2031', '1', '0', '0', '100%']);
    assert.equal(
      await page.getByRole('img', { name: 'Submissions and acceptance' }).locator('desc').textContent(),
      'Over 30 days: 5 accepted, 2 refused, acceptance 71.4%.',
    );
    const revenue = await tableRows(page.getByRole('table', { name: 'Revenue per day' }));
    assert.deepEqual(revenue.find((r) => r[0] === 'Mar 10, 2031'), ['Mar 10, 2031', '42,000']);
    await assertAccessible(page, '/metrics?days=30');

    // An address with a period the page does not offer shows the default, 14 days.
    await page.goto(`${app.base}/metrics?days=5`);
    await showing(page, 'Mar 7, 2031 to Mar 20, 2031 (UTC), 14 days');
    assert.equal((await tableRows(perDay)).length, 14);

    await page.getByRole('link', { name: '90 days' }).click();
    await page.waitForURL(`${app.base}/metrics?days=90`);
    await showing(page, '90 days');
    assert.equal((await tableRows(perDay)).length, 90);
    await page.close();
  });

  test('the dashboard links to it', async () => {
    assert.ok(viewer, 'signed in by the test before');
    const page = await viewer.newPage();
    await page.goto(`${app.base}/dashboard`);
    await page.getByRole('link', { name: 'Metrics', exact: true }).click();
    await page.waitForURL(`${app.base}/metrics`);
    await showing(page, '14 days');
    await page.close();
  });
});
