import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { createSmtpSender, type MailSender } from '../../src/modules/notifications/mail-sender.ts';
import { launchBrowser, screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startSmtpInbox, textOf, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The status page's "Email me when it is mined" in Chromium: offered while
 * the transaction waits, it takes an address and the email arrives when the
 * test mines the block; a portal without SMTP offers no box.
 */

let node: TestNode;
let db: TestDatabase;
let app: WebTestApp;
let plain: WebTestApp;
let browser: Browser;
let inbox: SmtpInbox;
let sender: MailSender;

before(async () => {
  inbox = await startSmtpInbox();
  sender = createSmtpSender({ url: inbox.url, from: 'portal@pool.example' });
  node = await startTestNode();
  await node.ensureUtxos(4);
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(node, db, { jobs: { runner: { pollMs: 100 }, recheckMs: 60_000 }, mail: { sender, dispatchPollMs: 100 } });
  plain = await startWebTestApp(node, db);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await plain?.close();
  await db?.close();
  await node?.stop();
  sender?.close();
  await inbox?.close();
});

describe('email me when it is mined, on the status page', () => {
  test('the address is taken while it waits, and the email comes with the block', async () => {
    const tx = await node.buildTx({ feeRate: 3 });
    const res = await fetch(`${app.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex }) });
    assert.equal(res.status, 200);
    await app.records.idle();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${app.base}/status?txid=${tx.txid}`);
    const box = page.getByLabel('Email me when it is mined');
    await box.waitFor();
    assert.deepEqual(await seriousA11yViolations(page), []);
    await box.fill('watcher@example.com');
    await page.getByRole('button', { name: 'Notify me' }).click();
    await page.getByText('We will email you once, when this transaction is mined.').waitFor();
    assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, 'no sideways scrolling at 390 px');
    await screenshot(page, 'status-email-me-phone');
    await node.mine(1);
    await until(async () => inbox.mails.some((m) => m.to.includes('watcher@example.com')), async () => `inbox: ${inbox.mails.length}`, 20_000);
    // Quoted-printable folds long lines with "=" at the end.
    const text = textOf(inbox.mails.find((m) => m.to.includes('watcher@example.com'))!.raw);
    assert.match(text, new RegExp(`Transaction ${tx.txid} was mined in block`));
    await page.close();
  });

  test('a portal that sends no email offers no box', async () => {
    const tx = await node.buildTx({ feeRate: 3 });
    await fetch(`${plain.base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex }) });
    await plain.records.idle();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${plain.base}/status?txid=${tx.txid}`);
    await page.getByText('Rate to beat').first().waitFor();
    assert.equal(await page.getByLabel('Email me when it is mined').count(), 0);
    await page.close();
  });
});
