import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { buildSmallTxs, type SmallTx } from '../../bench/small-txs.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';

/**
 * Faults, nothing lost (docs/architecture.md#faults-nothing-lost): "the server killed with SIGKILL at random
 * moments during submissions, 50 rounds: every submission the API
 * acknowledged is recorded and reaches the node exactly once."
 *
 * The real server (src/cli/start.ts) runs in a child process on a Postgres
 * database the test shares, with the product's defaults. Each round starts
 * it, sends submissions from a few clients at once, each on its own
 * connection, and kills it (SIGKILL: no shutdown hook runs) after a random
 * delay. A client that got no answer does what a user would: it sends the
 * same transaction again later, so resubmissions of transactions the node
 * may already hold, under a pending row a dead server wrote, are part of the
 * run.
 *
 * Then one last server, not killed, takes the rest and settles what the
 * dead ones left 'pending' (the block scan, after PENDING_SETTLE_MS, set
 * short for it). The test checks that the kills landed mid-flight: requests
 * cut off without an answer, and transactions the node had taken whose row
 * was not yet 'accepted' when the server died.
 */

const ROUNDS = 50;
const CLIENTS = 3;
/** The kill comes this long at most after the server is ready. */
const MAX_KILL_DELAY_MS = 300;
const TX_POOL = 450;
/** The last server settles pending rows this old; its RPC timeout is lowered to allow it (at least twice the timeout). */
const SETTLE_AFTER_MS = 5_000;
const SETTLE_ENV = { BITCOIN_RPC_TIMEOUT_MS: '2500', PENDING_SETTLE_MS: String(SETTLE_AFTER_MS) };

type Outcome = { kind: 'answer'; status: number; body: string } | { kind: 'cut' } | { kind: 'refused' };

/** One POST on a connection of its own: the server's death shows as this request's error, not a pooled socket's. */
function submit(baseUrl: string, tx: SmallTx): Promise<Outcome> {
  const body = JSON.stringify({ tx_hex: tx.hex });
  return new Promise((resolve) => {
    const req = request(`${baseUrl}/rest-api/submit-tx`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ kind: 'answer', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      // Headers came, the rest did not: no answer either.
      res.on('error', () => resolve({ kind: 'cut' }));
      res.on('aborted', () => resolve({ kind: 'cut' }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'cut' }));
    req.end(body);
  });
}

const acknowledged = (outcome: Outcome, tx: SmallTx) =>
  outcome.kind === 'answer' && outcome.status === 200 && (JSON.parse(outcome.body) as { status?: string; message?: string }).message === tx.txid;

const postgres = testDatabases().find((e) => e.name === 'postgres');

