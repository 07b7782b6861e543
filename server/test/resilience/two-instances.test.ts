import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildSmallTxs, type SmallTx } from '../../bench/small-txs.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { post, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';

/**
 * Faults, nothing lost (docs/architecture.md#faults-nothing-lost): "two server instances on one Postgres: jobs
 * run once, audit rows are not duplicated."
 *
 * Two apps, each with its own connection pool (on PGlite, which has one
 * connection, the same database twice) and its own background jobs, as two
 * servers behind a load balancer. Requests spread over both land in the
 * audit trail once each. Submissions spread over both are tracked by jobs
 * both instances compete for; when the node loses its mempool, each
 * transaction is handed back exactly once (two instances running one job at
 * the same time would hand it back twice). Retries by two instances are
 * covered in test/retry-jobs.test.ts.
 */

const AUDITED_REQUESTS = 60;
const TRACKED = 12;

const engines = testDatabases();

describe('two server instances on one database', () => {
  let node: TestNode;
  let pool: SmallTx[];

  before(async () => {
    node = await startTestNode();
    pool = await buildSmallTxs(node, TRACKED * engines.length, 3);
  });
  after(async () => node?.stop());

  for (const engine of engines) {
    describe(engine.name, () => {
      let db: TestDatabase;
      let apps: [TestApp, TestApp];
      before(async () => {
        db = await engine.open();
        const peer = await db.openPeer();
        const jobs = { runner: { pollMs: 100 } };
        apps = [await startTestApp(node, db, { jobs }), await startTestApp(node, peer, { jobs })];
      });
      after(async () => {
        for (const app of apps ?? []) await app.close();
        await db?.close();
      });

      test(`${AUDITED_REQUESTS} requests spread over both, at once: ${AUDITED_REQUESTS} audit rows, each request once`, async () => {
        const ids = Array.from({ length: AUDITED_REQUESTS }, () => randomBytes(32).toString('hex'));
        const answers = await Promise.all(ids.map((id, i) => apps[i % 2]!.app.inject({ method: 'GET', url: `/rest-api/status-check?tx_id=${id}` })));
        assert.ok(answers.every((a) => a.statusCode < 500), answers.map((a) => a.statusCode).join(' '));
        await Promise.all(apps.map((app) => app.audit.flush()));
        const { rows } = await db.query<{ request_payload: string }>(`SELECT request_payload FROM audit_logs WHERE endpoint = '/rest-api/status-check'`);
        const seen = rows.map((r) => /[0-9a-f]{64}/.exec(r.request_payload)?.[0]);
        assert.equal(rows.length, AUDITED_REQUESTS);
        assert.deepEqual([...seen].sort(), [...ids].sort(), 'each request once');
      });

      test('tracking jobs run in one place at a time: each dropped submission handed back exactly once', async (t) => {
        const txs = pool.splice(0, TRACKED);
        for (const [i, tx] of txs.entries()) {
          const res = await post(apps[i % 2]!.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
          assert.equal(res.statusCode, 200, JSON.stringify(res.body));
        }
        await Promise.all(apps.map((app) => app.records.idle()));
        const txids = txs.map((tx) => tx.txid);
        const rows = async () =>
          (await db.query<{ txid: string; rebroadcasts: number }>(`SELECT txid, rebroadcasts FROM tx_submissions WHERE txid = ANY($1::text[]) ORDER BY txid`, [txids])).rows;
        assert.equal((await rows()).length, TRACKED);

        // Without its mempool, and its wallet told not to put them back: only tracking brings them back.
        await node.restart({ dropMempool: true, extraArgs: ['-walletbroadcast=0'] });
        try {
          const missing = async () => {
            const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
            return txids.filter((txid) => !mempool.has(txid));
          };
          await until(async () => (await missing()).length === 0, async () => `not back: ${(await missing()).join(', ')}`, 60_000);
          await until(async () => (await rows()).every((r) => r.rebroadcasts >= 1), async () => JSON.stringify(await rows()), 30_000);
          // Both instances keep looking (events from both mirrors wake the jobs) until there is nothing left to do.
          await Promise.all(apps.map((app) => app.jobs!.runner.idle()));
          assert.deepEqual((await rows()).filter((r) => r.rebroadcasts !== 1), [], 'handed back once each');
          const runs = apps.map((app) => app.jobs!.runner.runs.track ?? 0);
          t.diagnostic(`tracking runs: ${runs.join(' and ')}`);
          assert.ok(runs.every((n) => n > 0), `both instances ran tracking jobs (${runs.join(' and ')} runs)`);
        } finally {
          await node.restart();
        }
      });
    });
  }
});
