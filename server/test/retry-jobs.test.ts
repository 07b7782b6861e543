import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { queueRetries } from '../src/modules/failed-txs/failed-txs-retry.repository.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { nodeRpc, post, startTestApp } from './helpers/test-app.ts';
import { RpcTransportError, type RpcClient } from '../src/bitcoin/rpc-client.ts';
import { until } from './helpers/until.ts';

/**
 * Staff retries executed by the background jobs on a real node: a
 * submission that failed while the node was down goes through once it is
 * back, keeping the user's original time; one the node refuses again records
 * the new error; and two server instances on one database run each queued
 * retry exactly once.
 */

interface FailedRow {
  id: number;
  status: string;
  errors: string[];
  attempts: number;
  created_at: Date;
}

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(60);
});
after(async () => node?.stop());

const fastJobs = { runner: { pollMs: 100 }, recheckMs: 60_000 };

for (const engine of testDatabases()) {
  describe(`retrying failed submissions (${engine.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(async () => db?.close());

    const failed = async (txid: string) =>
      (await db.query<FailedRow>(`SELECT id::int AS id, status, errors, attempts, created_at FROM failed_txs WHERE txid = $1 ORDER BY id DESC LIMIT 1`, [txid])).rows[0];
    const submission = async (txid: string) =>
      (await db.query<{ status: string; created_at: Date }>(`SELECT status, created_at FROM tx_submissions WHERE txid = $1`, [txid])).rows[0];

    test('a submission that failed while the node was down goes through after it came back, with its original time', async () => {
      // The node prices it, then goes away before it is sent: the signatures
      // are checked against what pricing found, so the failure is kept.
      const plain = nodeRpc(node);
      let down = true;
      const flaky: RpcClient = {
        call: <T>(method: string, params?: unknown[]) =>
          down && method === 'sendrawtransaction' ? Promise.reject(new RpcTransportError(method, 'unreachable', 'The Bitcoin node is unreachable')) : plain.call<T>(method, params),
        batch: (calls) => plain.batch(calls),
        wallet: (name) => plain.wallet(name),
      };
      const t = await startTestApp(node, db, { jobs: fastJobs, rpc: flaky });
      try {
        const tx = await node.buildTx({ feeRate: 5 });
        const res = await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        assert.equal(res.statusCode, 503);
        down = false;
        const row = await failed(tx.txid);
        assert.equal(row?.status, 'Failed');

        assert.deepEqual((await queueRetries(db, [row.id])).queuedIds, [row.id]);
        await until(async () => (await failed(tx.txid))?.status === 'Resolved', async () => JSON.stringify(await failed(tx.txid)));
        const entry = await node.rpc.call<{ wtxid: string }>('getmempoolentry', [tx.txid]);
        assert.ok(entry.wtxid, 'the node has it');
        const recorded = await submission(tx.txid);
        assert.equal(recorded?.status, 'accepted');
        assert.equal(recorded.created_at.getTime(), row.created_at.getTime(), 'the user\'s original time is kept');
        const { rows } = await db.query<{ state: string }>(`SELECT state FROM jobs WHERE key = $1`, [`track:${tx.txid}`]);
        assert.equal(rows.length, 1, 'and it is tracked from now on');
      } finally {
        await t.close();
      }
    });

    test('a retry the node refuses again records the new error and leaves it Failed', async () => {
      const t = await startTestApp(node, db, { jobs: fastJobs });
      try {
        const tx = await node.buildTx({ feeRate: 5 });
        // Its input spent meanwhile by another transaction, mined.
        const conflict = await node.buildReplacement(tx.hex, 10);
        await node.rpc.call('sendrawtransaction', [conflict.hex]);
        await node.mine(1);
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors) VALUES ($1, $2, 'tx', 'Timeout', ARRAY['The Bitcoin node did not answer in time']) RETURNING id::int AS id`,
          [tx.txid, tx.hex],
        );
        await queueRetries(db, [rows[0]!.id]);
        await until(async () => (await failed(tx.txid))?.status === 'Failed', async () => JSON.stringify(await failed(tx.txid)));
        const row = await failed(tx.txid);
        assert.equal(row?.attempts, 2);
        assert.equal(row.errors.length, 2);
        assert.match(row.errors[1]!, /missing-inputs|missingorspent|spent/);
        assert.equal(await submission(tx.txid), undefined, 'nothing recorded as submitted');
      } finally {
        await t.close();
      }
    });

    test('a retry whose record can only be spooled is not Resolved until the spool reaches the database', async () => {
      // The records' database is down (a closed handle, its genuine error): the accepted record goes to the spool.
      const closed = await engine.open();
      await closed.close();
      const recordsDb = { down: true, query: <T>(sql: string, params?: unknown[]) => (recordsDb.down ? closed : db).query<T>(sql, params), exec: (sql: string) => (recordsDb.down ? closed : db).exec(sql) };
      const t = await startTestApp(node, db, { jobs: fastJobs, recordsDb: recordsDb as unknown as TestDatabase });
      try {
        const tx = await node.buildTx({ feeRate: 5 });
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors) VALUES ($1, $2, 'tx', 'Failed', ARRAY['The Bitcoin node is unreachable']) RETURNING id::int AS id`,
          [tx.txid, tx.hex],
        );
        await queueRetries(db, [rows[0]!.id]);
        // The retry has run to its end: the node took the transaction, its record waits in the spool.
        await until(async () => (t.jobs!.runner.runs.retry ?? 0) === 1, async () => 'the retry job started');
        await t.jobs!.runner.idle();
        await t.records.idle();
        assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid), 'the node has it');
        assert.equal((await submission(tx.txid))?.status, 'pending', 'recorded as accepted only in the spool');
        assert.equal((await failed(tx.txid))?.status, 'Retrying', 'not Resolved while its submission is not recorded');

        // The database is back: the spool is written, and the same statement resolves the failure.
        recordsDb.down = false;
        await until(async () => (await submission(tx.txid))?.status === 'accepted', async () => JSON.stringify(await submission(tx.txid)));
        assert.equal((await failed(tx.txid))?.status, 'Resolved');
      } finally {
        await t.close();
        await node.mine(1);
      }
    });

    test('a retry the node holds but the portal does not record (its fee below the rate now) is Failed again, not Resolved', async () => {
      const t = await startTestApp(node, db, { jobs: fastJobs });
      try {
        // It reached the node while the portal's request timed out; at 1 sat/vB it pays less than the portal asks.
        const tx = await node.buildTx({ feeRate: 1 });
        await node.rpc.call('sendrawtransaction', [tx.hex]);
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors) VALUES ($1, $2, 'tx', 'Timeout', ARRAY['The Bitcoin node did not answer in time']) RETURNING id::int AS id`,
          [tx.txid, tx.hex],
        );
        await queueRetries(db, [rows[0]!.id]);
        await until(async () => (await failed(tx.txid))?.status !== 'Retrying', async () => JSON.stringify(await failed(tx.txid)));
        const row = await failed(tx.txid);
        assert.equal(await submission(tx.txid), undefined, 'nothing recorded as submitted');
        assert.equal(row?.status, 'Failed', 'a failure with no submission recorded is not Resolved');
        assert.equal(row.attempts, 2);
        // Retrying, the attempt is no longer one that timed out, so the portal does not count the node's copy as its own
        // (portal-records.repository.ts): the fee is judged, and found too low; had it been counted, nothing is recorded.
        assert.match(row.errors[1]!, /fee is too low|no submission of it was recorded/);
      } finally {
        await t.close();
        await node.mine(1);
      }
    });

    test('two server instances on one database run each queued retry once', async () => {
      const txs = await Promise.all(Array.from({ length: 24 }, () => node.buildTx({ feeRate: 4 })));
      const ids: number[] = [];
      for (const tx of txs) {
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors) VALUES ($1, $2, 'tx', 'Failed', ARRAY['The Bitcoin node is unreachable']) RETURNING id::int AS id`,
          [tx.txid, tx.hex],
        );
        ids.push(rows[0]!.id);
      }
      const peer = await db.openPeer();
      const first = await startTestApp(node, db, { jobs: { ...fastJobs, runner: { pollMs: 50, concurrency: 3 } } });
      const second = await startTestApp(node, peer, { jobs: { ...fastJobs, runner: { pollMs: 50, concurrency: 3 } } });
      try {
        await queueRetries(db, ids);
        const resolved = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM failed_txs WHERE id = ANY($1::bigint[]) AND status = 'Resolved'`, [ids])).rows[0]!.n;
        await until(async () => (await resolved()) === ids.length, async () => `${await resolved()} of ${ids.length} resolved`, 60_000);
        await Promise.all([first.jobs!.runner.idle(), second.jobs!.runner.idle()]);
        const runs = (first.jobs!.runner.runs.retry ?? 0) + (second.jobs!.runner.runs.retry ?? 0);
        assert.equal(runs, ids.length, `each retry ran once (first ${first.jobs!.runner.runs.retry ?? 0}, second ${second.jobs!.runner.runs.retry ?? 0})`);
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tx_submissions WHERE txid = ANY($1::text[]) AND status = 'accepted'`, [txs.map((x) => x.txid)]);
        assert.equal(rows[0]?.n, txs.length);
        const inMempool = await node.rpc.call<string[]>('getrawmempool');
        for (const tx of txs) assert.ok(inMempool.includes(tx.txid), `${tx.txid} reached the node`);
      } finally {
        await second.close();
        await first.close();
        await node.mine(1);
      }
    });
  });
}
