import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { buildSmallTxs, type SmallTx } from '../../bench/small-txs.ts';
import { DEFAULT_CONNECT_TIMEOUT_MS, isDatabaseUnavailable, openPostgres } from '../../src/db/database.ts';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.ts';
import type { HealthResponse } from '../../src/modules/health/health.schemas.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { until } from '../helpers/until.ts';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from './helpers/private-postgres.ts';

/**
 * Faults, nothing lost (docs/architecture.md#faults-nothing-lost): "Postgres stopped for 20 s under load:
 * requests fail fast with 503 rather than hang, the background workers
 * survive, queued work drains after."
 *
 * The real server (src/cli/start.ts) in a child process, on a Postgres
 * server of the test's own (the machine's shared one is never stopped),
 * which is stopped (pg_ctl stop -m fast) for 20 s while clients keep
 * submitting, checking a status, asking for the minimum fee and the health.
 *
 * - Every answer during the outage is a success or a 503, and comes within
 *   twice the database adapter's connection timeout: nothing waits for a
 *   database that is not there.
 * - Submissions that were being priced when the database went (the settings
 *   were read just before) are taken by the node and answered 200; their
 *   records go to the spool file on disk, and are replayed into the database
 *   once it is back.
 * - The process lives through it, and its background work resumes: the
 *   replayed submissions are tracked, a block mined after the outage is
 *   matched by the block scan, and the audit rows queued during the outage
 *   are written.
 *
 * A stopped server refuses connections, so nothing waits on it. One that
 * stops answering without closing them (a frozen host, a network partition)
 * is the harder case: the last test freezes it (SIGSTOP) and checks that the
 * database adapter's timeouts turn that into failures too, and that the
 * health endpoint says so within its own 1-second limit.
 */

const OUTAGE_MS = 20_000;
const CLIENTS = 4;
/** Submissions sent as the database goes down, and right after. */
const BURST = 8;
const TX_POOL = 140;
/** The settings cache of the submission path (settings.store.ts): after this long without a read, the next one goes to the database. */
const SETTINGS_TTL_MS = 2_000;

interface Exchange {
  label: string;
  startedAt: number;
  ms: number;
  status: number;
  body: string;
}

