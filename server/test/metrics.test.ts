import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../src/app.ts';
import type { Clock } from '../src/lib/clock.ts';
import { METRICS_PRIVATE_MESSAGE, METRICS_TOKEN_MESSAGE } from '../src/metrics/metrics.routes.ts';
import type { SummaryResponse } from '../src/metrics/metrics.schemas.ts';
import { PRIVATE_CONFLICT_MESSAGE } from '../src/modules/submission/private-conflicts.ts';
import { explainRejectReason } from '../src/bitcoin/reject-reasons.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../src/http/errors.ts';
import { FEE_TOO_LOW_MESSAGE, MISSING_INPUTS_MESSAGE, PACKAGE_FEE_TOO_LOW_MESSAGE } from '../src/modules/submission/submission-rules.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post } from './helpers/test-app.ts';

/**
 * Prometheus metrics at /rest-api/metrics and the staff summary behind the
 * /metrics page, on the real app, node and database: counters follow real
 * submissions, the node RPC histogram real calls, the queue gauges rows in
 * the database; the summary's figures come from fixture rows at fixed days
 * (the app's clock is pinned, so no test depends on today's date).
 */

const TOKEN = 'scrape-secret-0123456789';

/** One sample's value from the text format: `name{labels} value`, labels in any order; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found[pair[1]!] = pair[2]!;
    if (Object.keys(found).length !== Object.keys(labels).length) continue;
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(app: App, authorization?: string): Promise<{ statusCode: number; text: string; headers: Record<string, unknown> }> {
  const res = await app.inject({ method: 'GET', url: '/rest-api/metrics', headers: authorization === undefined ? {} : { authorization } });
  return { statusCode: res.statusCode, text: res.body, headers: res.headers };
}

async function scrapeText(app: App, token?: string): Promise<string> {
  const res = await scrape(app, token === undefined ? undefined : `Bearer ${token}`);
  assert.equal(res.statusCode, 200, res.text);
  return res.text;
}

/**
 * The dashboard feed (tip and mempool size) is published after a projection,
 * a moment after view() answers: waits for the one at `height`, with a bound.
 */
