import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { FEE_TOO_LOW_MESSAGE } from '../../src/modules/submission/submission.service.ts';
import { launchBrowser, screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The back office in a real browser (docs/behaviour.md#discount-management, docs/behaviour.md#client-management, docs/behaviour.md#settings, docs/behaviour.md#logs): an admin registers a client,
 * issues it a discount code, sees the code lower the threshold of a public
 * submission, edits and deletes the code, changes a setting and sees it take
 * effect, and finds every change in its log tab; a viewer sees the same
 * screens with no way to change anything. axe checks each screen and a modal.
 */

const CLIENT = 'Acme Mining Co';
const VIEWER_CLIENT = 'Read Only Ltd';
const STORAGE_KEY = 'okta-token-storage';

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
/** The admin's browser profile, signed in once; each test opens its own page in it. */
let admin: BrowserContext;
/** The code issued in the discount test, for the tests after it. */
let code = '';

const dayUtc = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(6);
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db);
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

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.base}${path}`);
  return page;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The table's rows have arrived: not busy, and (when given) the pager says `range`. */
async function settled(page: Page, table: string, range?: string): Promise<Locator> {
  if (range !== undefined) await page.locator('.pager .range', { hasText: new RegExp(`^${escape(range)}$`) }).waitFor();
  await page.locator(`table[aria-label="${table}"][aria-busy="false"]`).waitFor();
  return page.getByRole('table', { name: table });
}

/** The text of each cell of the first row with a cell that says exactly `text`. */
async function rowCells(table: Locator, text: string): Promise<string[]> {
  const row = table.getByRole('row').filter({ has: table.page().getByRole('cell', { name: text, exact: true }) });
  return row.first().getByRole('cell').allInnerTexts();
}

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 2)}`);
}

async function toast(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: true }).first().waitFor();
}

