import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SynchroTableResponse } from '../src/modules/synchro-table/synchro-table.schemas.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';

/**
 * GET /rest-api/synchro/table (docs/behaviour.md#synchro-table: behind the
 * blank page /synchro/table): what the pool has synchronised from its node,
 * the mempool mirror and the block tracker, for signed-in staff only. The
 * node is the oracle for the figures.
 */

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(5);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`the synchro table (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('any signed-in staff member reads the mirror and the tracker as the node has them', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      await node.rpc.call('sendrawtransaction', [tx.hex]);
      const res = await t.call<SynchroTableResponse>('GET', '/rest-api/synchro/table', { as: 'viewer' });
      assert.equal(res.statusCode, 200);
      const info = await node.rpc.call<{ size: number; bytes: number }>('getmempoolinfo');
      assert.equal(res.body.mempool.tx_count, info.size);
      assert.equal(res.body.mempool.vsize, info.bytes);
      assert.equal(res.body.mempool.last_error, null);
      assert.ok(res.body.mempool.last_contact_at !== null);
      assert.equal(res.body.blocks.tip_height, await node.rpc.call<number>('getblockcount'));
      assert.equal(res.body.blocks.tip_hash, await node.rpc.call<string>('getbestblockhash'));
      assert.equal(res.body.blocks.recent[0]?.hash, res.body.blocks.tip_hash);
      assert.equal(res.body.blocks.last_24h_odds, 100, 'regtest: the project\'s own node mined every block');
      assert.ok(Math.abs(Date.parse(res.body.generated_at) - Date.now()) < 60_000);
      await node.mine(1);
    });

    test('nobody else: without a staff token it answers 401 and tells nothing', async () => {
      const res = await t.call<{ status: string; mempool?: unknown }>('GET', '/rest-api/synchro/table', { as: 'nobody' });
      assert.equal(res.statusCode, 401);
      assert.equal(res.body.mempool, undefined);
    });
  });
}
