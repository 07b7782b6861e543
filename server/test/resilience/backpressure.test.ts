import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildSmallTxs, type SmallTx } from '../../bench/small-txs.ts';
import { createRpcClient } from '../../src/bitcoin/rpc-client.ts';
import { parseConfig } from '../../src/config/config.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';

/**
 * Backpressure (docs/architecture.md#faults-nothing-lost: "500 concurrent submits never push the node past its
 * RPC work queue (no 503 from the node); every one is answered or queued
 * durably").
 *
 * The node runs with a work queue of 16 and 2 RPC threads, so 18 requests
 * in flight is all it takes before it answers HTTP 503 "Work queue depth
 * exceeded" (docs/architecture.md#the-real-bitcoin-node-in-dev-and-tests). The portal talks to it through one RPC client with
 * the product's default settings (BITCOIN_RPC_CONCURRENCY, read from the
 * configuration schema, not restated here), as src/runtime.ts wires it, and
 * 500 distinct valid transactions arrive at once over real HTTP with the rate
 * limit out of the way, so every one of them reaches the node.
 *
 * The node's own word is the meter: it logs every request it turns away
 * ("Request rejected because http work queue depth exceeded") in debug.log.
 * The RPC client retries a 503 silently, so the app's answers alone could
 * not show that the node was pushed past its queue; the log can. A first
 * test proves the meter reads: a client with no bound gets 503s from this
 * very node, and the log counts exactly those.
 */

const CONCURRENT = 500;
const WORK_QUEUE = 16;
const RPC_THREADS = 2;
/** Clears the portal's minimum on an empty regtest mempool (as the benchmark's submissions do). */
const FEE_RATE = 3;
const REJECTED = /work queue depth exceeded/gi;

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
/** The product's defaults: the configuration with nothing set. */
const defaults = parseConfig({}, { repoRoot: REPO_ROOT });

interface Answer {
  txid: string;
  status: number;
  body: { status?: string; message?: string };
  ms: number;
}