function exchange(baseUrl: string, label: string, method: 'GET' | 'POST', url: string, body?: object): Promise<Exchange> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const startedAt = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${url}`, { method, agent: false, headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ label, startedAt, ms: Date.now() - startedAt, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // Which request failed, not only how: a bare "read ECONNRESET" names neither.
    req.on('error', (error) => reject(new Error(`${label}: ${error.message}`, { cause: error })));
    req.end(payload);
  });
}

/**
 * These tests read the health checks as a monitor without a staff token: the
 * public mempool view opens them to it. Its last value stands while the
 * database cannot be read, so the checks stay visible through the outage.
 */
async function showHealthChecks(db: pg.Pool, base: string): Promise<void> {
  await db.query(`UPDATE settings SET value = 'true' WHERE item = 'public_mempool_view'`);
  const checks = async () => (JSON.parse((await exchange(base, 'health', 'GET', '/rest-api/health')).body) as HealthResponse).checks;
  await until(async () => (await checks()) !== undefined, async () => 'the health shows no checks', 30_000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe('Postgres stopped for 20 s under load', { skip: privatePostgresUnavailable() ?? false }, () => {
  let database: PrivatePostgres;
  let databaseUrl: string;
  let node: TestNode;
  let txs: SmallTx[];
  let server: ServerProcess | undefined;
  let db: pg.Pool;

  before(async () => {
    database = await startPrivatePostgres();
    databaseUrl = await database.createDatabase('portal');
    node = await startTestNode();
    txs = await buildSmallTxs(node, TX_POOL, 3);
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // The test's own connections are cut by the stop too; that is expected.
    db.on('error', () => {});
  });
  after(async () => {
    await server?.kill();
    await db?.end();
    await node?.stop();
    await database?.destroy();
  });

  test('answers come fast (200 or 503), spooled records are replayed, the process and its jobs carry on', async (t) => {
    // The load comes from one address: the rate limit is out of the way.
    server = await startServerProcess({ node, databaseUrl, env: { RATE_LIMIT_MAX: '1000000' } });
    const base = server.baseUrl;
    const health = () => exchange(base, 'health', 'GET', '/rest-api/health');
    await until(async () => (await health()).status === 200, async () => (await health()).body, 30_000);
    await showHealthChecks(db, base);
    const submit = (tx: SmallTx) => exchange(base, `submit ${tx.txid}`, 'POST', '/rest-api/submit-tx', { tx_hex: tx.hex });
    const acked = new Set<string>();
    const note = (e: Exchange) => {
      const txid = /^submit (\w+)$/.exec(e.label)?.[1];
      if (txid && e.status === 200 && (JSON.parse(e.body) as { message?: string }).message === txid) acked.add(txid);
      return e;
    };

    // Before: submissions go through, one of them is the status page's subject.
    for (const tx of txs.splice(0, 3)) assert.equal(note(await submit(tx)).status, 200);
    const known = [...acked][0]!;

    // The cut: the settings read just before (the cache is 2 s), then submissions as the database stops and right after.
    await sleep(SETTINGS_TTL_MS + 100);
    const readAt = Date.now();
    assert.equal((await exchange(base, 'getinfo', 'GET', '/rest-api/getinfo')).status, 200);
    const first = Promise.all(txs.splice(0, BURST).map((tx) => submit(tx).then(note)));
    const stopping = database.stop();
    await stopping;
    const stoppedAt = Date.now();
    const second = await Promise.all(txs.splice(0, BURST).map((tx) => submit(tx).then(note)));
    const cut = [...(await first), ...second];
    t.diagnostic(`database stopped ${stoppedAt - readAt} ms after the settings were read; the burst: ${cut.map((e) => e.status).join(' ')}`);

    // The outage, under load.
    const during: Exchange[] = [...second];
    const end = stoppedAt + OUTAGE_MS;
    const client = async (n: number) => {
      for (let i = n; Date.now() < end; i++) {
        const tx = i % 4 === 0 ? txs.shift() : undefined;
        const e = tx
          ? await submit(tx)
          : i % 4 === 1
            ? await exchange(base, 'status', 'GET', `/rest-api/status-check?tx_id=${known}`)
            : i % 4 === 2
              ? await exchange(base, 'getinfo', 'GET', '/rest-api/getinfo')
              : await health();
        during.push(note(e));
        await sleep(100);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    assert.ok(server.running(), 'the server lives through the outage');
    const spoolFile = path.join(server.dataDir, 'pending-records.jsonl');
    const spooled = (await readFile(spoolFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { submission: { txid: string } }).submission.txid);

    await database.start();
    const restartedAt = Date.now();
    await until(async () => (await health()).status === 200, async () => (await health()).body, 30_000);
    t.diagnostic(`healthy again ${Date.now() - restartedAt} ms after the database started`);

    // During the outage: 200 or 503 only, each within twice the connection timeout; the health says why.
    const bound = 2 * DEFAULT_CONNECT_TIMEOUT_MS;
    const slowest = Math.max(...during.map((e) => e.ms));
    t.diagnostic(`${during.length} requests during the outage, slowest ${slowest} ms; ${spooled.length} submission records spooled`);
    assert.deepEqual(during.filter((e) => e.ms > bound).slice(0, 10).map((e) => `${e.label}: ${e.ms} ms`), [], `every answer within ${bound} ms`);
    assert.deepEqual(during.filter((e) => e.status !== 200 && e.status !== 503).slice(0, 10).map((e) => `${e.label}: ${e.status} ${e.body}`), [], 'only successes and 503s');
    const refusedSubmissions = during.filter((e) => e.label.startsWith('submit') && e.status === 503);
    assert.ok(refusedSubmissions.length > 0, 'submissions were refused during the outage');
    for (const e of refusedSubmissions) assert.equal((JSON.parse(e.body) as { message: string }).message, SERVICE_UNAVAILABLE_MESSAGE);
    const healthDuring = during.filter((e) => e.label === 'health');
    assert.ok(healthDuring.length > 0);
    for (const e of healthDuring) {
      assert.equal(e.status, 503, e.body);
      const report = JSON.parse(e.body) as Required<HealthResponse>;
      assert.deepEqual(report.checks.database, { ok: false, latency_ms: null, error: 'unreachable' });
      assert.equal(report.checks.node.ok, true);
    }

    // The spool: every record in it is a submission answered 200, and it is replayed once the database is back.
    assert.ok(spooled.length > 0, 'submissions accepted as the database went were spooled');
    assert.deepEqual(spooled.filter((txid) => !acked.has(txid)), [], 'only acknowledged submissions are spooled');
    const rows = async () => (await db.query<{ txid: string; status: string }>(`SELECT txid, status FROM tx_submissions WHERE txid = ANY($1::text[])`, [[...acked]])).rows;
    await until(async () => (await rows()).filter((r) => r.status === 'accepted').length === acked.size, async () => `${JSON.stringify(await rows())} of ${acked.size}`, 30_000);
    await until(async () => (await readFile(spoolFile, 'utf8').catch(() => '')) === '', async () => 'the spool file is still there', 15_000);

    // The background jobs carry on: the replayed records are tracked, and a block is matched by the scan.
    const tracked = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE key = ANY($1::text[]) AND attempts > 0`, [spooled.map((txid) => `track:${txid}`)])).rows[0]!.n;
    await until(async () => (await tracked()) === spooled.length, async () => `${await tracked()} of ${spooled.length} tracking jobs run`, 30_000);
    const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
    assert.deepEqual([...acked].filter((txid) => !mempool.has(txid)), [], 'every acknowledged submission is at the node');
    await node.mine(1);
    const confirmed = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tx_submissions WHERE txid = ANY($1::text[]) AND status = 'confirmed'`, [[...acked]])).rows[0]!.n;
    await until(async () => (await confirmed()) === acked.size, async () => `${await confirmed()} of ${acked.size} confirmed`, 30_000);

    // The audit rows queued while the database was down are written.
    const audited = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_logs WHERE endpoint = '/rest-api/getinfo' AND request_at >= $1 AND request_at < $2`, [new Date(stoppedAt), new Date(restartedAt)])).rows[0]!.n;
    const getinfos = during.filter((e) => e.label === 'getinfo' && e.startedAt >= stoppedAt).length;
    await until(async () => (await audited()) === getinfos, async () => `${await audited()} of ${getinfos} audit rows`, 30_000);
    assert.ok(server.running(), 'still running');
  });

  test('frozen (connections open, nothing answers): statements fail within the timeouts, as "unavailable"; the health says so at once', async (t) => {
    const timeoutMs = 1_000;
    const adapter = await openPostgres(databaseUrl, { connectTimeoutMs: timeoutMs, queryTimeoutMs: timeoutMs, onIdleError: () => {} });
    server ??= await startServerProcess({ node, databaseUrl, env: { RATE_LIMIT_MAX: '1000000' } });
    const base = server.baseUrl;
    try {
      await adapter.query('SELECT 1'); // an open connection in the pool, as a running server has
      await until(async () => (await exchange(base, 'health', 'GET', '/rest-api/health')).status === 200, async () => 'not healthy', 30_000);
      await showHealthChecks(db, base);
      await database.freeze();
      try {
        const failure = async () => {
          const started = Date.now();
          // Unbounded, a statement on a frozen server would wait for good: the test gives up at 10 s and says so.
          const hung = new Promise<Error>((resolve) => setTimeout(() => resolve(new Error('still waiting after 10 s')), 10_000).unref());
          const error = await Promise.race([adapter.query('SELECT 1').then(() => undefined, (e: unknown) => e), hung]);
          return { error, ms: Date.now() - started };
        };
        const onOpen = await failure(); // on the pooled connection: the statement timeout
        const onNew = await failure(); // that connection was dropped: a new one, the connect timeout
        t.diagnostic(`open connection: ${(onOpen.error as Error)?.message} after ${onOpen.ms} ms; new one: ${(onNew.error as Error)?.message} after ${onNew.ms} ms`);
        for (const { error, ms } of [onOpen, onNew]) {
          assert.ok(error instanceof Error, 'the statement failed');
          assert.equal(isDatabaseUnavailable(error), true, error.message);
          assert.ok(ms < 2 * timeoutMs + 1_000, `failed after ${ms} ms`);
        }
        const health = await exchange(base, 'health', 'GET', '/rest-api/health');
        assert.equal(health.status, 503);
        assert.deepEqual((JSON.parse(health.body) as Required<HealthResponse>).checks.database, { ok: false, latency_ms: null, error: 'timed out' });
        assert.ok(health.ms < 2 * 1_000 + 1_000, `the health answered after ${health.ms} ms`);
      } finally {
        await database.thaw();
      }
      await until(async () => (await adapter.query('SELECT 1').then(() => true, () => false)), async () => 'the adapter does not recover', 15_000);
      await until(async () => (await exchange(base, 'health', 'GET', '/rest-api/health')).status === 200, async () => 'not healthy again', 30_000);
      assert.ok(server.running());
    } finally {
      await adapter.close();
    }
  });
});
