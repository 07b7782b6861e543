import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MAX_RETRY_IDS, type FailedTxListResponse, type FailedTxRetryResponse } from '../src/modules/failed-txs/failed-txs.schemas.ts';
import { queueRetries } from '../src/modules/failed-txs/failed-txs-retry.repository.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startStaffTestApp, type StaffTestApp, type Who } from './helpers/staff-app.ts';

/**
 * Failed Transactions' API (docs/behaviour.md#failed-transactions):
 * GET /rest-api/txs/view and POST /rest-api/retry-txs/update, against
 * failed_txs rows written straight into the database. Each test starts from
 * the same fixture:
 *
 *   25 Failed   one a day at noon, 1 to 25 March 2025; client ACME on odd days, BETA on even days but every 5th, which has none
 *    5 Timeout  1 to 5 April 2025, client ACME
 *    2 Retrying, 2 Resolved, in May 2025
 */

interface ErrorBody {
  message: string;
}

interface Fixture {
  txid: string;
  status: 'Failed' | 'Timeout' | 'Retrying' | 'Resolved';
  clientCode: string | null;
  createdAt: string;
  errors: string[];
  submissionType?: 'tx' | 'package';
}

const txidOf = (label: string) => createHash('sha256').update(label).digest('hex');
const day = (month: number, d: number) => `2025-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}T12:00:00.000Z`;

function fixtures(): Fixture[] {
  const rows: Fixture[] = [];
  for (let d = 1; d <= 25; d++) {
    rows.push({
      txid: txidOf(`failed-${d}`),
      status: 'Failed',
      clientCode: d % 5 === 0 ? null : d % 2 === 1 ? 'ACME' : 'BETA',
      createdAt: day(3, d),
      errors: d === 3 ? ['mempool min fee not met, 100 < 200', 'mempool full'] : [`reason ${d}`],
    });
  }
  for (let d = 1; d <= 5; d++) rows.push({ txid: txidOf(`timeout-${d}`), status: 'Timeout', clientCode: 'ACME', createdAt: day(4, d), errors: ['timeout'] });
  rows.push({ txid: txidOf('retrying-1'), status: 'Retrying', clientCode: 'ACME', createdAt: day(5, 1), errors: ['x'] });
  rows.push({ txid: txidOf('retrying-2'), status: 'Retrying', clientCode: 'ACME', createdAt: day(5, 2), errors: ['x'] });
  rows.push({ txid: txidOf('resolved-1'), status: 'Resolved', clientCode: 'ACME', createdAt: day(5, 3), errors: ['x'] });
  rows.push({ txid: txidOf('resolved-2'), status: 'Resolved', clientCode: 'ACME', createdAt: day(5, 4), errors: ['x'] });
  return rows;
}