/** One POST over its own connection: 500 of them are 500 clients at once. */
function postJson(agent: Agent, url: string, value: unknown): Promise<{ status: number; text: string }> {
  const body = Buffer.from(JSON.stringify(value));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('backpressure: 500 concurrent submits on a node with a small RPC work queue', () => {
  let node: TestNode;
  let txs: SmallTx[];
  const engines = testDatabases();

  /** Requests the node has turned away so far, by its own log. */
  const rejectedByNode = async (): Promise<number> => (await readFile(node.debugLogFile, 'utf8')).match(REJECTED)?.length ?? 0;

  before(async () => {
    // -unsafesqlitesync: the wallet builds a thousand transactions in seconds rather than a minute.
    node = await startTestNode({ extraArgs: [`-rpcworkqueue=${WORK_QUEUE}`, `-rpcthreads=${RPC_THREADS}`, '-unsafesqlitesync=1'] });
    txs = await buildSmallTxs(node, CONCURRENT * engines.length, FEE_RATE);
  });

  after(async () => {
    await node?.stop();
  });

  test('the meter reads: a client that does not bound its concurrency gets 503s from this node, and its log counts them', async () => {
    const before = await rejectedByNode();
    const cookie = (await readFile(node.cookieFile, 'utf8')).trim();
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const flood = 100;
    try {
      // Each call holds an RPC thread for 300 ms, so the queue fills for certain.
      const statuses = await Promise.all(
        Array.from({ length: flood }, () =>
          new Promise<number>((resolve, reject) => {
            const body = JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'waitfornewblock', params: [300] });
            const req = request(node.rpcUrl, {
              method: 'POST',
              agent,
              headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(cookie).toString('base64')}`, 'content-length': Buffer.byteLength(body) },
            }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            });
            req.on('error', reject);
            req.end(body);
          })),
      );
      const refused = statuses.filter((s) => s === 503).length;
      // At most RPC_THREADS running plus WORK_QUEUE waiting; the node's default queue would take far more.
      assert.ok(refused >= flood - RPC_THREADS - WORK_QUEUE, `only ${refused} of ${flood} refused: is the node's work queue really ${WORK_QUEUE}? statuses ${[...new Set(statuses)].join(',')}`);
      assert.deepEqual(new Set(statuses), new Set([200, 503]));
      assert.equal((await rejectedByNode()) - before, refused, "the node's log counts each 503 it answered");
    } finally {
      agent.destroy();
    }
  });

  for (const [index, engine] of engines.entries()) {
    test(`${CONCURRENT} concurrent submit-tx are all answered, none past the node's work queue, every success in the mempool and recorded (${engine.name})`, async (t) => {
      const mine = txs.slice(index * CONCURRENT, (index + 1) * CONCURRENT);
      let db: TestDatabase | undefined;
      let app: TestApp | undefined;
      const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
      try {
        db = await engine.open();
        // One RPC client for the app and its mempool engine, as src/runtime.ts builds it.
        const rpc = createRpcClient({ url: node.rpcUrl, auth: { kind: 'cookie', cookieFile: node.cookieFile }, timeoutMs: defaults.rpc.timeoutMs, maxConcurrency: defaults.rpc.concurrency });
        app = await startTestApp(node, db, { rpc, rateLimitMax: 1_000_000, mempool: { consistency: 'latest' } });
        await app.app.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}/rest-api/submit-tx`;
        const rejectedBefore = await rejectedByNode();

        const started = performance.now();
        const answers: Answer[] = await Promise.all(
          mine.map(async (tx) => {
            const sent = performance.now();
            const res = await postJson(agent, url, { tx_hex: tx.hex });
            let body: Answer['body'];
            try {
              body = JSON.parse(res.text) as Answer['body'];
            } catch {
              body = { message: res.text };
            }
            return { txid: tx.txid, status: res.status, body, ms: performance.now() - sent };
          }),
        );
        const wallMs = performance.now() - started;
        await app.records.idle();
        const rejectedDuring = (await rejectedByNode()) - rejectedBefore;

        const byStatus = new Map<number, number>();
        for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
        const latencies = answers.map((a) => a.ms).sort((a, b) => a - b);
        t.diagnostic(`${CONCURRENT} submits in ${wallMs.toFixed(0)} ms (RPC concurrency ${defaults.rpc.concurrency}); answers ${JSON.stringify(Object.fromEntries(byStatus))}; ` +
          `latency p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms; node work-queue rejections ${rejectedDuring}`);

        // Never past the node's queue: not in the answers, not in the node's log.
        assert.equal(rejectedDuring, 0, `the node turned away ${rejectedDuring} RPC requests (HTTP 503 "Work queue depth exceeded")`);
        for (const a of answers) assert.doesNotMatch(a.body.message ?? '', /work queue/i, `${a.txid}: the node's 503 reached the user`);

        // Every one answered: a success naming the transaction, or a documented error with a message.
        for (const a of answers) {
          if (a.status === 200) {
            assert.deepEqual({ status: a.body.status, message: a.body.message }, { status: 'success', message: a.txid });
          } else {
            assert.ok([429, 503].includes(a.status), `${a.txid}: HTTP ${a.status} ${JSON.stringify(a.body)}`);
            assert.equal(a.body.status, 'error');
            assert.ok((a.body.message ?? '').length > 0, `${a.txid}: HTTP ${a.status} without a message`);
          }
        }
        // Queued durably: a transaction the node could not take is kept for staff to retry.
        const unavailable = answers.filter((a) => a.status === 503).map((a) => a.txid);
        for (const a of answers.filter((x) => x.status === 503)) assert.equal(a.body.message, NODE_UNAVAILABLE_MESSAGE);
        const { rows: kept } = await db.query<{ txid: string }>('SELECT txid FROM failed_txs WHERE txid = ANY($1::text[])', [unavailable]);
        assert.deepEqual(new Set(kept.map((r) => r.txid)), new Set(unavailable), 'every 503 left a failed_txs row to retry');
        // With a healthy node and no rate limit in the way, overload waits its turn rather than failing.
        assert.equal(byStatus.get(200), CONCURRENT, `all ${CONCURRENT} accepted; answers ${JSON.stringify(Object.fromEntries(byStatus))}`);

        // Every success is in the node's mempool and recorded as accepted.
        const accepted = answers.filter((a) => a.status === 200).map((a) => a.txid);
        const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
        assert.deepEqual(accepted.filter((txid) => !mempool.has(txid)), [], 'accepted but not in the mempool');
        const { rows } = await db.query<{ txid: string; status: string }>('SELECT txid, status FROM tx_submissions WHERE txid = ANY($1::text[])', [accepted]);
        const recorded = new Map(rows.map((r) => [r.txid, r.status]));
        assert.deepEqual(accepted.filter((txid) => recorded.get(txid) !== 'accepted'), [], 'accepted but not recorded as accepted in tx_submissions');
        assert.equal(rows.length, accepted.length, 'one row per accepted transaction');
      } finally {
        agent.destroy();
        await app?.close();
        await db?.close();
      }
      // The next engine starts on an empty mempool.
      await node.mine();
    });
  }
});
