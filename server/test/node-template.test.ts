import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import type { SynchroTableResponse } from '../src/modules/synchro-table/synchro-table.schemas.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * The node's block template is the truth for block 0
 * (mempool-engine/src/queries/node-template.ts). The app runs as production
 * does (`latest` views, ZMQ), with the mirror's own check of the node (which
 * reads prioritisetransaction deltas, every 2 s by default) put off: a
 * `prioritisetransaction` then reaches the node's block and not the
 * projection's, as between two checks, or as any block policy the portal
 * does not model (a pool's patch, Core 31's linearization). The comparison
 * shows it (metrics, synchro table) and the transaction's status follows the
 * node: not in the next block.
 */

const TOKEN = 'node-template-metrics-token';
const CHECK_EVERY_MS = 100;

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(6);
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`the node's block template against the projection (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node, { metricsToken: TOKEN, mempool: { consistency: 'latest', templateCheckEveryMs: CHECK_EVERY_MS, sync: { checkIntervalMs: 3_600_000 } } });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const submit = async (hex: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: hex } });
      assert.equal(res.statusCode, 200, res.body);
    };
    const status = async (txid: string) => (await t.app.inject({ method: 'GET', url: `/rest-api/status-check?tx_id=${txid}` })).json<StatusResponse>();
    /** Views trail the node by a projection: wait for the one that says `block`. */
    const blockOf = async (txid: string, block: number | null) => {
      await until(async () => (await status(txid)).transaction?.position.block === block, async () => `${txid} in block ${block}: ${JSON.stringify(await status(txid))}`, 10_000);
    };
    const confirmed = async (txid: string) => {
      await until(async () => (await status(txid)).transaction?.status.confirmed === true, async () => `${txid} confirmed: ${JSON.stringify(await status(txid))}`, 10_000);
    };
    const table = async () => (await t.call<SynchroTableResponse>('GET', '/rest-api/synchro/table', { as: 'viewer' })).body;
    const gauge = async (name: string) => {
      const text = (await t.app.inject({ method: 'GET', url: '/rest-api/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      assert.ok(line, `${name} in the scrape`);
      return Number(line.split(' ')[1]);
    };
    const templateTxids = async () => (await node.rpc.call<{ transactions: Array<{ txid: string }> }>('getblocktemplate', [{ rules: ['segwit'] }])).transactions.map((x) => x.txid);

    test('they agree on a quiet mempool: block 0 is the projection, the metrics say so', async () => {
      const txs = [await node.buildTx({ feeRate: 3 }), await node.buildTx({ feeRate: 6 })];
      for (const tx of txs) await submit(tx.hex);
      const checks = (await table()).template.checks;
      await until(async () => (await table()).template.checks > checks + 1, async () => 'two more comparisons', 10_000);
      await until(async () => {
        const row = (await table()).template;
        return row.projection_txs === 2 && row.template_txs === 2;
      }, async () => `both in both compared blocks: ${JSON.stringify((await table()).template)}`, 10_000);
      const row = (await table()).template;
      assert.equal(row.following, 'projection');
      assert.equal(row.template_only, 0);
      assert.equal(row.projection_only, 0);
      assert.equal(row.agreement, 1);
      assert.equal(row.template_txs, (await templateTxids()).length);
      assert.equal(await gauge('slipstream_block_template_followed'), 0);
      assert.equal(await gauge('slipstream_block_template_agreement_ratio'), 1);
      for (const tx of txs) await blockOf(tx.txid, 0);
      await node.mine(1);
      for (const tx of txs) await confirmed(tx.txid);
    });

    test('a transaction the node deprioritises: the difference shows, and its status follows the node out of block 0', async () => {
      const kept = await node.buildTx({ feeRate: 4 });
      const pushedOut = await node.buildTx({ feeRate: 5 });
      await submit(kept.hex);
      await submit(pushedOut.hex);
      await blockOf(kept.txid, 0);
      await blockOf(pushedOut.txid, 0);

      // Minus one bitcoin of fee, for block building only: the node leaves it out of its template.
      await node.rpc.call('prioritisetransaction', [pushedOut.txid, 0, -100_000_000]);
      // The node reuses its last template for up to 5 s (rpc/mining.cpp).
      await until(async () => {
        const txids = await templateTxids();
        return txids.includes(kept.txid) && !txids.includes(pushedOut.txid);
      }, async () => "the node's own template takes the other and leaves it out", 10_000);

      // Judged once it is older than a reused template could be (TEMPLATE_REUSE_MS).
      await until(async () => (await table()).template.following === 'node_template', async () => `block 0 follows the node: ${JSON.stringify((await table()).template)}`, 20_000);
      const row = (await table()).template;
      assert.equal(row.projection_only, 1, 'one transaction only the projection takes');
      assert.equal(row.template_only, 0);
      assert.ok(row.agreement !== null && row.agreement < 1, `agreement ${row.agreement}`);
      assert.equal(await gauge('slipstream_block_template_followed'), 1);
      const scrape = (await t.app.inject({ method: 'GET', url: '/rest-api/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
      assert.match(scrape, /^slipstream_block_template_difference_transactions\{side="projection_only"\} 1$/m);
      assert.ok((await gauge('slipstream_block_template_agreement_ratio')) < 1);

      const pushed = await status(pushedOut.txid);
      assert.equal(pushed.state, 'in_mempool');
      assert.equal(pushed.transaction.position.block, 1, "after the node's next block");
      const keptStatus = await status(kept.txid);
      assert.equal(keptStatus.transaction.position.block, 0);

      // The node mines its template: the deprioritised one stays behind, as its status said.
      const [hash] = await node.mine(1);
      const mined = (await node.rpc.call<{ tx: string[] }>('getblock', [hash, 1])).tx;
      assert.ok(mined.includes(kept.txid) && !mined.includes(pushedOut.txid));
      await confirmed(kept.txid);
      assert.equal((await status(pushedOut.txid)).state, 'in_mempool');

      // Its fee counted again, the node mines it, and the two agree once more.
      await node.rpc.call('prioritisetransaction', [pushedOut.txid, 0, 100_000_000]);
      await until(async () => (await templateTxids()).includes(pushedOut.txid), async () => 'back in the template', 10_000);
      await node.mine(1);
      await confirmed(pushedOut.txid);
    });
  });
}
