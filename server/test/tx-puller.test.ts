import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../src/lib/clock.ts';
import { submissionFilters } from '../src/modules/accepted-submissions/accepted-submissions.query.ts';
import { packageSubmissionBatches, txSubmissionBatches } from '../src/modules/tx-puller/tx-puller.repository.ts';
import type { PulledPackage, PulledTx, TxPullerListResponse } from '../src/modules/tx-puller/tx-puller.schemas.ts';
import { TX_PULLER_CSV_HEADER } from '../src/modules/tx-puller/tx-puller.service.ts';
import { staffGet, startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { fakeTxid, insertPackage, insertTx, parseCsv, type PackageFixture, type TxFixture, type TxStatus } from './helpers/submission-fixtures.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * GET /rest-api/tx-puller/list (docs/behaviour.md#tx-puller, docs/behaviour.md#data-shapes "Puller
 * row") against submission rows written straight into the database: the
 * two tabs, the filters, paging, the CSV download, and that a submission
 * still pending with the node is never shown.
 */

/** The app's clock: the download's file name is made from it. */
const NOW = new Date('2025-03-09T07:05:03.250Z');
const fixedClock: Clock = { now: () => new Date(NOW) };

const hour = (h: number) => new Date(Date.UTC(2024, 4, 1, h)).toISOString().replace('.000Z', '.000000Z');

const CODES = ['ACME10', null, 'BETA'] as const;
/** Client codes that a spreadsheet would run as formulas, or that need quoting. Anyone who submits picks their code. */
const HOSTILE_CODES = ['=HYPERLINK("http://evil.example","click")', '-1+1', '@SUM(1)', '+cmd', '\tTAB', 'A,B "quoted"'];

function txFixtures(): TxFixture[] {
  const regular = Array.from({ length: 23 }, (_, i): TxFixture => {
    const status: TxStatus = i === 4 || i === 9 ? 'pending' : i === 11 ? 'replaced' : i % 5 === 2 ? 'confirmed' : 'accepted';
    return {
      txid: fakeTxid(`tx${i}`),
      txHex: `0200000001${fakeTxid(`hex${i}`)}${'ab'.repeat(i)}`,
      clientCode: CODES[i % 3]!,
      vsize: 141 + i,
      fee: 300 + 17 * i,
      marketRate: 1.5 + i / 10,
      status,
      createdAt: hour(i),
    };
  });
  // Rows of one instant, and rows a microsecond apart: the keyset walk must neither skip nor repeat them.
  const ties = ['2024-06-01T12:00:00.000001Z', '2024-06-01T12:00:00.000001Z', '2024-06-01T12:00:00.000002Z', '2024-06-01T12:00:00.000001Z', '2024-06-01T12:00:00.000000Z'].map(
    (createdAt, i): TxFixture => ({ txid: fakeTxid(`tie${i}`), txHex: '0300', clientCode: 'TIE', vsize: 200, fee: 1000, marketRate: 2, status: 'accepted', createdAt }),
  );
  const hostile = HOSTILE_CODES.map(
    (clientCode, i): TxFixture => ({ txid: fakeTxid(`hostile${i}`), txHex: '0400', clientCode, vsize: 150, fee: 450, marketRate: 3, status: 'accepted', createdAt: `2024-07-0${i + 1}T00:00:00.000000Z` }),
  );
  return [...regular, ...ties, ...hostile];
}

function packageFixtures(): PackageFixture[] {
  return Array.from({ length: 13 }, (_, i): PackageFixture => {
    const members = i % 4 === 0 ? 3 : 2;
    return {
      txids: Array.from({ length: members }, (_, m) => fakeTxid(`package${i}member${m}`)),
      txHexes: Array.from({ length: members }, (_, m) => `02${String(i).padStart(2, '0')}${String(m).padStart(2, '0')}`),
      clientCode: CODES[i % 3]!,
      totalVsize: i === 5 ? null : 300 + i,
      totalFee: i === 5 ? null : 900 + 10 * i,
      marketRate: i === 5 ? null : 2,
      createdAt: new Date(Date.UTC(2024, 4, 2, i, 30)).toISOString().replace('.000Z', '.000000Z'),
    };
  });
}

/** Newest first by (created_at, id), as the lists order them. Fixture times are fixed-width ISO text, so text order is time order. */
const newestFirst = (a: { createdAt: string; id?: number }, b: { createdAt: string; id?: number }) =>
  a.createdAt === b.createdAt ? b.id! - a.id! : a.createdAt < b.createdAt ? 1 : -1;

const msIso = (createdAt: string) => new Date(createdAt).toISOString();

for (const engine of testDatabases()) {
  describe(`GET /rest-api/tx-puller/list (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let viewerToken: string;
    let adminToken: string;
    const txs = txFixtures();
    const packages = packageFixtures();
    const listed = () => txs.filter((f) => f.status !== 'pending').sort(newestFirst);

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, undefined, { clock: fixedClock });
      viewerToken = t.tokens.viewer;
      adminToken = t.tokens.admin;
      for (const f of txs) await insertTx(db, f);
      for (const f of packages) await insertPackage(db, f);
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const request = (query: Record<string, string>, token: string | null = viewerToken) => staffGet(t.app, '/rest-api/tx-puller/list', query, token);

    const list = async (query: Record<string, string>, token: string | null = viewerToken) => {
      const res = await request(query, token);
      return { statusCode: res.statusCode, body: res.json<TxPullerListResponse & { message?: string }>() };
    };
    const txids = (body: TxPullerListResponse) => body.result.map((r) => (r as PulledTx).txid);
    const packageIds = (body: TxPullerListResponse) => body.result.map((r) => r.id);

    test('single transactions by default: accepted ones newest first, paged, with the totals over all pages', async () => {
      const expected = listed().map((f) => f.txid);
      assert.equal(expected.length, 32);
      const page1 = await list({});
      assert.equal(page1.statusCode, 200, page1.body.message);
      assert.deepEqual(txids(page1.body), expected.slice(0, 10), 'page 1 of 10 by default');
      assert.equal(page1.body.total_records, 32);
      assert.equal(page1.body.total_pages, 4);
      const page2 = await list({ page: '2', limit: '20', submission_type: 'tx_submissions' });
      assert.deepEqual(txids(page2.body), expected.slice(20));
      assert.equal(page2.body.total_pages, 2);
      const beyond = await list({ page: '5' });
      assert.deepEqual(beyond.body, { result: [], total_pages: 4, total_records: 32 });
    });

    test('a submission still pending with the node is never listed, and is once the node has taken it', async () => {
      const pending = txs.filter((f) => f.status === 'pending');
      assert.equal(pending.length, 2);
      const all = await list({ limit: '100' });
      for (const f of pending) {
        assert.ok(!txids(all.body).includes(f.txid), 'not in the list');
        assert.equal((await list({ txid: f.txid })).body.total_records, 0, 'not found by its txid');
      }
      const late: TxFixture = { txid: fakeTxid('late'), txHex: '0500', clientCode: 'LATE', vsize: 100, fee: 500, marketRate: 2, status: 'pending', createdAt: '2024-08-01T00:00:00.000000Z' };
      await insertTx(db, late);
      try {
        assert.equal((await list({ client_code: 'LATE' })).body.total_records, 0);
        await db.query("UPDATE tx_submissions SET status = 'accepted' WHERE id = $1", [late.id]);
        assert.deepEqual(txids((await list({ client_code: 'LATE' })).body), [late.txid]);
      } finally {
        await db.query('DELETE FROM tx_submissions WHERE id = $1', [late.id]);
      }
    });

    test('a transaction row carries the documented puller fields', async () => {
      const f = txs[3]!;
      const { body } = await list({ txid: f.txid });
      assert.deepEqual(body.result, [
        {
          id: f.id!,
          client_code: 'ACME10',
          timestamp: '2024-05-01T03:00:00.000Z',
          txid: f.txid,
          // 80 characters: shortened to its first and last 24, the whole length beside it.
          tx_hex: `${f.txHex.slice(0, 24)}…${f.txHex.slice(-24)}`,
          tx_hex_length: 80,
          tx_size: 144,
          fee_rate: 351 / 144,
          total_fee: 351,
          multiplier: 351 / 144 / 1.8,
        } satisfies PulledTx,
      ]);
    });

    test('pages never carry a long hex whole: it is one request per row away, and the download keeps it whole', async () => {
      const long: TxFixture = { txid: fakeTxid('long'), txHex: `02${'ab'.repeat(50_000)}00`, clientCode: 'LONG', vsize: 25_000, fee: 50_000, marketRate: 2, status: 'accepted', createdAt: '2024-08-02T00:00:00.000000Z' };
      await insertTx(db, long);
      try {
        const { body } = await list({ client_code: 'LONG' });
        const row = body.result[0] as PulledTx;
        assert.equal(row.tx_hex, `02${'ab'.repeat(11)}…${'ab'.repeat(11)}00`);
        assert.equal(row.tx_hex.length, 49);
        assert.equal(row.tx_hex_length, 100_004);
        const whole = await staffGet(t.app, `/rest-api/tx-puller/${row.id}/hex`, {}, viewerToken);
        assert.equal(whole.statusCode, 200);
        assert.deepEqual(whole.json(), { id: row.id, txids: [long.txid], txs_hex: [long.txHex] });
        const csv = await request({ client_code: 'LONG', download: 'true' });
        assert.ok(csv.body.includes(long.txHex), 'the download keeps the whole hex');
      } finally {
        await db.query('DELETE FROM tx_submissions WHERE id = $1', [long.id]);
      }
      const p = packages[4]!;
      const members = await staffGet(t.app, `/rest-api/tx-puller/${p.id!}/hex`, { submission_type: 'package_submissions' }, viewerToken);
      assert.deepEqual(members.json(), { id: p.id, txids: p.txids, txs_hex: p.txHexes });
      assert.equal((await staffGet(t.app, '/rest-api/tx-puller/999999/hex', {}, viewerToken)).statusCode, 404);
      const pending = txs.find((f) => f.status === 'pending')!;
      assert.equal((await staffGet(t.app, `/rest-api/tx-puller/${pending.id!}/hex`, {}, viewerToken)).statusCode, 404, 'a pending row is not shown');
      assert.equal((await staffGet(t.app, `/rest-api/tx-puller/${p.id!}/hex`, {}, null)).statusCode, 401);
    });

    test('filters: client code exactly, a txid in any case, dates inclusive at both ends; they combine', async () => {
      const check = async (query: Record<string, string>, keep: (f: TxFixture) => boolean, label: string) => {
        const res = await list({ limit: '100', ...query });
        assert.equal(res.statusCode, 200, `${label}: ${res.body.message}`);
        const expected = listed().filter(keep).map((f) => f.txid);
        assert.deepEqual(txids(res.body), expected, label);
        assert.equal(res.body.total_records, expected.length, label);
        return expected.length;
      };
      const counts = {
        acme: await check({ client_code: 'ACME10' }, (f) => f.clientCode === 'ACME10', 'client code'),
        acmeTrimmed: await check({ client_code: ' ACME10 ' }, (f) => f.clientCode === 'ACME10', 'client code, trimmed'),
        acmeLower: await check({ client_code: 'acme10' }, () => false, 'client code is exact'),
        blank: await check({ client_code: ' ', txid: '' }, () => true, 'blank filters'),
        txid: await check({ txid: ` ${txs[7]!.txid.toUpperCase()} ` }, (f) => f === txs[7], 'txid in upper case'),
        prefix: await check({ txid: txs[7]!.txid.slice(0, 10) }, (f) => f === txs[7], 'the first 10 characters the table shows'),
        firstChar: await check({ txid: txs[7]!.txid.slice(0, 1).toUpperCase() }, (f) => f.txid.startsWith(txs[7]!.txid.slice(0, 1)), 'every txid with that first character'),
        end: await check({ txid: txs[7]!.txid.slice(-10) }, () => false, 'the end of a txid is not its start'),
        wildcard: await check({ txid: '%' }, () => false, 'a LIKE wildcard is taken literally'),
        day: await check({ from_date: '2024-05-01 05:00:00', to_date: '2024-05-01 08:00:00' }, (f) => f.createdAt >= hour(5) && f.createdAt <= hour(8), 'hours 5 to 8'),
        spelled: await check({ from_date: '2024-05-01 00:00:00', to_date: '2024-05-01 04: 00: 00' }, (f) => f.createdAt <= hour(4), "'23: 59: 59' spelling"),
        combined: await check({ client_code: 'BETA', from_date: '2024-05-01 06:00:00', to_date: '2024-05-31 23:59:59' }, (f) => f.clientCode === 'BETA' && f.createdAt >= hour(6) && f.createdAt < '2024-06', 'combined'),
      };
      // Each filter kept some rows and dropped others, so none passed by accident.
      const { firstChar, ...fixed } = counts;
      assert.ok(firstChar > 1, 'several txids share that first character');
      assert.deepEqual(fixed, { acme: 7, acmeTrimmed: 7, acmeLower: 0, blank: 32, txid: 1, prefix: 1, end: 0, wildcard: 0, day: 4, spelled: 4, combined: 5 });
    });

    test('packages: the other tab, newest first, with lists of txids and hexes; a txid finds the package holding it', async () => {
      const expected = [...packages].sort(newestFirst);
      const res = await list({ submission_type: 'package_submissions', limit: '10' });
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(packageIds(res.body), expected.slice(0, 10).map((p) => p.id));
      assert.equal(res.body.total_records, 13);
      assert.equal(res.body.total_pages, 2);

      const p = packages[8]!;
      const byMember = await list({ submission_type: 'package_submissions', txid: p.txids[2]! });
      assert.deepEqual(byMember.body.result, [
        {
          id: p.id!,
          client_code: 'BETA',
          timestamp: '2024-05-02T08:30:00.000Z',
          txids: p.txids,
          // Six characters each: short enough to be shown whole.
          txs_hex: p.txHexes,
          txs_hex_length: [6, 6, 6],
          tx_size: 308,
          fee_rate: 980 / 308,
          total_fee: 980,
          multiplier: 980 / 308 / 2,
        } satisfies PulledPackage,
      ]);
      const unknown = await list({ submission_type: 'package_submissions', txid: packages[5]!.txids[0]! });
      assert.deepEqual(unknown.body.result.map((r) => [r.tx_size, r.fee_rate, r.total_fee, r.multiplier]), [[null, null, null, null]], 'unrecorded amounts are null');
      const byStart = await list({ submission_type: 'package_submissions', txid: p.txids[1]!.slice(0, 10) });
      assert.deepEqual(packageIds(byStart.body), [p.id], 'the start of a member, as the table shows it');
      // A package member is not a single transaction, and the reverse.
      assert.equal((await list({ txid: p.txids[0]! })).body.total_records, 0);
      assert.equal((await list({ submission_type: 'package_submissions', txid: txs[0]!.txid })).body.total_records, 0);

      const beta = await list({ submission_type: 'package_submissions', client_code: 'BETA', from_date: '2024-05-02 05:00:00', limit: '100' });
      assert.deepEqual(packageIds(beta.body), expected.filter((f) => f.clientCode === 'BETA' && f.createdAt >= '2024-05-02T05').map((f) => f.id));
      assert.equal(beta.body.total_records, 3);
    });

    test('the download is every matching row as CSV, in list order, with the screen\'s column titles', async () => {
      // page and limit do not cut the file.
      const res = await request({ download: 'true', page: '2', limit: '10' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
      assert.equal(res.headers['content-disposition'], 'attachment; filename="tx-puller-tx_submissions-report-2025-03-09-07-05-03.csv"');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.ok(res.body.endsWith('\r\n'));
      const [header, ...rows] = parseCsv(res.body);
      assert.deepEqual(header, [...TX_PULLER_CSV_HEADER]);
      assert.deepEqual(header, ['Sno', 'Client Code', 'Timestamp', 'Tx ID', 'Tx Hex', 'TX SIZE', 'FeeRate', 'Total Fee', 'Slipstream Multiple']);
      const expected = listed();
      assert.equal(rows.length, expected.length);
      assert.deepEqual(rows.map((r) => r[3]), expected.map((f) => f.txid), 'every accepted transaction, newest first, no pending one');
      const f = txs[3]!;
      assert.deepEqual(rows.find((r) => r[3] === f.txid)!.slice(1), ['ACME10', '2024-05-01T03:00:00.000Z', f.txid, f.txHex, '144', String(351 / 144), '351', String(351 / 144 / 1.8)]);
      assert.deepEqual(rows.map((r) => r[0]), expected.map((_, i) => String(i + 1)), 'numbered from 1');
      assert.equal(rows.find((r) => r[3] === txs[1]!.txid)![1], '', 'no client code: an empty field');
    });

    test('the download follows the filters', async () => {
      const res = await request({ download: 'true', client_code: 'ACME10', from_date: '2024-05-01 06:00:00', to_date: '2024-05-01 23:59:59' });
      const rows = parseCsv(res.body).slice(1);
      const expected = listed().filter((f) => f.clientCode === 'ACME10' && f.createdAt >= hour(6) && f.createdAt < '2024-05-02');
      assert.ok(expected.length >= 3);
      assert.deepEqual(rows.map((r) => r[3]), expected.map((f) => f.txid));
      const none = await request({ download: 'true', client_code: 'NOBODY' });
      assert.equal(none.statusCode, 200);
      assert.equal(none.body, `${TX_PULLER_CSV_HEADER.join(',')}\r\n`, 'the header alone');
    });

    test('client codes a spreadsheet would run as formulas are neutralised, and commas and quotes escaped', async () => {
      const res = await request({ download: 'true', from_date: '2024-07-01 00:00:00', to_date: '2024-07-31 23:59:59' });
      const rows = parseCsv(res.body).slice(1);
      assert.deepEqual(
        rows.map((r) => r[1]).reverse(),
        ["'=HYPERLINK(\"http://evil.example\",\"click\")", "'-1+1", "'@SUM(1)", "'+cmd", "'\tTAB", 'A,B "quoted"'],
      );
      assert.ok(res.body.includes(`,"'=HYPERLINK(""http://evil.example"",""click"")",`), 'quoted, inner quotes doubled');
      assert.ok(res.body.includes(',"A,B ""quoted""",'));
      // The list itself shows them as they are.
      const { body } = await list({ from_date: '2024-07-06 00:00:00', to_date: '2024-07-06 23:59:59' });
      assert.equal(body.result[0]?.client_code, 'A,B "quoted"');
    });

    test('the packages download: its own file name, lists in one cell each', async () => {
      const res = await request({ download: 'true', submission_type: 'package_submissions' });
      assert.equal(res.headers['content-disposition'], 'attachment; filename="tx-puller-package_submissions-report-2025-03-09-07-05-03.csv"');
      const [header, ...rows] = parseCsv(res.body);
      assert.deepEqual(header, [...TX_PULLER_CSV_HEADER]);
      const expected = [...packages].sort(newestFirst);
      assert.deepEqual(rows.map((r) => r[3]), expected.map((p) => p.txids.join(',')));
      assert.deepEqual(rows.map((r) => r[4]), expected.map((p) => p.txHexes.join(',')));
      assert.ok(res.body.includes(`,"${packages[0]!.txids.join(',')}",`), 'a list is one quoted field');
      const unknown = rows.find((r) => r[3] === packages[5]!.txids.join(','))!;
      assert.deepEqual(unknown.slice(5), ['', '', '', ''], 'unrecorded amounts are empty');
    });

    test('the keyset walk of a download reads each row once, whatever the batch size, ties and microseconds included', async () => {
      const pageOrder = (await list({ limit: '100' })).body.result.map((r) => r.id);
      const tieOrder = txs.filter((f) => f.clientCode === 'TIE').sort(newestFirst).map((f) => f.id);
      const walk = async (batches: AsyncIterable<Array<{ id: number }>>) => {
        const ids: number[] = [];
        for await (const batch of batches) ids.push(...batch.map((r) => r.id));
        return ids;
      };
      for (const size of [1, 2, 3, 7, 1000]) {
        assert.deepEqual(await walk(txSubmissionBatches(db, submissionFilters({}), size)), pageOrder, `batch size ${size}`);
        assert.deepEqual(await walk(txSubmissionBatches(db, submissionFilters({ client_code: 'TIE' }), size)), tieOrder, `ties, batch size ${size}`);
      }
      assert.deepEqual(tieOrder.length, 5);
      const packageOrder = (await list({ submission_type: 'package_submissions', limit: '100' })).body.result.map((r) => r.id);
      assert.deepEqual(await walk(packageSubmissionBatches(db, submissionFilters({}), 4)), packageOrder);
      assert.equal(msIso('2024-06-01T12:00:00.000002Z'), '2024-06-01T12:00:00.000Z', 'the tied rows share one millisecond');
    });

    test('any signed-in staff member may read and download; nobody else', async () => {
      assert.equal((await list({}, adminToken)).statusCode, 200);
      assert.equal((await list({}, viewerToken)).statusCode, 200);
      assert.equal((await request({ download: 'true' }, viewerToken)).statusCode, 200);
      for (const token of [null, 'not-a-token']) {
        for (const query of [{}, { download: 'true' }] as Array<Record<string, string>>) {
          const res = await request(query, token);
          assert.equal(res.statusCode, 401, `${JSON.stringify(query)} with ${token}`);
          assert.match(res.headers['content-type'] ?? '', /application\/json/, 'an error, not a file');
        }
      }
    });

    test('bad parameters are 400s with a message, for the list and the download alike', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ submission_type: 'packages' }, /submission_type/],
        [{ limit: '15' }, /limit/],
        [{ page: '0' }, /page/],
        [{ download: 'yes' }, /download/],
        [{ foo: 'bar' }, /Unknown field 'foo'/],
        [{ from_date: '2024-02-30 00:00:00' }, /^from_date must be a date and time/],
        [{ from_date: '2024-06-12 00:00:00', to_date: '2024-06-11 23:59:59' }, /to_date cannot be earlier than from_date/],
        [{ download: 'true', to_date: '2024-06-11' }, /^to_date must be/],
      ];
      for (const [query, message] of cases) {
        const res = await list(query);
        assert.equal(res.statusCode, 400, JSON.stringify(query));
        assert.match(res.body.message ?? '', message, JSON.stringify(query));
      }
    });

    test('SQL in the text filters is data, not code', async () => {
      const queries: Array<Record<string, string>> = [{ client_code: "' OR '1'='1" }, { txid: "x'; DROP TABLE tx_submissions; --" }, { txid: "') OR true --", submission_type: 'package_submissions' }];
      for (const query of queries) {
        const res = await list(query);
        assert.deepEqual(res.body, { result: [], total_pages: 0, total_records: 0 }, JSON.stringify(query));
      }
      assert.equal((await list({})).body.total_records, 32);
    });
  });
}
