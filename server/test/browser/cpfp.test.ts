import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { freePort } from '../../dev/bitcoin/node-launcher.ts';
import { poolNodeP2pArgs } from '../../dev/bitcoin/policy-node.ts';
import { startTestPolicyNode } from '../helpers/policy-node.ts';
import { type RpcClient } from '../../src/bitcoin/rpc-client.ts';
import { CHILD_CAN_PAY } from '../../src/modules/submission/parse-txs.ts';
import { createRpcPublicMempool } from '../../src/modules/submission/public-mempool.ts';
import { FEE_TOO_LOW_MESSAGE } from '../../src/modules/submission/submission.service.ts';
import { startBrowserSuite, type BrowserSuite } from '../helpers/browser-suite.ts';
import { screenshot, seriousA11yViolations, until } from '../helpers/browser.ts';
import { type BuiltTx } from '../helpers/regtest.ts';

/**
 * Child pays for parent on the public submit page, in a real browser against
 * the real server and nodes: a public parent (a second node, following the
 * pool node's chain and hearing none of its transactions, holds it), a parent
 * pasted first and then its child, and both in one paste. The node is the
 * oracle for what entered; each flow runs on a desktop and a phone width,
 * with screenshots in test-artifacts/.
 */

let suite: BrowserSuite;
let publicRpc: RpcClient;

before(async () => {
  const p2pPort = await freePort();
  suite = await startBrowserSuite({
    utxos: 16,
    nodeArgs: poolNodeP2pArgs(p2pPort),
    async beside(pool) {
      const publicNode = await startTestPolicyNode(p2pPort);
      publicRpc = publicNode.rpc;
      await publicNode.synced(pool);
      return { app: { publicMempool: createRpcPublicMempool(publicRpc) }, stop: () => publicNode.stop() };
    },
  });
});

after(() => suite?.close());

const WIDTHS = [1280, 390] as const;

async function open(path: string, width: number): Promise<Page> {
  const page = await suite.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${suite.app.base}${path}`);
  return page;
}

const hexBox = (page: Page) => page.getByLabel(/Raw transaction hex/);
const summary = (page: Page) => page.getByRole('region', { name: 'Decoded transactions' });
const inMempool = async (txid: string) => (await suite.node.rpc.call<string[]>('getrawmempool')).includes(txid);

/** A parent at 1 sat/vB (the portal's minimum is 2) and a child paying for both. */
async function pair(): Promise<[BuiltTx, BuiltTx]> {
  const parent = await suite.node.buildTx({ feeRate: 1 });
  const child = await suite.node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 12 });
  return [parent, child];
}

/** The status page of `txid` says the child pays for the parent, and links to `other`. */
async function statusSaysCpfp(page: Page, txid: string, other: string, name: string): Promise<void> {
  await page.goto(`${suite.app.base}/status?txid=${txid}`);
  const note = page.getByTestId('tx-cpfp');
  await note.getByText(/child pays for parent/).waitFor();
  assert.ok(await note.getByRole('link', { name: new RegExp(other.slice(0, 8)) }).isVisible(), `${name}: links to ${other}`);
  assert.deepEqual(await seriousA11yViolations(page), [], name);
  await screenshot(page, name);
}

for (const width of WIDTHS) {
  describe(`child pays for parent on the submit page (${width} px)`, () => {
    test('a public parent: paste the child alone', async () => {
      const [parent, child] = await pair();
      await suite.node.rpc.call('sendrawtransaction', [parent.hex]);
      await publicRpc.call('sendrawtransaction', [parent.hex]);
      const page = await open('/', width);
      await hexBox(page).fill(child.hex);
      await summary(page).getByText('Clears the current minimum').waitFor();
      await summary(page).getByText(/pays for them too \(child pays for parent\)/).waitFor();
      await screenshot(page, `cpfp-public-parent-${width}`);
      await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' }).getByText(child.txid).waitFor();
      assert.ok(await inMempool(child.txid));
      await page.close();
    });

    test('the parent pasted first, then its child', async () => {
      const [parent, child] = await pair();
      const page = await open('/', width);
      await hexBox(page).fill(parent.hex);
      await summary(page).getByText('Below the current minimum').waitFor();
      await summary(page).getByText(CHILD_CAN_PAY).waitFor();
      await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: FEE_TOO_LOW_MESSAGE }).waitFor();
      await screenshot(page, `cpfp-parent-first-${width}`);
      assert.equal(await inMempool(parent.txid), false);

      await hexBox(page).fill(child.hex);
      await summary(page).getByText('Clears the current minimum').waitFor();
      await page.getByRole('button', { name: 'SUBMIT', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Transaction accepted into the mempool.' }).getByText(child.txid).waitFor();
      await screenshot(page, `cpfp-then-child-${width}`);
      assert.ok(await inMempool(parent.txid), 'the parent entered with its child');
      await suite.app.records.idle();
      await statusSaysCpfp(page, parent.txid, child.txid, `cpfp-parent-status-${width}`);
      await page.close();
    });

    test('both in one paste, parent first', async () => {
      const [parent, child] = await pair();
      const page = await open('/', width);
      await hexBox(page).fill(`${parent.hex},${child.hex}`);
      await summary(page).getByText(/the transactions of the package that spend it pay for it/).waitFor();
      await until(async () => (await summary(page).getByText('Clears the current minimum').count()) === 2, async () => (await summary(page).textContent()) ?? '');
      await screenshot(page, `cpfp-one-paste-${width}`);
      await page.getByRole('button', { name: 'SUBMIT PACKAGE' }).click();
      const accepted = page.getByRole('status').filter({ hasText: 'Package accepted into the mempool.' });
      await accepted.getByText(parent.txid).waitFor();
      await accepted.getByText(child.txid).waitFor();
      assert.ok(await inMempool(parent.txid) && await inMempool(child.txid));
      await suite.app.records.idle();
      await statusSaysCpfp(page, child.txid, parent.txid, `cpfp-child-status-${width}`);
      await page.close();
    });
  });
}