for (const engine of testDatabases()) {
  describe(`failed transactions API (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    /** failed_txs.id by txid, for the current fixture. */
    let idOf: Map<string, number>;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db);
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    beforeEach(async () => {
      await db.query("DELETE FROM jobs WHERE kind = 'retry'");
      await db.query('DELETE FROM failed_txs');
      idOf = new Map();
      for (const f of fixtures()) {
        const hexes = f.submissionType === 'package' ? ['00', 'ff'] : null;
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO failed_txs (txid, tx_hex, tx_hexes, submission_type, client_code, status, errors, attempts, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id`,
          [f.txid, `0200${f.txid}`, hexes, f.submissionType ?? 'tx', f.clientCode, f.status, f.errors, f.errors.length, f.createdAt],
        );
        idOf.set(f.txid, rows[0]!.id);
      }
    });

    const list = (query: Record<string, string> = {}, as: Who = 'viewer') => t.call<FailedTxListResponse & ErrorBody>('GET', '/rest-api/txs/view', { query, as });
    const retry = (body: unknown, as: Who = 'admin') => t.call<FailedTxRetryResponse & ErrorBody>('POST', '/rest-api/retry-txs/update', { body, as });
    const failedId = (d: number) => idOf.get(txidOf(`failed-${d}`))!;
    const timeoutId = (d: number) => idOf.get(txidOf(`timeout-${d}`))!;
    /** Days of the Failed rows an answer lists, in its order. */
    const failedDays = (ids: number[]) => ids.map((id) => Array.from({ length: 25 }, (_, i) => i + 1).find((d) => failedId(d) === id) ?? -id);
    const statusOf = async (id: number) => (await db.query<{ status: string }>('SELECT status FROM failed_txs WHERE id = $1', [id])).rows[0]?.status;
    const retryJobs = async () =>
      (await db.query<{ key: string; payload: unknown; state: string }>("SELECT key, payload, state FROM jobs WHERE kind = 'retry' ORDER BY key")).rows;
    const countRetryJobs = async () => (await db.query<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE kind = 'retry'")).rows[0]!.n;
    const descending = (n: number) => Array.from({ length: n }, (_, i) => n - i);

    test('Failed by default: newest first, 10 a page, with totals and every matching id over all pages', async () => {
      const res = await list();
      assert.equal(res.statusCode, 200, res.body.message);
      assert.equal(res.body.total_records, 25);
      assert.equal(res.body.total_pages, 3);
      assert.deepEqual(failedDays(res.body.ids), descending(25), 'ids: all 25 Failed rows, newest first');
      assert.deepEqual(failedDays(res.body.result.map((r) => r.id)), descending(25).slice(0, 10));
      assert.deepEqual((await list({ tx_status: 'Failed' })).body, res.body, 'Failed is the default');
    });

    test('a row carries the documented fields: id, txid, tx_hex, client_code, timestamp, errors (oldest first), and its type, attempts and status', async () => {
      const res = await list({ txid: txidOf('failed-3') });
      assert.deepEqual(res.body.result, [
        {
          id: failedId(3),
          txid: txidOf('failed-3'),
          // 68 characters: shortened to its first and last 24, the whole length beside it.
          tx_hex: `0200${txidOf('failed-3').slice(0, 20)}…${txidOf('failed-3').slice(-24)}`,
          tx_hex_length: 68,
          client_code: 'ACME',
          timestamp: day(3, 3),
          // In plain words first, then the node's own (bitcoin/reject-reasons.ts); stored as the node said them.
          errors: [
            "The fee is below what the pool's mempool needs while it is this full. Raise the fee and submit again. (node: mempool min fee not met, 100 < 200)",
            "The pool's mempool is full and the fee is too low to make room for it. Raise the fee or try again later. (node: mempool full)",
          ],
          submission_type: 'tx',
          attempts: 2,
          status: 'Failed',
        },
      ]);
      assert.equal((await list({ txid: txidOf('failed-5') })).body.result[0]!.client_code, null);
      const stored = await db.query<{ errors: string[] }>('SELECT errors FROM failed_txs WHERE id = $1', [failedId(3)]);
      assert.deepEqual(stored.rows[0]!.errors, ['mempool min fee not met, 100 < 200', 'mempool full'], "the table keeps the node's words");
      // A reason the table does not know (a timeout, the portal's own words) is shown as it was kept.
      assert.deepEqual((await list({ txid: txidOf('failed-4') })).body.result[0]!.errors, ['reason 4']);
    });

    test("the list never carries a long hex whole: each row's whole hex is one request away", async () => {
      const long = `02${'cd'.repeat(200_000)}ff`;
      await db.query("UPDATE failed_txs SET tx_hex = $1 WHERE id = $2", [long, failedId(7)]);
      const row = (await list({ txid: txidOf('failed-7') })).body.result[0]!;
      assert.equal(row.tx_hex, `02${'cd'.repeat(11)}…${'cd'.repeat(11)}ff`);
      assert.equal(row.tx_hex_length, 400_004);
      const whole = await t.call<{ id: number; txid: string; tx_hex: string; tx_hexes: string[] | null } & ErrorBody>('GET', `/rest-api/txs/${failedId(7)}/hex`, { as: 'viewer' });
      assert.equal(whole.statusCode, 200, whole.body.message);
      assert.deepEqual(whole.body, { id: failedId(7), txid: txidOf('failed-7'), tx_hex: long, tx_hexes: null });
      assert.equal((await t.call('GET', '/rest-api/txs/99999999/hex', { as: 'viewer' })).statusCode, 404);
      assert.equal((await t.call('GET', `/rest-api/txs/${failedId(7)}/hex`, { as: 'nobody' })).statusCode, 401);
      // A page of 100 such rows stays small.
      await db.query('UPDATE failed_txs SET tx_hex = $1', [long]);
      const page = await t.app.inject({ method: 'GET', url: '/rest-api/txs/view?limit=100', headers: { authorization: `Bearer ${t.tokens.viewer}` } });
      console.log(`a page of ${page.json<FailedTxListResponse>().result.length} rows of 400,004 hex characters each is ${page.body.length} bytes`);
      assert.ok(page.body.length < 100_000);
    });

    test('paging: later pages continue the order, a page past the end is empty, bad paging is refused', async () => {
      const page3 = await list({ page: '3' });
      assert.deepEqual(failedDays(page3.body.result.map((r) => r.id)), [5, 4, 3, 2, 1]);
      const by20 = await list({ page: '2', limit: '20' });
      assert.deepEqual(failedDays(by20.body.result.map((r) => r.id)), [5, 4, 3, 2, 1]);
      assert.equal(by20.body.total_pages, 2);
      const past = await list({ page: '4' });
      assert.deepEqual(past.body.result, []);
      assert.equal(past.body.total_records, 25);
      assert.equal(past.body.ids.length, 25, 'select-all still sees every match');
      const bad: Array<Record<string, string>> = [{ limit: '15' }, { limit: '0' }, { page: '0' }, { page: 'x' }, { sort: 'id' }];
      for (const query of bad) {
        assert.equal((await list(query)).statusCode, 400, JSON.stringify(query));
      }
      assert.match((await list({ sort: 'id' })).body.message, /Unknown field 'sort'/);
    });

    test('Timeout lists only timed-out rows; other statuses are not a choice', async () => {
      const res = await list({ tx_status: 'Timeout' });
      assert.equal(res.body.total_records, 5);
      assert.deepEqual(res.body.ids, [5, 4, 3, 2, 1].map(timeoutId));
      assert.ok(res.body.result.every((r) => r.status === 'Timeout'));
      for (const status of ['Retrying', 'Resolved', 'failed', 'All']) {
        assert.equal((await list({ tx_status: status })).statusCode, 400, status);
      }
    });

    test('filters: txid by its start, in either case (the table shows txids shortened); exact client code, inclusive date range, combined; ids are exactly the matches', async () => {
      const ids = async (query: Record<string, string>) => {
        const res = await list(query);
        assert.equal(res.statusCode, 200, res.body.message);
        assert.equal(res.body.total_records, res.body.ids.length);
        return res.body.ids;
      };
      assert.deepEqual(await ids({ txid: txidOf('failed-7') }), [failedId(7)]);
      assert.deepEqual(await ids({ txid: `  ${txidOf('failed-7').toUpperCase()} ` }), [failedId(7)]);
      assert.deepEqual(await ids({ txid: txidOf('failed-7').slice(0, 10) }), [failedId(7)], 'the first 10 characters the table shows');
      assert.deepEqual(await ids({ txid: ` ${txidOf('failed-7').slice(0, 20).toUpperCase()}` }), [failedId(7)], 'a longer start, in upper case');
      const startingWith = (prefix: string) => descending(25).filter((d) => txidOf(`failed-${d}`).startsWith(prefix)).map(failedId);
      const oneChar = txidOf('failed-7').slice(0, 1);
      assert.ok(startingWith(oneChar).length > 1, 'the fixture has several txids with that first character');
      assert.deepEqual(await ids({ txid: oneChar }), startingWith(oneChar), 'every txid with that start');
      assert.deepEqual(await ids({ txid: txidOf('failed-7').slice(-10) }), [], 'the end of a txid is not its start');
      assert.deepEqual(await ids({ txid: '%' }), [], 'a LIKE wildcard is taken literally');
      assert.deepEqual(await ids({ txid: '_' }), [], 'a LIKE wildcard is taken literally');
      assert.deepEqual(await ids({ txid: txidOf('timeout-1') }), [], 'a Timeout row is not in the Failed list');
      assert.deepEqual(failedDays(await ids({ client_code: 'BETA' })), [24, 22, 18, 16, 14, 12, 8, 6, 4, 2]);
      assert.deepEqual(await ids({ client_code: 'beta' }), [], 'client codes match exactly');
      assert.deepEqual(failedDays(await ids({ from_date: '2025-03-10 00:00:00', to_date: '2025-03-12 23:59:59' })), [12, 11, 10]);
      assert.deepEqual(failedDays(await ids({ from_date: '2025-03-10 12:00:01', to_date: '2025-03-12 23: 59: 59' })), [12, 11], 'the dashboard\'s end-date form');
      assert.deepEqual(failedDays(await ids({ from_date: '2025-03-20 00:00:00' })), [25, 24, 23, 22, 21, 20]);
      assert.deepEqual(failedDays(await ids({ to_date: '2025-03-02 23:59:59' })), [2, 1]);
      assert.deepEqual(failedDays(await ids({ client_code: 'ACME', from_date: '2025-03-10 00:00:00', to_date: '2025-03-20 23:59:59' })), [19, 17, 13, 11]);
      assert.deepEqual(await ids({ client_code: 'ACME', tx_status: 'Timeout', to_date: '2025-04-02 23:59:59' }), [2, 1].map(timeoutId));
      assert.deepEqual(await ids({ txid: ' ', client_code: '', from_date: '', to_date: '' }), descending(25).map(failedId), 'blank filters mean none');
      const none = await list({ client_code: "' OR '1'='1" });
      assert.deepEqual(none.body, { result: [], total_pages: 0, total_records: 0, ids: [] });
      const bad: Array<Record<string, string>> = [{ from_date: '2025-13-01 00:00:00' }, { from_date: '2025-03-12 00:00:00', to_date: '2025-03-10 23:59:59' }, { to_date: 'yesterday' }];
      for (const query of bad) {
        assert.equal((await list(query)).statusCode, 400, JSON.stringify(query));
      }
    });

    test('viewers list but may not retry (403), strangers get 401; nothing changes', async () => {
      assert.equal((await list({}, 'viewer')).statusCode, 200);
      assert.equal((await list({}, 'nobody')).statusCode, 401);
      const refused = await retry({ ids: [failedId(1)] }, 'viewer');
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.body.message, 'Administrator rights are required for this action.');
      assert.equal((await retry({ ids: [failedId(1)] }, 'nobody')).statusCode, 401);
      assert.equal(await statusOf(failedId(1)), 'Failed');
      assert.equal(await countRetryJobs(), 0);
    });

    test('retry moves open rows to Retrying and queues one job each; closed, unknown and repeated ids are skipped', async () => {
      const open = [failedId(1), failedId(2), failedId(25), timeoutId(3)];
      const closed = ['retrying-1', 'resolved-1'].map((label) => idOf.get(txidOf(label))!);
      const unknown = 999_999_999;
      const res = await retry({ ids: [...open, ...closed, unknown, failedId(1)] });
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(res.body, { status: 'success', message: 'Transactions updated successfully!', queued: 4, skipped: 3 });
      for (const id of open) assert.equal(await statusOf(id), 'Retrying');
      assert.deepEqual(await Promise.all(closed.map(statusOf)), ['Retrying', 'Resolved']);
      assert.deepEqual(
        await retryJobs(),
        open.map((id) => ({ key: `retry:${id}`, payload: { failedTxId: id }, state: 'queued' })).sort((a, b) => a.key.localeCompare(b.key)),
      );
      // Out of the open lists, and a second retry of them queues nothing more.
      const failed = await list();
      assert.equal(failed.body.total_records, 22);
      assert.ok(!failed.body.ids.some((id) => open.includes(id)));
      assert.equal((await list({ tx_status: 'Timeout' })).body.total_records, 4);
      const again = await retry({ ids: open });
      assert.deepEqual([again.body.queued, again.body.skipped], [0, 4]);
      assert.equal(await countRetryJobs(), 4);
    });

    test('two identical retries at the same moment queue each id once', async () => {
      const ids = (await list({ limit: '100' })).body.ids;
      assert.equal(ids.length, 25);
      const [a, b] = await Promise.all([retry({ ids }), retry({ ids })]);
      assert.equal(a.statusCode, 200, a.body.message);
      assert.equal(b.statusCode, 200, b.body.message);
      assert.equal(a.body.queued + b.body.queued, 25, `queued ${a.body.queued} + ${b.body.queued}`);
      assert.equal(a.body.skipped + b.body.skipped, 25);
      assert.equal(await countRetryJobs(), 25);
      const { rows } = await db.query<{ key: string; n: number }>("SELECT key, count(*) AS n FROM jobs WHERE kind = 'retry' GROUP BY key HAVING count(*) > 1");
      assert.deepEqual(rows, []);
      assert.equal((await list()).body.total_records, 0);
    });

    test('the same from two server instances at once (queueRetries on separate connections) also queues each id once', async () => {
      const peer = await db.openPeer();
      try {
        const ids = [...descending(25).map(failedId), ...[1, 2, 3, 4, 5].map(timeoutId)];
        const [a, b] = await Promise.all([queueRetries(db, ids), queueRetries(peer, ids)]);
        assert.equal(a.queuedIds.length + b.queuedIds.length, 30);
        assert.deepEqual([...a.queuedIds, ...b.queuedIds].sort((x, y) => x - y), [...ids].sort((x, y) => x - y));
        assert.equal(await countRetryJobs(), 30);
      } finally {
        await peer.close();
      }
    });

    test('a row whose retry job is still open moves to Retrying without a second job', async () => {
      const id = failedId(9);
      await db.query("INSERT INTO jobs (kind, key, payload) VALUES ('retry', $1, jsonb_build_object('failedTxId', $2::bigint))", [`retry:${id}`, id]);
      assert.deepEqual(await queueRetries(db, [id]), { queuedIds: [id], skipped: 0 });
      assert.equal(await statusOf(id), 'Retrying');
      assert.equal(await countRetryJobs(), 1);
    });

    test('the body is {ids}: 1 to 10,000 positive integers, nothing else', async () => {
      const bad: Array<[unknown, RegExp?]> = [
        [{ ids: [] }],
        [{}],
        [{ ids: [failedId(1)], all: true }, /Unknown field 'all'/],
        [{ ids: [0] }],
        [{ ids: [-1] }],
        [{ ids: [1.5] }],
        [{ ids: ['abc'] }],
        [[failedId(1)]],
        [{ ids: Array.from({ length: MAX_RETRY_IDS + 1 }, (_, i) => i + 1) }],
      ];
      for (const [body, message] of bad) {
        const res = await retry(body);
        assert.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 80));
        if (message) assert.match(res.body.message, message);
      }
      assert.equal(await countRetryJobs(), 0);
      assert.equal((await list()).body.total_records, 25);
      // The most a request takes: the 30 open rows among ids 1 to 10,000 are queued.
      assert.ok(Math.max(...idOf.values()) <= MAX_RETRY_IDS);
      const most = await retry({ ids: Array.from({ length: MAX_RETRY_IDS }, (_, i) => i + 1) });
      assert.equal(most.statusCode, 200, most.body.message);
      assert.deepEqual([most.body.queued, most.body.skipped], [30, MAX_RETRY_IDS - 30]);
      assert.equal(await countRetryJobs(), 30);
    });
  });
}