async function feedAt(t: StaffTestApp, height: number): Promise<void> {
  for (let i = 0; t.mempool.feed.current()?.recentBlocks[0]?.height !== height; i++) {
    assert.ok(i < 300, `the engine published tip ${height} (it shows ${t.mempool.feed.current()?.recentBlocks[0]?.height})`);
    await t.mempool.view();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(10);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`Prometheus scrape (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node, { metricsToken: TOKEN });
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('with METRICS_TOKEN set, a scrape without it or with another token is refused', async () => {
      const none = await scrape(t.app);
      assert.equal(none.statusCode, 401);
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="metrics"');
      assert.equal((JSON.parse(none.text) as { message: string }).message, METRICS_TOKEN_MESSAGE);
      for (const wrong of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN, `Bearer ${t.tokens.admin}`]) {
        const res = await scrape(t.app, wrong);
        assert.equal(res.statusCode, 401, `${wrong.slice(0, 20)}… is not the scrape token`);
        assert.doesNotMatch(res.text, /slipstream_/);
      }
      const ok = await scrape(t.app, `Bearer ${TOKEN}`);
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(ok.text, /^# HELP /m);
      assert.ok(sample(ok.text, 'process_cpu_user_seconds_total') !== undefined, 'default process metrics are included');
    });

    test('submissions are counted by kind and outcome; the node RPC calls behind them are timed and their failures counted', async () => {
      const before = await scrapeText(t.app, TOKEN);
      for (const kind of ['tx', 'package']) {
        for (const outcome of ['accepted', 'rejected', 'failed', 'invalid']) {
          assert.equal(sample(before, 'slipstream_submissions_total', { kind, outcome }), 0, `${kind}/${outcome} starts at 0`);
        }
      }
      const sendsBefore = sample(before, 'slipstream_node_rpc_duration_seconds_count', { method: 'sendrawtransaction' }) ?? 0;

      const good = await node.buildTx({ feeRate: 3 });
      assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: good.hex })).statusCode, 200);
      assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: 'zz' + good.hex.slice(2) })).statusCode, 400);
      // The node refuses a replacement that pays less than the transaction in its mempool (one sent
      // straight to the node, so the portal tells the refusal without the private transaction's fee).
      const original = await node.buildTx({ feeRate: 3 });
      await node.rpc.call('sendrawtransaction', [original.hex]);
      const cheaper = await node.buildReplacement(original.hex, 2.5);
      const refused = await post<{ message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: cheaper.hex });
      assert.equal(refused.statusCode, 422);
      assert.equal(refused.body.message, PRIVATE_CONFLICT_MESSAGE);
      assert.equal((await post(t.app, '/rest-api/submit-package', { tx_hexes: [] })).statusCode, 400);

      const text = await scrapeText(t.app, TOKEN);
      const counts = (kind: string) =>
        Object.fromEntries(['accepted', 'rejected', 'failed', 'invalid'].map((outcome) => [outcome, sample(text, 'slipstream_submissions_total', { kind, outcome })]));
      assert.deepEqual(counts('tx'), { accepted: 1, rejected: 1, failed: 0, invalid: 1 });
      assert.deepEqual(counts('package'), { accepted: 0, rejected: 0, failed: 0, invalid: 1 });

      // Two sendrawtransaction calls went to the node (the bad hex never did): one taken, one refused.
      const sends = sample(text, 'slipstream_node_rpc_duration_seconds_count', { method: 'sendrawtransaction' });
      assert.equal(sends, sendsBefore + 2);
      assert.ok(sample(text, 'slipstream_node_rpc_duration_seconds_sum', { method: 'sendrawtransaction' })! > 0);
      assert.equal(sample(text, 'slipstream_node_rpc_duration_seconds_bucket', { method: 'sendrawtransaction', le: '+Inf' }), sends);
      assert.equal(sample(text, 'slipstream_node_rpc_errors_total', { method: 'sendrawtransaction', kind: 'refused' }), 1);
    });

    test('request durations are labelled by route pattern, and requests no route matched as "unmatched"', async () => {
      const txid = 'ab'.repeat(32);
      // A transaction nobody knows: 404 from a route that matched.
      assert.equal((await t.app.inject({ method: 'GET', url: `/rest-api/status-check?tx_id=${txid}` })).statusCode, 404);
      assert.equal((await t.app.inject({ method: 'GET', url: '/rest-api/no-such-endpoint/12345' })).statusCode, 404);
      const text = await scrapeText(t.app, TOKEN);
      assert.equal(sample(text, 'slipstream_http_request_duration_seconds_count', { method: 'GET', route: '/rest-api/status-check', status_code: '404' }), 1);
      assert.equal(sample(text, 'slipstream_http_request_duration_seconds_count', { method: 'POST', route: '/rest-api/submit-tx', status_code: '200' }), 1);
      assert.ok(sample(text, 'slipstream_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' })! >= 1);
      assert.doesNotMatch(text, new RegExp(txid), 'no raw URL in a label');
      assert.doesNotMatch(text, /no-such-endpoint/);
    });

    test('the job queue gauges count open jobs by kind and age the oldest, from the jobs table', async () => {
      // Jobs the app queued itself (an accepted submission is tracked) are counted too.
      const open = async () =>
        Object.fromEntries(
          (await db.query<{ kind: string; n: number }>(`SELECT kind, count(*)::int AS n FROM jobs WHERE state IN ('queued', 'running') GROUP BY kind`)).rows.map((r) => [r.kind, r.n]),
        ) as Record<string, number>;
      const already = await open();
      assert.equal(already.retry, undefined, 'no retry job yet');
      // Due tomorrow, so that no job runner would take them meanwhile; 'done' and 'failed' jobs are not open.
      const now = new Date();
      const insert = (kind: string, key: string, state: string, ageSeconds: number) =>
        db.query(
          `INSERT INTO jobs (kind, key, state, run_at, created_at) VALUES ($1, $2, $3, now() + interval '1 day', $4::timestamptz - make_interval(secs => $5))`,
          [kind, key, state, now, ageSeconds],
        );
      await insert('retry', 'retry:metrics-1', 'queued', 600);
      await insert('retry', 'retry:metrics-2', 'running', 60);
      await insert('track', `track:${'cd'.repeat(32)}`, 'queued', 30);
      await insert('track', `track:${'ef'.repeat(32)}`, 'done', 7200);
      await insert('scan-blocks', 'scan-blocks:metrics', 'failed', 7200);

      const text = await scrapeText(t.app, TOKEN);
      assert.equal(sample(text, 'slipstream_job_queue_depth', { kind: 'retry' }), 2);
      assert.equal(sample(text, 'slipstream_job_queue_depth', { kind: 'track' }), (already.track ?? 0) + 1);
      assert.equal(sample(text, 'slipstream_job_queue_depth', { kind: 'scan-blocks' }), already['scan-blocks'], 'only open jobs count');
      const retryAge = sample(text, 'slipstream_job_queue_oldest_age_seconds', { kind: 'retry' })!;
      const trackAge = sample(text, 'slipstream_job_queue_oldest_age_seconds', { kind: 'track' })!;
      // Ages are counted from the rows' created_at to the scrape: at least what was inserted, a little more by now
      // (the app's own track jobs are seconds old: the inserted one is the oldest).
      assert.ok(retryAge >= 600 && retryAge < 660, `retry age ${retryAge}`);
      assert.ok(trackAge >= 30 && trackAge < 90, `track age ${trackAge}`);

      // A kind whose queue emptied reads 0, rather than keeping its last value or vanishing.
      await db.query(`UPDATE jobs SET state = 'done', finished_at = now() WHERE key LIKE 'retry:metrics-%'`);
      const later = await scrapeText(t.app, TOKEN);
      assert.equal(sample(later, 'slipstream_job_queue_depth', { kind: 'retry' }), 0);
      assert.equal(sample(later, 'slipstream_job_queue_oldest_age_seconds', { kind: 'retry' }), 0);
      assert.equal(sample(later, 'slipstream_job_queue_depth', { kind: 'track' }), (already.track ?? 0) + 1);
      await db.query('DELETE FROM jobs WHERE key = ANY($1)', [['retry:metrics-1', 'retry:metrics-2', `track:${'cd'.repeat(32)}`, `track:${'ef'.repeat(32)}`, 'scan-blocks:metrics']]);
    });

    test("the mempool mirror's health is read at scrape time", async () => {
      await node.mine(1);
      const height = await node.rpc.call<number>('getblockcount');
      await feedAt(t, height);
      const health = t.mempool.health();
      const text = await scrapeText(t.app, TOKEN);
      assert.equal(sample(text, 'slipstream_chain_tip_height'), height);
      assert.equal(sample(text, 'slipstream_mempool_mirror_up'), 1);
      assert.equal(sample(text, 'slipstream_mempool_mirror_mode', { mode: health.mode }), 1);
      assert.equal(['starting', 'zmq', 'polling'].reduce((n, mode) => n + sample(text, 'slipstream_mempool_mirror_mode', { mode })!, 0), 1);
      assert.equal(sample(text, 'slipstream_mempool_mirror_zmq_connected'), health.zmqConnected ? 1 : 0);
      const lag = sample(text, 'slipstream_mempool_mirror_lag_seconds')!;
      assert.ok(lag >= 0 && lag < 60, `lag ${lag}`);
      assert.ok(sample(text, 'slipstream_node_last_contact_timestamp_seconds')! * 1000 >= health.lastContactAtMs! - 1, 'last contact is the engine\'s');
    });

    test('scrapes stay out of the audit trail; other requests are audited as before', async () => {
      await t.audit.flush();
      const count = async (endpoint: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs WHERE endpoint = $1', [endpoint])).rows[0]!.n;
      const scrapes = await count('/rest-api/metrics');
      const infos = await count('/rest-api/getinfo');
      await scrapeText(t.app, TOKEN);
      await scrape(t.app); // refused ones too
      assert.equal((await t.app.inject({ method: 'GET', url: '/rest-api/getinfo' })).statusCode, 200);
      await t.audit.flush();
      assert.equal(await count('/rest-api/metrics'), scrapes);
      assert.equal(scrapes, 0);
      assert.equal(await count('/rest-api/getinfo'), infos + 1);
    });
  });

  describe(`staff metrics summary and an open scrape (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    /** Pinned: the summary's days are this clock's, the fixtures' rows lie around it. */
    const NOW = new Date('2031-03-20T15:00:00Z');
    const clock: Clock = { now: () => new Date(NOW) };

    const insertTx = (at: string, fee: number, status = 'accepted') => {
      const txid = (at + status + fee).split('').map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('').padEnd(64, '0').slice(0, 64);
      return db.query(
        `INSERT INTO tx_submissions (txid, wtxid, tx_hex, fee, fee_rate, functional_rate, market_rate, threshold_rate, multiplier, status, created_at, block_hash, block_height)
         VALUES ($1, $1, '00', $2, 1, 1, 1, 1, 1, $3, $4, CASE WHEN $3 = 'confirmed' THEN repeat('0', 64) END, CASE WHEN $3 = 'confirmed' THEN 1 END)`,
        [txid, fee, status, at],
      );
    };
    let packages = 0;
    const insertPackage = (at: string, fee: number | null) =>
      db.query('INSERT INTO package_submissions (package_hash, txids, tx_hexes, total_fee, created_at) VALUES ($1, $2, $3, $4, $5)', [
        `metrics-package-${++packages}`,
        [`${packages}`.padStart(64, 'a')],
        ['00'],
        fee,
        at,
      ]);
    let failures = 0;
    const insertFailure = (at: string) =>
      db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors, created_at) VALUES ($1, '00', 'Failed', ARRAY['node down'], $2)`, [
        `${++failures}`.padStart(64, 'f'),
        at,
      ]);

    const insertAudit = (at: string, endpoint: string, error: string | null) =>
      db.query(
        `INSERT INTO audit_logs (ip_address, endpoint, http_method, request_at, error_message, source_type, is_success) VALUES ('192.0.2.9', $1, 'POST', $2, $3, 'External', $4)`,
        [endpoint, at, error, error === null],
      );

    before(async () => {
      db = await engine.open();
      // No token: the scrape is open. The audit writer's timer is off, so rows wait in its queue until close().
      t = await startStaffTestApp(db, node, { clock, auditFlushIntervalMs: 3_600_000 });
      // 2031-03-20 (today): two accepted (one since confirmed), one still pending with the node, a package, a failure.
      await insertTx('2031-03-20T10:00:00Z', 1000);
      await insertTx('2031-03-20T11:00:00Z', 2500, 'confirmed');
      await insertTx('2031-03-20T12:00:00Z', 99_999, 'pending');
      await insertPackage('2031-03-20T09:00:00Z', 4000);
      await insertFailure('2031-03-20T08:00:00Z');
      // Day boundaries are UTC midnight.
      await insertTx('2031-03-18T23:59:59.999Z', 700);
      await insertFailure('2031-03-19T00:00:00Z');
      // 30 BTC: a sum past 32-bit integers stays an exact integer.
      await insertTx('2031-03-17T06:00:00Z', 3_000_000_000);
      await insertPackage('2031-03-16T06:00:00Z', null);
      // Just outside a 7-day window, inside a 14-day one; and tomorrow, in neither.
      await insertTx('2031-03-13T23:59:59Z', 5000);
      await insertTx('2031-03-21T00:00:00Z', 123);
      // Refused submissions, as the audit trail has them: whatever refused them, on either API.
      await insertAudit('2031-03-20T10:30:00Z', '/rest-api/submit-tx', FEE_TOO_LOW_MESSAGE);
      await insertAudit('2031-03-20T10:31:00Z', '/api/transactions/packages', `Transaction 2 of the package ${PACKAGE_FEE_TOO_LOW_MESSAGE}`);
      await insertAudit('2031-03-20T10:32:00Z', '/rest-api/submit-tx', 'The transaction hex is not valid hexadecimal.');
      await insertAudit('2031-03-20T10:33:00Z', '/api/transactions', MISSING_INPUTS_MESSAGE);
      await insertAudit('2031-03-20T10:34:00Z', '/rest-api/submit-package', explainRejectReason('non-final'));
      await insertAudit('2031-03-19T01:00:00Z', '/rest-api/submit-tx', NODE_UNAVAILABLE_MESSAGE);
      // Not counted: turned away by the rate limit, a success, another endpoint, and a day outside the window.
      await insertAudit('2031-03-19T01:01:00Z', '/rest-api/submit-tx', 'Too many requests. Please retry in 60 seconds.');
      await insertAudit('2031-03-19T01:02:00Z', '/rest-api/submit-tx', null);
      await insertAudit('2031-03-19T01:03:00Z', '/rest-api/parse-tx', 'The transaction hex is not valid hexadecimal.');
      await insertAudit('2031-03-21T00:00:01Z', '/rest-api/submit-tx', FEE_TOO_LOW_MESSAGE);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('without METRICS_TOKEN the scrape takes a staff token (anonymous callers need the public mempool view on), and this app has a registry of its own', async () => {
      const anonymous = await scrape(t.app);
      assert.equal(anonymous.statusCode, 401);
      assert.equal((JSON.parse(anonymous.text) as { message: string }).message, METRICS_PRIVATE_MESSAGE);
      const res = await scrape(t.app, `Bearer ${t.tokens.viewer}`);
      assert.equal(res.statusCode, 200);
      // The other app in this process counted submissions; this one has seen none.
      assert.equal(sample(res.text, 'slipstream_submissions_total', { kind: 'tx', outcome: 'accepted' }), 0);
    });

    test('the audit gauges show the rows waiting in the audit queue, and a scrape adds none', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await t.app.inject({ method: 'GET', url: '/rest-api/getinfo' })).statusCode, 200);
      const queued = t.audit.stats().queued;
      assert.ok(queued >= 3, `queued ${queued}`);
      const text = await scrapeText(t.app, t.tokens.viewer);
      assert.equal(sample(text, 'slipstream_audit_queue_length'), queued);
      assert.equal(t.audit.stats().queued, queued, 'the scrape was not queued for the audit trail');
      const lag = sample(text, 'slipstream_audit_write_lag_seconds')!;
      // Counted on the app's (pinned) clock from when the oldest row was queued (real time): a large positive number here, 0 once written.
      assert.ok(lag > 0, `lag ${lag}`);
      await t.audit.flush();
      const after = await scrapeText(t.app, t.tokens.viewer);
      assert.equal(sample(after, 'slipstream_audit_queue_length'), 0);
      assert.equal(sample(after, 'slipstream_audit_write_lag_seconds'), 0);
    });

    test('per UTC day: accepted transactions and packages, every refused submission by reason, the acceptance ratio over both, and revenue in integer sats', async () => {
      const res = await t.call<SummaryResponse>('GET', '/rest-api/metrics/summary', { query: { days: '7' }, as: 'viewer' });
      assert.equal(res.statusCode, 200, JSON.stringify(res.body));
      const { days, from, to, daily, totals } = res.body;
      assert.deepEqual({ days, from, to }, { days: 7, from: '2031-03-14', to: '2031-03-20' });
      assert.deepEqual(daily, [
        { day: '2031-03-14', accepted: 0, refused: 0, failed: 0, acceptance_ratio: null, revenue_sats: 0 },
        { day: '2031-03-15', accepted: 0, refused: 0, failed: 0, acceptance_ratio: null, revenue_sats: 0 },
        { day: '2031-03-16', accepted: 1, refused: 0, failed: 0, acceptance_ratio: 1, revenue_sats: 0 },
        { day: '2031-03-17', accepted: 1, refused: 0, failed: 0, acceptance_ratio: 1, revenue_sats: 3_000_000_000 },
        { day: '2031-03-18', accepted: 1, refused: 0, failed: 0, acceptance_ratio: 1, revenue_sats: 700 },
        { day: '2031-03-19', accepted: 0, refused: 1, failed: 1, acceptance_ratio: 0, revenue_sats: 0 },
        { day: '2031-03-20', accepted: 3, refused: 5, failed: 1, acceptance_ratio: 3 / 8, revenue_sats: 7500 },
      ]);
      assert.deepEqual(totals, {
        accepted: 6,
        refused: 6,
        failed: 2,
        acceptance_ratio: 0.5,
        revenue_sats: 3_000_008_200,
        refused_by_reason: [
          { reason: 'fee_too_low', count: 2 },
          { reason: 'invalid', count: 1 },
          { reason: 'missing_inputs', count: 1 },
          { reason: 'node_refused', count: 1 },
          { reason: 'unavailable', count: 1 },
        ],
      });
      assert.ok(Number.isInteger(totals.revenue_sats));
    });

    test('days defaults to 14 and must be 1 to 90', async () => {
      const res = await t.call<SummaryResponse>('GET', '/rest-api/metrics/summary');
      assert.equal(res.statusCode, 200);
      assert.equal(res.body.days, 14);
      assert.equal(res.body.daily.length, 14);
      assert.equal(res.body.from, '2031-03-07');
      assert.deepEqual(res.body.daily.find((d) => d.day === '2031-03-13'), { day: '2031-03-13', accepted: 1, refused: 0, failed: 0, acceptance_ratio: 1, revenue_sats: 5000 });
      assert.equal(res.body.totals.revenue_sats, 3_000_013_200);
      const one = await t.call<SummaryResponse>('GET', '/rest-api/metrics/summary', { query: { days: '1' } });
      assert.deepEqual(one.body.daily.map((d) => d.day), ['2031-03-20']);
      for (const days of ['0', '91', 'x', '1.5']) {
        const bad = await t.call('GET', '/rest-api/metrics/summary', { query: { days } });
        assert.equal(bad.statusCode, 400, `days=${days}`);
      }
      assert.equal((await t.call('GET', '/rest-api/metrics/summary', { query: { days: '7', other: '1' } })).statusCode, 400);
    });

    test("the node's health now, with the node RPC failures counted since start", async () => {
      await feedAt(t, await node.rpc.call<number>('getblockcount'));
      // Through the app's own (instrumented) client: the node refuses to decode it.
      await assert.rejects(t.rpc.call('sendrawtransaction', ['00']));
      const res = await t.call<SummaryResponse>('GET', '/rest-api/metrics/summary', { query: { days: '1' }, as: 'viewer' });
      assert.equal(res.statusCode, 200);
      const { node: health } = res.body;
      assert.equal(health.connected, true);
      assert.equal(health.last_error, null);
      assert.ok(health.lag_seconds >= 0);
      assert.ok(health.last_contact_at !== null);
      assert.equal(health.mode, t.mempool.health().mode);
      assert.equal(health.tip_height, await node.rpc.call<number>('getblockcount'));
      assert.equal(health.mempool_tx_count, t.mempool.feed.current()?.mempool.txCount ?? null);
      assert.deepEqual(
        health.rpc_errors.filter((e) => e.method === 'sendrawtransaction'),
        [{ method: 'sendrawtransaction', kind: 'refused', count: 1 }],
      );
      assert.equal(health.rpc_errors_total, health.rpc_errors.reduce((n, e) => n + e.count, 0));
      assert.ok(health.rpc_errors_total >= 1);
    });

    test('the summary is for signed-in staff only', async () => {
      assert.equal((await t.call('GET', '/rest-api/metrics/summary', { as: 'nobody' })).statusCode, 401);
      const forged = await t.app.inject({ method: 'GET', url: '/rest-api/metrics/summary', headers: { authorization: 'Bearer not-a-token' } });
      assert.equal(forged.statusCode, 401);
    });
  });
}
