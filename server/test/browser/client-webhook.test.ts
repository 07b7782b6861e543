import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { verifySignature } from '../../src/modules/notifications/webhook-signature.ts';
import { launchBrowser, screenshot } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { pngPixel } from '../helpers/png-pixel.ts';
import { until } from '../helpers/until.ts';
import { signedInContext, startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * A client's webhook on the Clients screen in Chromium, at 1280 and 390 px:
 * an administrator sets the URL and copies the secret shown once; a
 * submission with the client's code reaches the receiver signed with it; the
 * events appear in the dialog's log, and "Send again" sends one again.
 */

const CLIENT = 'Hook Owner';
const CODE = 'HOOKOWNER';
let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;
let admin: BrowserContext;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ body: string; signature: string; event: { event: string; txid: string } }> = [];

before(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ body, signature: String(req.headers['slipstream-signature']), event: JSON.parse(body) as { event: string; txid: string } });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/slipstream`;
  node = await startTestNode();
  await node.ensureUtxos(4);
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db, { jobs: { runner: { pollMs: 100 }, recheckMs: 60_000 }, webhooks: { dispatchPollMs: 100, baseBackoffMs: 100 } });
  const { rows } = await db.query<{ id: number }>('INSERT INTO clients (name) VALUES ($1) RETURNING id', [CLIENT]);
  await db.query("INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until) VALUES ($1, $2, 10, now(), now() + interval '1 day')", [CODE, rows[0]!.id]);
  browser = await launchBrowser();
  admin = await signedInContext(browser, app, 'admin');
});

after(async () => {
  await admin?.close();
  await browser?.close();
  await app?.close();
  await db?.close();
  await node?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

describe("a client's webhook on the Clients screen", () => {
  test('set it, receive a signed event of a submission with its code, see it logged, send it again', async () => {
    const page = await admin.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
    await page.getByRole('button', { name: `Webhook of client ${CLIENT}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Webhook' });
    await dialog.getByText('No events sent yet.').waitFor();
    await dialog.getByLabel('Webhook URL').fill('ftp://example.com/hook');
    await dialog.getByRole('button', { name: 'Save webhook' }).click();
    await dialog.locator('.form-error').getByText('The webhook URL must start with https:// or http://.').waitFor();

    await dialog.getByLabel('Webhook URL').fill(receiverUrl);
    await dialog.getByRole('button', { name: 'Save webhook' }).click();
    const secret = ((await dialog.getByTestId('webhook-secret').textContent()) ?? '').trim();
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    // The toast about it shows above the open dialog and its backdrop, not dimmed beneath them (which the page
    // around the dialog is: the control). Read off the painted pixels: outside the dialog everything is inert, so
    // hit-testing cannot tell.
    const saved = page.locator('.Toastify__toast').filter({ hasText: 'Webhook saved!' });
    await saved.waitFor();
    let box = (await saved.boundingBox())!;
    // Once it has slid in.
    for (const deadline = Date.now() + 5_000; box.x + box.width > 1280 && Date.now() < deadline; box = (await saved.boundingBox())!) await page.waitForTimeout(50);
    const shot = await page.screenshot();
    const brightness = (x: number, y: number) => Object.values(pngPixel(shot, Math.round(x), Math.round(y))).reduce((a, b) => a + b, 0) / 3;
    assert.ok(brightness(640, 760) < 200, `the page beyond the dialog is dimmed (${brightness(640, 760)})`);
    assert.ok(brightness(box.x + box.width - 40, box.y + box.height / 2) > 230, `the toast is not (${brightness(box.x + box.width - 40, box.y + box.height / 2)})`);

    const tx = await node.buildTx({ feeRate: 3 });
    const res = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex, client_code: CODE }) });
    assert.equal(res.status, 200);
    await node.mine(1);
    // next_block comes whenever the projection first puts it in the next block: this test is about the others.
    const ofTx = () => received.filter((r) => r.event.txid === tx.txid && r.event.event !== 'next_block');
    await until(async () => ofTx().length >= 2, async () => JSON.stringify(ofTx().map((r) => r.event.event)), 20_000);
    assert.deepEqual(ofTx().map((r) => r.event.event), ['accepted', 'mined']);
    for (const r of ofTx()) assert.equal(verifySignature(secret, r.body, r.signature, Math.floor(Date.now() / 1000)), true);

    // Opened again: the secret is gone for good; the log lists both events, newest first.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: `Webhook of client ${CLIENT}` }).click();
    const log = page.getByRole('list', { name: `Webhook events of ${CLIENT}` });
    await log.getByText('mined').waitFor();
    assert.equal(await page.getByTestId('webhook-secret').count(), 0);
    assert.equal(await log.getByRole('listitem').count(), await log.getByText('Delivered').count(), 'every event delivered');
    await log.getByText('accepted', { exact: true }).waitFor();
    await screenshot(page, 'client-webhook-desktop');

    await log.getByRole('button', { name: `Send the accepted event of ${tx.txid} again` }).click();
    await until(async () => ofTx().length >= 3, async () => 'not sent again', 20_000);
    assert.equal(ofTx()[2]!.event.event, 'accepted');

    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, 'no sideways scrolling at 390 px');
    assert.equal(await page.evaluate<boolean>("(() => { const d = document.querySelector('dialog[open]'); return d.scrollWidth > d.clientWidth + 1 || d.getBoundingClientRect().right > window.innerWidth + 1; })()"), false, 'the dialog fits');
    await screenshot(page, 'client-webhook-phone');
    await page.close();
  });

  test('the form shows the error of the last action only, and removing the webhook takes its secret off the screen', async () => {
    const page = await admin.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${app.base}/dashboard?section=clientmanagement&client_name=${encodeURIComponent(CLIENT)}`);
    await page.getByRole('button', { name: `Webhook of client ${CLIENT}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Webhook' });
    const formError = dialog.locator('.form-error');
    // Set (or set again), so that there is one to remove whichever test ran before.
    await dialog.getByLabel('Webhook URL').fill(receiverUrl);
    await dialog.getByRole('button', { name: 'Save webhook' }).click();
    await dialog.getByRole('button', { name: 'Remove webhook' }).waitFor();

    // Removing fails once, as when the database is out of reach for a moment.
    await page.route(
      '**/rest-api/client/*/webhook',
      (route) =>
        route.request().method() === 'DELETE'
          ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'Removal failed for the test.' }) })
          : route.continue(),
      { times: 1 },
    );
    await dialog.getByRole('button', { name: 'Remove webhook' }).click();
    await formError.getByText('Removal failed for the test.').waitFor();

    // Saving after it works: the failure of the earlier removal no longer stands.
    await dialog.getByLabel('Make a new signing secret').check();
    await dialog.getByRole('button', { name: 'Save webhook' }).click();
    await dialog.getByTestId('webhook-secret').waitFor();
    assert.equal(await formError.count(), 0, 'no error after the save succeeded');

    // Saving fails, then removing works: the save's failure goes too, and so does the secret of the webhook removed.
    await dialog.getByLabel('Webhook URL').fill('ftp://example.com/hook');
    await dialog.getByRole('button', { name: 'Save webhook' }).click();
    await formError.getByText('The webhook URL must start with https:// or http://.').waitFor();
    await dialog.getByRole('button', { name: 'Remove webhook' }).click();
    await dialog.getByRole('button', { name: 'Remove webhook' }).waitFor({ state: 'detached' });
    assert.equal(await formError.count(), 0, 'no error after the removal succeeded');
    assert.equal(await dialog.getByTestId('webhook-secret').count(), 0, 'the removed webhook\'s secret is not shown');
    await page.close();
  });
});