/** The staff API as the admin's browser calls it, for set-up the test is not about. */
async function adminApi<T>(page: Page, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const stored = JSON.parse((await page.evaluate<string | null>(`localStorage.getItem('${STORAGE_KEY}')`)) ?? 'null') as { id_token: string } | null;
  assert.ok(stored, 'the admin is signed in');
  const response = await fetch(`${app.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${stored.id_token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const answer = (await response.json()) as T & { message?: string };
  assert.equal(response.status, 200, `${method} ${path}: ${answer.message}`);
  return answer;
}

describe('an administrator', () => {
  test('adds a client: the form checks its fields, shows the server\'s refusal, and the client is listed and editable', async () => {
    const page = await open(admin, '/dashboard?section=clientmanagement');
    await settled(page, 'Client Management');
    await assertAccessible(page, 'Client Management');

    await page.getByRole('button', { name: '+ Add Client' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Client' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByText('Name is required').waitFor();
    await dialog.getByLabel('Email', { exact: true }).fill('not-an-address');
    await dialog.getByLabel('Phone Number', { exact: true }).fill('555-1234');
    await dialog.getByLabel('Alternate Phone Number').fill('call me');
    await dialog.getByLabel('Organization Email').fill('billing@');
    for (const message of ['Email is invalid', 'Phone number is invalid', 'Alternate phone number is invalid', 'Organization email is invalid']) {
      await dialog.getByText(message, { exact: true }).waitFor();
    }
    await assertAccessible(page, 'Add Client modal with its messages');
    await screenshot(page, 'back-office-client-form-errors');

    await dialog.getByLabel('Client Name').fill(CLIENT);
    await dialog.getByLabel('Email', { exact: true }).fill('ops@acme.example');
    await dialog.getByLabel('Phone Number', { exact: true }).fill('15551234567');
    await dialog.getByLabel('Alternate Phone Number').fill('');
    await dialog.getByLabel('Address').fill('1 Hash Street, Block Town');
    await dialog.getByLabel('Organization Name').fill('Acme');
    await dialog.getByLabel('Organization Email').fill('billing@acme.example');
    await dialog.getByLabel('Description').fill('First client');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await toast(page, 'Client added successfully!');
    await dialog.waitFor({ state: 'hidden' });
    const table = await settled(page, 'Client Management', '1 - 1 of 1');
    assert.deepEqual((await rowCells(table, CLIENT)).slice(0, 9), [
      '1', CLIENT, 'ops@acme.example', '15551234567', '', '1 Hash Street, Block Town', 'Acme', 'billing@acme.example', 'First client',
    ]);

    // The server's own refusal (a second client of the same name) shows in the form.
    await page.getByRole('button', { name: '+ Add Client' }).click();
    await dialog.getByLabel('Client Name').fill(CLIENT);
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByRole('alert').getByText(`A client named '${CLIENT}' already exists.`, { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: `Edit client ${CLIENT}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Client' });
    assert.equal(await edit.getByLabel('Client Name').inputValue(), CLIENT);
    await edit.getByLabel('Description').fill('Key account');
    await edit.getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Client updated successfully!');
    await edit.waitFor({ state: 'hidden' });
    await table.getByRole('cell', { name: 'Key account' }).waitFor();
    // No code refers to it yet, so it may be deleted.
    await page.getByRole('button', { name: `Delete client ${CLIENT}` }).waitFor();

    // The filters go to the server and live in the address.
    await page.getByLabel('Client Name').fill('acme');
    await page.getByLabel('Organization Name').fill('Ac');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('client_name') === 'acme');
    await settled(page, 'Client Management', '1 - 1 of 1');
    await page.getByLabel('Email').fill('nobody@');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No data found').waitFor();
    await screenshot(page, 'back-office-clients');
    await page.close();
  });

  test('issues the client a discount code that lowers the threshold of a public submission', async () => {
    // As in back-office-effects.test.ts: no floor, and a multiple that puts the minimum at 4 sat/vB, so a 50% code brings it to 2.
    const minimum = async () => ((await (await fetch(`${app.base}/rest-api/getinfo`)).json()) as { fee_rate: number }).fee_rate;
    await app.setSetting('fee_rate_floor', '0');
    await app.setSetting('slipstream_multiplier', String(4 / ((await minimum()) / 2)));
    try {
      assert.ok(Math.abs((await minimum()) - 4) < 1e-9, `minimum ${await minimum()}`);
      const page = await open(admin, '/dashboard?section=discounts');
      await settled(page, 'Discount Management');
      await page.getByRole('button', { name: '+ Add New Discount' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add New Discount' });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel('Code').count(), 0, 'the server makes the code: no field for it');

      // The form's own checks, with the documented messages (docs/behaviour.md#validation-rules).
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await until(
        async () => (await dialog.getByText('Required', { exact: true }).count()) === 4,
        async () => `messages: ${(await dialog.locator('.field-error').allInnerTexts()).join(', ')}`,
      );
      await dialog.getByLabel('Discount (%)').fill('1x5');
      assert.equal(await dialog.getByLabel('Discount (%)').inputValue(), '15', 'digits only');
      await dialog.getByLabel('Discount (%)').fill('150');
      await dialog.getByText('Must be between 0 and 99.').waitFor();
      const from = dialog.getByLabel('Valid From', { exact: true });
      const until_ = dialog.getByLabel('Valid Until', { exact: true });
      assert.equal(await from.getAttribute('min'), dayUtc(), 'the from-date picker starts today');
      assert.equal(await from.getAttribute('max'), '2100-12-31');
      await from.fill(dayUtc(2));
      assert.equal(await until_.getAttribute('min'), dayUtc(2), 'valid-until cannot precede valid-from');
      await until_.fill(dayUtc(1));
      await dialog.getByText('Invalid date range.').waitFor();
      const times = await dialog.getByLabel('Valid From time (UTC)').locator('option').allInnerTexts();
      assert.equal(times.length, 49, 'the whole day, then 48 half hours');
      assert.deepEqual(times.slice(1, 4), ['00:00', '00:30', '01:00']);
      const statusOptions = dialog.getByLabel('Status').locator('option');
      const statuses = await Promise.all((await statusOptions.all()).map((option) => option.getAttribute('value')));
      assert.deepEqual(statuses, ['', 'true', 'false'], 'an empty placeholder, then Active and Inactive');
      assert.equal(await dialog.getByLabel('Status').inputValue(), 'true', 'a new code starts active');

      await dialog.getByLabel('Client', { exact: true }).selectOption(CLIENT);
      await dialog.getByLabel('Description').fill('half price');
      await dialog.getByLabel('Discount (%)').fill('50');
      await from.fill(dayUtc());
      await until_.fill(dayUtc(30));
      await assertAccessible(page, 'Add New Discount modal');
      await screenshot(page, 'back-office-discount-form');
      const sent = page.waitForRequest((r) => r.url().endsWith('/rest-api/client-code/add'));
      const answered = page.waitForResponse((r) => r.url().endsWith('/rest-api/client-code/add'));
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      // docs/behaviour.md#dates-in-calls: dates alone go as the start and the end of their days.
      assert.deepEqual((await sent).postDataJSON(), {
        client_name: CLIENT,
        description: 'half price',
        discount_percentage: 50,
        valid_from: `${dayUtc()} 00:00:00`,
        valid_until: `${dayUtc(30)} 23: 59: 59`,
        status: true,
      });
      code = ((await (await answered).json()) as { code: string }).code;
      assert.match(code, /^[A-Z0-9]{10}$/);
      await toast(page, 'Client code added successfully!');
      await dialog.waitFor({ state: 'hidden' });

      const table = await settled(page, 'Discount Management', '1 - 1 of 1');
      const cells = await rowCells(table, CLIENT);
      assert.deepEqual([cells[0], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8]], [
        '1', CLIENT, dayUtc(), 'half price', '50%', dayUtc(), dayUtc(30), 'Active',
      ]);
      assert.match(cells[1]!, new RegExp(`^${code}`));
      await table.getByRole('button', { name: `Copy client code ${code}` }).click();
      await toast(page, 'Client code copied!');
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), code);
      await assertAccessible(page, 'Discount Management');
      await screenshot(page, 'back-office-discounts');

      // While a code refers to it, the client cannot be deleted.
      await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
      await settled(page, 'Client Management', '1 - 1 of 1');
      await page.getByRole('button', { name: `Edit client ${CLIENT}` }).waitFor();
      assert.equal(await page.getByRole('button', { name: `Delete client ${CLIENT}` }).count(), 0);

      // The public submit page: 3 sat/vB is under the minimum of 4 without the code, and clears the 2 it leaves.
      const tx = await node.buildTx({ feeRate: 3 });
      await page.goto(`${app.base}/`);
      await page.getByLabel(/Raw transaction hex/).fill(tx.hex);
      const summary = page.getByRole('region', { name: 'Decoded transactions' });
      await summary.getByText('Below the current minimum').waitFor();
      await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
      await page.getByRole('alert').getByText(FEE_TOO_LOW_MESSAGE).waitFor();
      await page.getByLabel('Client code (optional)').fill(code);
      await summary.getByText('Clears the current minimum').waitFor();
      await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
      await page.getByText('Transaction submitted successfully!').waitFor();
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid), 'the node has it');
      await page.close();
    } finally {
      await app.setSetting('fee_rate_floor', '2');
      await app.setSetting('slipstream_multiplier', '2');
    }
  });

  test('edits the code and deletes it; then the client can be deleted too', async () => {
    assert.ok(code, 'the discount test issued a code');
    const page = await open(admin, `/dashboard?section=discounts&client_code=${code}`);
    const table = await settled(page, 'Discount Management', '1 - 1 of 1');
    await page.getByRole('button', { name: `Edit client code ${code}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Discount' });
    await edit.waitFor();
    assert.equal(await edit.getByLabel('Code').inputValue(), code);
    assert.equal(await edit.getByLabel('Code').getAttribute('readonly'), '');
    assert.equal(await edit.getByRole('radio', { name: 'Active', exact: true }).isChecked(), true);
    assert.equal(await edit.getByLabel('Discount (%)').inputValue(), '50');
    await edit.getByLabel('Discount (%)').fill('40');
    await edit.getByRole('radio', { name: 'Inactive' }).check();
    await edit.getByLabel('Valid Until time (UTC)').selectOption('18:30');
    const sent = page.waitForRequest((r) => r.url().includes('/rest-api/client-code/update/'));
    await edit.getByRole('button', { name: 'Save' }).click();
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    assert.equal(body.valid_until, `${dayUtc(30)} 18:30:00`);
    assert.equal(body.status, false);
    await toast(page, 'Client code edited successfully!');
    await edit.waitFor({ state: 'hidden' });
    await table.getByRole('cell', { name: '40%' }).waitFor();
    assert.equal((await rowCells(table, CLIENT))[8], 'Inactive');

    await page.getByRole('button', { name: `Delete client code ${code}` }).click();
    const remove = page.getByRole('dialog', { name: 'Delete Discount' });
    await remove.getByText(`Are you sure you want to delete the client code ${code}?`, { exact: true }).waitFor();
    await screenshot(page, 'back-office-discount-delete');
    await remove.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Client code deleted successfully!');
    await remove.waitFor({ state: 'hidden' });
    await page.getByText('No data found').waitFor();
    await settled(page, 'Discount Management', '0 - 0 of 0');

    await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
    await settled(page, 'Client Management', '1 - 1 of 1');
    await page.getByRole('button', { name: `Delete client ${CLIENT}` }).click();
    const removeClient = page.getByRole('dialog', { name: 'Delete Client' });
    await removeClient.getByText(`Are you sure you want to delete the client code ${CLIENT}?`, { exact: true }).waitFor();
    await removeClient.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Client deleted successfully!');
    await page.getByText('No data found').waitFor();
    await page.close();
  });

  test('edits a setting and it takes effect at once: maintenance on, then off; a bad value is refused in the form', async () => {
    const page = await open(admin, '/dashboard?section=settings');
    const table = await settled(page, 'Settings');
    await table.getByRole('cell', { name: 'Maintenance Mode', exact: true }).waitFor();
    await assertAccessible(page, 'Settings');
    await screenshot(page, 'back-office-settings');
    const visitor = await browser.newContext();
    try {
      for (const value of ['true', 'false'] as const) {
        await page.getByRole('button', { name: 'Edit Maintenance Mode' }).click();
        const dialog = page.getByRole('dialog', { name: 'Edit Maintenance Mode' });
        await dialog.getByLabel('Value').selectOption(value);
        const sent = page.waitForRequest((r) => r.url().endsWith('/rest-api/settings/update'));
        await dialog.getByRole('button', { name: 'Save' }).click();
        const body = (await sent).postDataJSON() as Array<Record<string, unknown>>;
        assert.equal(body.length, 1);
        assert.deepEqual(Object.keys(body[0]!).sort(), ['description', 'id', 'item', 'value']);
        assert.equal(body[0]!.item, 'maintenance_mode');
        await toast(page, 'Settings updated successfully!');
        await dialog.waitFor({ state: 'hidden' });
        assert.equal((await rowCells(table, 'Maintenance Mode'))[1], value);

        const home = await open(visitor, '/');
        if (value === 'true') await home.getByText('Adding more RAM to mempool, check back later!').waitFor();
        else await home.getByRole('button', { name: 'SUBMIT', exact: true }).waitFor();
        await home.close();
      }
    } finally {
      await visitor.close();
    }

    await page.getByRole('button', { name: 'Edit Fee Rate Floor' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Fee Rate Floor' });
    const value = dialog.getByLabel('Value');
    assert.equal(await value.getAttribute('type'), 'number');
    await value.fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Value is required').waitFor();
    await value.fill('-1');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // The server's message for the field, and the documented toast (docs/behaviour.md#messages).
    await dialog.getByText('Value must be at least 0').waitFor();
    await toast(page, 'Failed to update setting. Please try again.');
    await assertAccessible(page, 'Edit setting modal with the server\'s message');
    await screenshot(page, 'back-office-setting-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await rowCells(table, 'Fee Rate Floor'))[1], '2');

    // An optional setting: set, emptied again, and saved unchanged while empty.
    for (const text of ['/Test Pool/', '']) {
      await page.getByRole('button', { name: 'Edit Pool Coinbase Tag' }).click();
      const tag = page.getByRole('dialog', { name: 'Edit Pool Coinbase Tag' });
      await tag.getByText('Optional: leave it blank for none.').waitFor();
      await tag.getByLabel('Value').fill(text);
      await tag.getByRole('button', { name: 'Save' }).click();
      await tag.waitFor({ state: 'hidden' });
      assert.equal((await rowCells(table, 'Pool Coinbase Tag'))[1], text);
    }
    await page.getByRole('button', { name: 'Edit Pool Payout Addresses' }).click();
    const payout = page.getByRole('dialog', { name: 'Edit Pool Payout Addresses' });
    assert.equal(await payout.getByLabel('Value').inputValue(), '');
    await payout.getByRole('button', { name: 'Save' }).click();
    await payout.waitFor({ state: 'hidden' });
    await page.close();
  });

  test('finds each change in its log tab', async () => {
    assert.ok(code, 'the discount test issued a code');
    // Setting Logs: the Name goes to the server in snake_case.
    const page = await open(admin, '/dashboard?section=audit&tab=settings');
    await settled(page, 'Setting Logs');
    await page.getByLabel('Name').fill('Maintenance Mode');
    await page.getByLabel('Email').fill('adm');
    const asked = page.waitForRequest((r) => r.url().includes('/rest-api/setting-logs/list?') && r.url().includes('item='));
    await page.getByRole('button', { name: 'Search' }).click();
    const query = new URL((await asked).url()).searchParams;
    assert.equal(query.get('item'), 'maintenance_mode');
    assert.equal(query.get('username'), 'adm');
    const settings = await settled(page, 'Setting Logs', '1 - 2 of 2');
    const [newest, oldest] = [await settings.locator('tbody tr').nth(0).getByRole('cell').allInnerTexts(), await settings.locator('tbody tr').nth(1).getByRole('cell').allInnerTexts()];
    // The Email column: the email from the admin's token, the username beside it.
    assert.deepEqual(newest.slice(0, 5), ['1', 'admin@example.test (admin)', 'Maintenance Mode', 'true', 'false']);
    assert.deepEqual(oldest.slice(0, 5), ['2', 'admin@example.test (admin)', 'Maintenance Mode', 'false', 'true']);
    assert.match(newest[5]!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await assertAccessible(page, 'Setting Logs');
    await screenshot(page, 'back-office-setting-logs');

    // Discount Logs: created, updated, deleted; each change field by field.
    await page.goto(`${app.base}/dashboard?section=audit&tab=discounts&client_code=${code}`);
    const discounts = await settled(page, 'Discount Logs', '1 - 3 of 3');
    const actions = await discounts.locator('tbody tr td:nth-child(3)').allInnerTexts();
    assert.deepEqual(actions, ['Delete', 'Update', 'Create']);
    const update = (await rowCells(discounts, 'Update'))[4]!;
    assert.match(update, /Discount Percentage: 50% -> 40%/);
    assert.match(update, /Status: Active -> Inactive/);
    // Dates show as dates; a change of the time alone shows the times.
    assert.match(update, new RegExp(`Valid Until: ${dayUtc(30)} 23:59:59 -> ${dayUtc(30)} 18:30:00`));
    assert.doesNotMatch(update, /Client Name/, 'only the fields that changed');
    const created = (await rowCells(discounts, 'Create'))[4]!;
    assert.match(created, new RegExp(`Valid From: None -> ${dayUtc()}\\n`));
    assert.match(created, new RegExp(`Valid Until: None -> ${dayUtc(30)}`));
    assert.match(created, new RegExp(`Client Name: None -> ${CLIENT}`));
    assert.deepEqual((await rowCells(discounts, 'Create')).slice(0, 4), ['3', 'admin@example.test (admin)', 'Create', code]);
    await page.getByLabel('Action').selectOption({ label: 'Update' });
    await page.getByRole('button', { name: 'Search' }).click();
    await settled(page, 'Discount Logs', '1 - 1 of 1');
    await assertAccessible(page, 'Discount Logs');
    await screenshot(page, 'back-office-discount-logs');

    // Client Logs.
    await page.goto(`${app.base}/dashboard?section=audit&tab=clients`);
    await settled(page, 'Client Logs');
    await page.getByLabel('Client Name').fill('Acme');
    // The Email filter matches the email, not only the username.
    await page.getByLabel('Email').fill('admin@example');
    await page.getByRole('button', { name: 'Search' }).click();
    const clients = await settled(page, 'Client Logs', '1 - 3 of 3');
    assert.deepEqual(await clients.locator('tbody tr td:nth-child(3)').allInnerTexts(), ['Delete', 'Update', 'Create']);
    assert.equal((await rowCells(clients, 'Update'))[4], 'Description: First client -> Key account');
    assert.match((await rowCells(clients, 'Delete'))[4]!, /Name: Acme Mining Co -> None/);
    assert.deepEqual((await rowCells(clients, 'Create')).slice(0, 4), ['3', 'admin@example.test (admin)', 'Create', CLIENT]);
    await assertAccessible(page, 'Client Logs');
    await screenshot(page, 'back-office-client-logs');
    await page.close();
  });
});

describe('a viewer', () => {
  test('sees the same tables with no Actions columns, no add buttons and no edit or delete anywhere', async () => {
    // Something to see: a client with a code, made by the admin.
    const adminPage = await open(admin, '/dashboard?section=discounts');
    await settled(adminPage, 'Discount Management');
    await adminApi(adminPage, 'POST', '/rest-api/client/add', { name: VIEWER_CLIENT });
    const issued = await adminApi<{ code: string }>(adminPage, 'POST', '/rest-api/client-code/add', {
      client_name: VIEWER_CLIENT,
      discount_percentage: 10,
      valid_from: `${dayUtc()} 00:00:00`,
      valid_until: `${dayUtc(7)} 23:59:59`,
    });
    await adminPage.close();

    const viewer = await signedInContext(browser, app, 'viewer');
    try {
      const screens: Array<[string, string, string]> = [
        ['/dashboard?section=discounts', 'Discount Management', issued.code],
        ['/dashboard?section=clientmanagement', 'Client Management', VIEWER_CLIENT],
        ['/dashboard?section=settings', 'Settings', 'Maintenance Mode'],
        ['/dashboard?section=audit&tab=settings', 'Setting Logs', 'Maintenance Mode'],
        ['/dashboard?section=audit&tab=discounts', 'Discount Logs', issued.code],
        ['/dashboard?section=audit&tab=clients', 'Client Logs', VIEWER_CLIENT],
      ];
      // One tab, loaded afresh at each screen: as a new tab would be, for about half the cost.
      const page = await viewer.newPage();
      for (const [path, table, expected] of screens) {
        await page.goto(`${app.base}${path}`);
        const shown = await settled(page, table);
        await shown.getByRole('row').filter({ hasText: expected }).first().waitFor();
        await page.getByText('· View only').waitFor();
        assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0, `${table}: no Actions column`);
        assert.equal(await page.getByRole('button', { name: /^\+ Add/ }).count(), 0, `${table}: no add button`);
        assert.equal(await page.getByRole('button', { name: /^(Edit|Delete)\b/ }).count(), 0, `${table}: no edit or delete`);
        if (table === 'Discount Management') {
          // Copying is not a change: viewers keep it.
          await shown.getByRole('button', { name: `Copy client code ${issued.code}` }).waitFor();
          await assertAccessible(page, 'Discount Management for a viewer');
          await screenshot(page, 'back-office-viewer-discounts');
        }
      }
      await page.close();
    } finally {
      await viewer.close();
    }
  });
});
