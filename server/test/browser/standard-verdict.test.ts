import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../../dev/bitcoin/node-launcher.ts';
import { poolNodeP2pArgs } from '../../dev/bitcoin/policy-node.ts';
import { startTestPolicyNode, type TestPolicyNode } from '../helpers/policy-node.ts';
import { launchBrowser, screenshot, seriousA11yViolations } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * The submit page says, beside the decoded summary, whether the public
 * network would relay each transaction (a pool node and, beside it, a node
 * with Bitcoin Core's default policy).
 */

let pool: TestNode;
let policy: TestPolicyNode;
let db: TestDatabase;
let app: WebTestApp;
let browser: Browser;

before(async () => {
  const p2pPort = await freePort();
  pool = await startTestNode({ extraArgs: poolNodeP2pArgs(p2pPort) });
  policy = await startTestPolicyNode(p2pPort);
  db = await testDatabases()[0]!.open();
  app = await startWebTestApp(pool, db, { policy: policy.oracle });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await db?.close();
  await policy?.stop();
  await pool?.stop();
});

async function decoded(hex: string): Promise<{ page: Page; text: string }> {
  const poolHeight = await pool.rpc.call<number>('getblockcount');
  await until(async () => (await policy.rpc.call<number>('getblockcount')) >= poolHeight, async () => 'the policy node is behind');
  const page = await browser.newPage();
  await page.goto(`${app.base}/`);
  await page.getByLabel(/Raw transaction hex/).fill(hex);
  const summary = page.getByRole('region', { name: 'Decoded transactions' });
  await summary.getByText(/^(standard|non-standard|unknown): /).waitFor();
  return { page, text: await summary.innerText() };
}

test('a standard transaction: "standard: the public network would relay this"', async () => {
  const tx = await pool.buildTx({ feeRate: 6 });
  const { page, text } = await decoded(tx.hex);
  assert.match(text, /Public network\s+standard: the public network would relay this/);
  await page.close();
});

test('an oversize transaction: "non-standard: public nodes refuse it because …", and it can still be submitted', async () => {
  const tx = await pool.buildOversize();
  const { page, text } = await decoded(tx.hex);
  assert.match(text, /Public network\s+non-standard: public nodes refuse it because the transaction is larger than the node relays .*\(tx-size\)/);
  assert.match(text, /submitting is your decision/);
  assert.equal(await page.getByRole('button', { name: 'SUBMIT', exact: true }).isDisabled(), false);
  assert.deepEqual(await seriousA11yViolations(page), []);
  await screenshot(page, 'standard-verdict-non-standard');
  await page.close();
});

test('a transaction already mined, pasted again: "already confirmed in block N", and nothing about standardness', async () => {
  const tx = await pool.buildTx({ feeRate: 4 });
  await pool.rpc.call('sendrawtransaction', [tx.hex]);
  await pool.mine(1);
  const height = await pool.rpc.call<number>('getblockcount');
  // The policy node has the block too: asked now, it answers txn-already-known (its outputs are coins).
  await until(async () => (await policy.rpc.call<number>('getblockcount')) >= height, async () => 'the policy node is behind');
  const [asked] = await policy.rpc.call<Array<{ 'reject-reason'?: string }>>('testmempoolaccept', [[tx.hex]]);
  assert.equal(asked!['reject-reason'], 'txn-already-known');
  const page = await browser.newPage();
  await page.goto(`${app.base}/`);
  await page.getByLabel(/Raw transaction hex/).fill(tx.hex);
  const summary = page.getByRole('region', { name: 'Decoded transactions' });
  await summary.getByText(`This transaction is already confirmed in block ${height}.`).waitFor();
  const text = await summary.innerText();
  assert.doesNotMatch(text, /standard|Public network|txn-already-known/);
  await screenshot(page, 'standard-verdict-already-confirmed');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'standard-verdict-already-confirmed-390');
  await page.close();
});

test('a 100-byte OP_RETURN: standard for Bitcoin Core 30, and per node policy Core 29 refuses it, Knots not judged', async () => {
  const tx = await pool.buildWithOutputs({ outputs: [{ value: 0, scriptPubKey: `6a4c64${'ab'.repeat(100)}` }], feeRate: 2 });
  const { page, text } = await decoded(tx.hex);
  assert.match(text, /Public network\s+standard: the public network would relay this/);
  const byPolicy = page.getByRole('list', { name: 'By node policy' });
  assert.deepEqual(await byPolicy.getByRole('listitem').allInnerTexts(), [
    'Bitcoin Core 30 and later: relays it',
    'Bitcoin Core 29, and Knots with -corepolicy: refuses it because an output script is of a kind the node does not relay (scriptpubkey)',
    "Bitcoin Knots, its defaults: not known (no node with Bitcoin Knots' default policy is configured to judge it)",
  ]);
  assert.deepEqual(await seriousA11yViolations(page), []);
  await screenshot(page, 'standard-verdict-per-policy');
  await page.setViewportSize({ width: 390, height: 844 });
  // Each line wraps inside the summary: nothing wider than the phone's screen.
  assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1'), false, 'no sideways scrolling');
  await screenshot(page, 'standard-verdict-per-policy-390');
  await page.close();
});
