import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { NODE_CALLS, PUBLIC_ROUTE_NODE_CALLS } from '../src/http/node-call-budget.ts';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * What one anonymous read costs the pool's node (docs/architecture.md, code
 * conventions 13), counted per request on every public read: the node calls
 * the services make (counted beside the app, test-app's serviceRpcCalls)
 * against the budgets of http/node-call-budget.ts, which the app's own meter
 * enforces (and reports: the two counts must agree, so the route did run
 * inside its budget). A txid the portal never recorded costs nothing unless
 * a block the portal follows holds it, then one call that reads that block;
 * gettxoutproof (a UTXO-set walk under cs_main) is never called.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(12);
});
after(async () => node?.stop());

interface Counted<T> {
  statusCode: number;
  body: T;
  calls: string[];
}

const randomTxid = () => randomBytes(32).toString('hex');

for (const engine of testDatabases()) {
  describe(`node calls per public read (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    const calls: string[] = [];
    const observed: Array<{ route: string; calls: string[] }> = [];

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db, { serviceRpcCalls: calls, observeNodeCalls: (route, made) => observed.push({ route, calls: [...made] }) });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    /** GET `url`, and the node calls it made: within its route's budget, as the meter counted them, never gettxoutproof. */
    async function read<T = StatusResponse & { message?: string; is_success?: boolean }>(route: string, url: string): Promise<Counted<T>> {
      calls.length = 0;
      observed.length = 0;
      const res = await t.app.inject({ method: 'GET', url });
      const made = [...calls];
      assert.deepEqual(observed, [{ route, calls: made }], `${url}: metered as ${route}, the meter's count the node's`);
      const budget = PUBLIC_ROUTE_NODE_CALLS[route];
      assert.ok(budget !== undefined && made.length <= budget, `${url}: ${made.length} node calls (${made.join(', ')}), budget ${budget}`);
      assert.equal(made.includes('gettxoutproof'), false, `${url}: gettxoutproof`);
      return { statusCode: res.statusCode, body: res.headers['content-type']?.toString().startsWith('text/plain') ? (res.body as T) : res.json<T>(), calls: made };
    }
    const statusCheck = (txid: string) => read('GET /rest-api/status-check', `/rest-api/status-check?tx_id=${txid}`);
    const apiStatus = (txid: string) => read('GET /api/transactions/status', `/api/transactions/status?tx_id=${txid}`);
    /** The three explorer reads, one after the other (the counts are per request). */
    const explorer = async (txid: string) => [
      await read('GET /api/tx/:txid', `/api/tx/${txid}`),
      await read('GET /api/tx/:txid/status', `/api/tx/${txid}/status`),
      await read('GET /api/tx/:txid/hex', `/api/tx/${txid}/hex`),
    ];

    test('a txid the portal never recorded and no followed block holds: 404 on every read, with no node call', async () => {
      const inMempool = await node.buildTx({ feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [inMempool.hex]);
      for (const txid of [randomTxid(), randomTxid(), inMempool.txid]) {
        for (const answer of [await statusCheck(txid), await apiStatus(txid), ...(await explorer(txid))]) {
          assert.equal(answer.statusCode, 404, JSON.stringify(answer.body));
          assert.deepEqual(answer.calls, [], `${txid}: no node call`);
        }
      }
      await node.mine(1);
    });

    test('mined in a block the portal followed, never submitted here: found, with exactly one node call that reads that block', async () => {
      const tx = await node.buildTx({ feeRate: 4 });
      const { hash } = await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [tx.hex]]);
      const header = await node.rpc.call<{ height: number; time: number }>('getblockheader', [hash]);
      const mined = await statusCheck(tx.txid);
      assert.equal(mined.statusCode, 200, JSON.stringify(mined.body));
      assert.equal(mined.body.state, 'confirmed');
      assert.deepEqual(mined.body.transaction.status, { confirmed: true, block_hash: hash, block_height: header.height, block_time: header.time });
      assert.equal(mined.body.transaction.fee, tx.fee);
      assert.deepEqual(mined.calls, ['getrawtransaction']);
      assert.equal(mined.calls.length, NODE_CALLS.unrecordedMined);
      const api = await apiStatus(tx.txid);
      assert.deepEqual([api.statusCode, api.calls], [200, ['getrawtransaction']]);
      // The explorer reads serve the portal's own transactions only: not found, from the database alone.
      for (const answer of await explorer(tx.txid)) assert.deepEqual([answer.statusCode, answer.calls], [404, []]);
    });

    test('a block a reorganisation orphaned: its transactions are no longer reported in it; found again in the block that takes them', async () => {
      const tx = await node.buildTx({ feeRate: 4 });
      const { hash: orphan } = await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [tx.hex]]);
      assert.equal((await statusCheck(tx.txid)).body.transaction.status.block_hash, orphan);
      // Another branch, longer, without it: the node drops the block, the transaction goes back to its mempool.
      await node.rpc.call('invalidateblock', [orphan]);
      await node.rpc.call('generateblock', [await node.address('bech32m'), []]);
      await node.rpc.call('generateblock', [await node.address('bech32m'), []]);
      const gone = await statusCheck(tx.txid);
      assert.deepEqual([gone.statusCode, gone.calls], [404, []], 'in no followed block (and the mempool is private)');
      const { hash: taken } = await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [tx.txid]]);
      const found = await statusCheck(tx.txid);
      assert.deepEqual([found.statusCode, found.body.transaction.status.block_hash, found.calls], [200, taken, ['getrawtransaction']]);
      await node.rpc.call('reconsiderblock', [orphan]);
    });

    /** POST `url` (the receipt proof), and the node calls it made, as read() counts them (gettxoutproof is this route's one call). */
    async function proofOf(receipt: string): Promise<Counted<{ message?: string; block_hash?: string; header?: string }>> {
      const route = 'POST /api/receipts/proof';
      calls.length = 0;
      observed.length = 0;
      const res = await t.app.inject({ method: 'POST', url: '/api/receipts/proof', payload: { receipt } });
      const made = [...calls];
      assert.deepEqual(observed, [{ route, calls: made }], 'metered as its route, the meter\'s count the node\'s');
      assert.ok(made.length <= PUBLIC_ROUTE_NODE_CALLS[route]!, `${made.length} node calls (${made.join(', ')})`);
      return { statusCode: res.statusCode, body: res.json(), calls: made };
    }

    test('a receipt\'s proof: no node call for an altered receipt or one not yet mined; once mined, one gettxoutproof with its block\'s hash. The keys: none', async () => {
      const tx = await node.buildTx({ feeRate: 6 });
      const { receipt } = (await post<{ receipt: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).body;
      const [head, body, signature] = receipt.split('.') as [string, string, string];
      const forged = `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), fee: 1 })).toString('base64url')}.${signature}`;
      for (const [text, status] of [[forged, 400], ['not.a.receipt', 400], [receipt, 404]] as const) {
        const answer = await proofOf(text);
        assert.deepEqual([answer.statusCode, answer.calls], [status, []], answer.body.message);
      }
      const [hash] = await node.mine(1);
      const mined = await proofOf(receipt);
      assert.deepEqual([mined.statusCode, mined.calls, mined.body.block_hash], [200, ['gettxoutproof'], hash]);
      assert.equal(mined.calls.length, NODE_CALLS.receiptProof);
      calls.length = 0;
      observed.length = 0;
      assert.equal((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode, 200);
      assert.deepEqual([calls, observed], [[], [{ route: 'GET /.well-known/jwks.json', calls: [] }]]);
    });

    test('the portal\'s own, waiting, then mined: every read within its budget, never gettxoutproof', async () => {
      const tx = await node.buildTx({ feeRate: 6 });
      const submitted = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(submitted.body.status, 'success', submitted.body.message);
      await t.records.idle();
      const costs: Record<string, number> = {};
      for (const phase of ['waiting', 'mined']) {
        const answers = [await statusCheck(tx.txid), await apiStatus(tx.txid), ...(await explorer(tx.txid))];
        for (const answer of answers) assert.equal(answer.statusCode, 200, JSON.stringify(answer.body));
        assert.equal(answers[0]!.body.state, phase === 'waiting' ? 'in_mempool' : 'confirmed');
        assert.deepEqual(answers[4]!.calls, [], 'the hex: the portal\'s copy alone');
        costs[phase] = answers[0]!.calls.length;
        if (phase === 'waiting') await node.mine(1);
      }
      assert.ok(costs.mined! <= 5, `mined: ${costs.mined} calls`);
    });
  });
}