describe('the server killed with SIGKILL at random moments during submissions', { skip: postgres ? false : 'needs TEST_DATABASE_URL (a Postgres server the test and the server process share)' }, () => {
  let node: TestNode;
  let db: TestDatabase;
  let txs: SmallTx[];
  let server: ServerProcess | undefined;

  before(async () => {
    node = await startTestNode();
    txs = await buildSmallTxs(node, TX_POOL, 3);
    db = await postgres!.open();
  });
  after(async () => {
    await server?.kill();
    await db?.close();
    await node?.stop();
  });

  // Fifty server starts take a minute or two, three on a busy machine; a scan a killed server held waits out its lease.
  test(`${ROUNDS} rounds: every acknowledged submission recorded, settled, and at the node exactly once`, { timeout: 10 * 60_000 }, async (t) => {
    const seed = Date.now() >>> 0;
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);
    const fresh = [...txs];
    /** Sent without an answer (or refused, or a 503): sent again later, as a user would. */
    const again: SmallTx[] = [];
    const acked = new Map<string, SmallTx>();
    const odd: Array<{ txid: string; status: number; body: string }> = [];
    const counts = { sent: 0, cut: 0, refused: 0, answered: 0, resent: 0, takenNotRecorded: 0, ackedStillPending: 0 };
    const startMs: number[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      const started = Date.now();
      server = await startServerProcess({ node, databaseUrl: db.url! });
      startMs.push(Date.now() - started);
      const target = server;
      let killed = false;
      const sentThisRound: SmallTx[] = [];
      const ackedThisRound = new Set<string>();
      const client = async () => {
        while (!killed) {
          const retry = again.shift();
          const tx = retry ?? fresh.shift();
          if (!tx) return;
          if (retry) counts.resent++;
          counts.sent++;
          sentThisRound.push(tx);
          const outcome = await submit(target.baseUrl, tx);
          if (outcome.kind === 'cut') counts.cut++;
          if (outcome.kind === 'refused') counts.refused++;
          if (outcome.kind === 'answer') counts.answered++;
          if (acknowledged(outcome, tx)) {
            acked.set(tx.txid, tx);
            ackedThisRound.add(tx.txid);
          } else {
            if (outcome.kind === 'answer' && outcome.status !== 503) odd.push({ txid: tx.txid, status: outcome.status, body: outcome.body });
            again.push(tx);
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      await new Promise((resolve) => setTimeout(resolve, random() * MAX_KILL_DELAY_MS));
      killed = true;
      await target.kill('SIGKILL');
      server = undefined;
      await Promise.all(clients);

      // Where the kill left this round's transactions: taken by the node, but their row not (yet) 'accepted'.
      const txids = [...new Set(sentThisRound.map((tx) => tx.txid))];
      const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
      const { rows } = await db.query<{ txid: string; status: string }>(`SELECT txid, status FROM tx_submissions WHERE txid = ANY($1::text[])`, [txids]);
      const status = new Map(rows.map((r) => [r.txid, r.status]));
      for (const txid of txids) {
        if (mempool.has(txid) && status.get(txid) !== 'accepted') counts.takenNotRecorded++;
        if (ackedThisRound.has(txid) && status.get(txid) === 'pending') counts.ackedStillPending++;
      }
    }
    t.diagnostic(`server start ${Math.min(...startMs)}-${Math.max(...startMs)} ms (median ${startMs.sort((a, b) => a - b)[Math.floor(startMs.length / 2)]})`);
    t.diagnostic(JSON.stringify(counts));
    assert.deepEqual(odd, [], 'answers other than success or a temporary 503');
    // The kills landed while requests were under way, and between the node's acceptance and the write that records it.
    assert.ok(counts.cut > 0, 'some requests were cut off without an answer');
    assert.ok(counts.takenNotRecorded > 0, 'some kills came after the node took a transaction and before its row said so');

    // The last server is not killed: it takes what is left, and settles the rows the dead ones left pending.
    // Started once the last of those is old enough, its first block scan (at start) settles them all.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_AFTER_MS + 500));
    server = await startServerProcess({ node, databaseUrl: db.url!, env: SETTLE_ENV });
    for (const tx of again.splice(0)) {
      const outcome = await submit(server.baseUrl, tx);
      assert.ok(acknowledged(outcome, tx), `${tx.txid} after the kills: ${JSON.stringify(outcome)}`);
      acked.set(tx.txid, tx);
    }
    const used = txs.slice(0, txs.length - fresh.length).map((tx) => tx.txid);
    assert.equal(acked.size, used.length, 'every transaction sent was acknowledged in the end');
    // A scan held by a killed server waits out its lease (60 s) before the live one takes it.
    const pending = async () => (await db.query<{ txid: string }>(`SELECT txid FROM tx_submissions WHERE status = 'pending'`)).rows.map((r) => r.txid);
    await until(async () => (await pending()).length === 0, async () => `still pending: ${(await pending()).join(', ')}`, 90_000);

    // Recorded once each, as accepted; nothing left failed; each tracked by one open job.
    const { rows: recorded } = await db.query<{ txid: string; status: string; rows: number }>(
      `SELECT txid, min(status) AS status, count(*)::int AS rows FROM tx_submissions GROUP BY txid`,
    );
    assert.deepEqual(recorded.filter((r) => r.rows !== 1), [], 'one row per transaction');
    assert.deepEqual(recorded.map((r) => r.txid).sort(), [...used].sort(), 'a row for every transaction sent, and no other');
    assert.deepEqual(recorded.filter((r) => r.status !== 'accepted'), [], 'every row accepted (none mined yet)');
    const { rows: openFailures } = await db.query(`SELECT txid, status FROM failed_txs WHERE status IN ('Failed', 'Timeout', 'Retrying')`);
    assert.deepEqual(openFailures, [], 'no failure left open');
    const { rows: tracking } = await db.query<{ n: number }>(`SELECT count(DISTINCT key)::int AS n FROM jobs WHERE kind = 'track' AND state IN ('queued', 'running') AND key = ANY($1::text[])`, [used.map((txid) => `track:${txid}`)]);
    assert.equal(tracking[0]!.n, used.length, 'every one tracked');

    // At the node exactly once: each in its mempool (nothing was mined), each once.
    const mempool = await node.rpc.call<string[]>('getrawmempool');
    assert.equal(new Set(mempool).size, mempool.length);
    const inMempool = new Set(mempool);
    assert.deepEqual(used.filter((txid) => !inMempool.has(txid)), [], 'every acknowledged submission is at the node');
    const height = await node.rpc.call<number>('getblockcount');
    const [block] = await node.mine(1);
    const mined = new Set((await node.rpc.call<{ tx: string[] }>('getblock', [block, 1])).tx);
    assert.deepEqual(used.filter((txid) => !mined.has(txid)), [], 'all mined in the next block, once');
    assert.equal(await node.rpc.call<number>('getblockcount'), height + 1);
  });
});
