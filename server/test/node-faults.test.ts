import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../src/http/errors.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, withoutReceipt, type TestApp } from './helpers/test-app.ts';

/**
 * A node that is down or too slow: the user gets a clear temporary error,
 * and the transaction is kept (a Failed or Timeout row, with the full hex)
 * so staff can retry it. Nothing is lost.
 */

interface Body {
  status: string;
  message: string;
}

for (const engine of testDatabases()) describe(`node down or too slow (${engine.name})`, () => {
  let node: TestNode;
  let db: TestDatabase;
  let hung: net.Server;
  const sockets = new Set<net.Socket>();

  before(async () => {
    node = await startTestNode();
    await node.ensureUtxos(10);
    db = await engine.open();
    // A peer that accepts connections and never answers: a node wedged under
    // load, which a real node cannot be made to be on demand.
    hung = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hung.close(resolve));
    await db?.close();
    await node?.stop();
  });

  const failure = async (txid: string) =>
    (await db.query<{ status: string; errors: string[]; tx_hex: string }>('SELECT status, errors, tx_hex FROM failed_txs WHERE txid = $1', [txid])).rows[0];

  // It timed out while it was being priced: it never reached the node as a submission, so its row is
  // Failed, not Timeout (a Timeout row says the node may have taken it from the portal: portal_accepted).
  test('a node that does not answer in time leaves a Failed row with the whole transaction', async () => {
    const port = (hung.address() as net.AddressInfo).port;
    const rpc = createRpcClient({ url: `http://127.0.0.1:${port}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 300, maxConcurrency: 2 });
    const t: TestApp = await startTestApp(node, db, { rpc });
    try {
      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.body, { status: 'error', message: NODE_UNAVAILABLE_MESSAGE });
      const row = await failure(tx.txid);
      assert.equal(row?.status, 'Failed');
      assert.equal(row?.tx_hex, tx.hex);
      assert.match(row.errors[0]!, /did not answer/);
    } finally {
      await t.close();
    }
  });

  test('the database failing after the node accepted: success, the record spooled and replayed', async () => {
    const closed = await engine.open();
    await closed.close();
    const recordsDb = { down: true, query: <T>(sql: string, params?: unknown[]) => (recordsDb.down ? closed : db).query<T>(sql, params), exec: (sql: string) => (recordsDb.down ? closed : db).exec(sql) };
    const t = await startTestApp(node, db, { recordsDb: recordsDb as unknown as TestDatabase });
    try {
      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.deepEqual(withoutReceipt(res.body), { status: 'success', message: tx.txid });
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid));
      await t.records.idle();
      const status = async () => (await db.query<{ status: string }>('SELECT status FROM tx_submissions WHERE txid = $1', [tx.txid])).rows.map((r) => r.status);
      // The pending row written during validation stands; marking it accepted waits in the spool.
      assert.deepEqual(await status(), ['pending']);
      recordsDb.down = false;
      // The keeper's own replay (every 50 ms here) may write it before drain() gets the spool's lock:
      // either way the spool ends empty and the row accepted.
      assert.equal((await t.records.drain()).remaining, 0);
      assert.deepEqual(await status(), ['accepted']);
    } finally {
      await t.close();
    }
  });

  test('a stopped node: clear 503s, a Failed row per submission, and parsing still decodes', async () => {
    const t = await startTestApp(node, db);
    try {
      const before = await node.buildTx({ feeRate: 3 });
      const after = await node.buildTx({ feeRate: 3 });
      assert.equal((await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: before.hex })).body.status, 'success');

      await node.stop();
      const res = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: after.hex });
      assert.equal(res.statusCode, 503);
      assert.equal(res.body.message, NODE_UNAVAILABLE_MESSAGE);
      const row = await failure(after.txid);
      assert.equal(row?.status, 'Failed');
      assert.equal(row?.tx_hex, after.hex);
      assert.match(row.errors[0]!, /unreachable/);

      // A second attempt appends to the same row rather than adding one.
      await post(t.app, '/rest-api/submit-tx', { tx_hex: after.hex });
      const again = await db.query<{ n: number; errors: number }>(
        'SELECT count(*)::int AS n, max(cardinality(errors))::int AS errors FROM failed_txs WHERE txid = $1',
        [after.txid],
      );
      assert.deepEqual(again.rows[0], { n: 1, errors: 2 });

      const info = await get<Body>(t.app, '/rest-api/getinfo');
      assert.equal(info.statusCode, 503);
      const parsed = await post<{ transactions: Array<{ txid: string; fee: number | null; message: string }> }>(t.app, '/rest-api/parse-tx', { tx_hexes: [after.hex] });
      assert.equal(parsed.statusCode, 200);
      assert.equal(parsed.body.transactions[0]?.txid, after.txid);
      assert.equal(parsed.body.transactions[0]?.fee, null);
      assert.match(parsed.body.transactions[0].message, /not reachable/);
      const status = await get<Body>(t.app, `/rest-api/status-check?tx_id=${before.txid}`);
      assert.equal(status.statusCode, 503);
    } finally {
      await t.close();
    }
  });
});
