import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../src/lib/clock.ts';
import { submissionFilters } from '../src/modules/accepted-submissions/accepted-submissions.query.ts';
import { reportBatches } from '../src/modules/tx-reports/tx-reports.repository.ts';
import type { TxReportListResponse, TxReportRow } from '../src/modules/tx-reports/tx-reports.schemas.ts';
import { premiumSats, TX_REPORT_CSV_HEADER } from '../src/modules/tx-reports/tx-reports.service.ts';
import { staffGet, startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { fakeTxid, insertPackage, insertTx, parseCsv, type PackageFixture, type TxFixture, type TxStatus } from './helpers/submission-fixtures.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * GET /rest-api/tx-reports/list (docs/behaviour.md#tx-reports, docs/behaviour.md#data-shapes "Tx
 * report row") against submission rows written straight into the
 * database: single transactions and packages merged newest first, revenue
 * and premium, the filters, paging, the CSV download, and that a submission
 * still pending with the node is never reported.
 */

const NOW = new Date('2025-03-09T07:05:03.250Z');
const fixedClock: Clock = { now: () => new Date(NOW) };

const at = (day: number, h: number, m = 0) => new Date(Date.UTC(2024, 4, day, h, m)).toISOString().replace('.000Z', '.000000Z');
const CODES = ['ACME10', null, 'BETA'] as const;

function txFixtures(): TxFixture[] {
  const regular = Array.from({ length: 15 }, (_, i): TxFixture => {
    const status: TxStatus = i === 2 || i === 10 ? 'pending' : i % 4 === 1 ? 'confirmed' : 'accepted';
    return {
      txid: fakeTxid(`report-tx${i}`),
      txHex: '0200',
      clientCode: CODES[i % 3]!,
      vsize: 141 + i,
      // Every third pays less than the market rate (a discounted client): no premium.
      fee: i % 3 === 1 ? 100 + i : 300 + 17 * i,
      marketRate: 1.5 + i / 10,
      status,
      createdAt: at(1, i),
    };
  });
  return [
    ...regular,
    // Rounding: 1.5 × 141 = 211.5 sats at the market rate, rounded to 212.
    { txid: fakeTxid('half'), txHex: '0200', clientCode: 'HALF', vsize: 141, fee: 300, marketRate: 1.5, status: 'accepted', createdAt: at(3, 0) },
    // The same instant as a package, and microseconds apart: the merged order and the keyset walk must hold.
    { txid: fakeTxid('tie-a'), txHex: '0200', clientCode: 'TIE', vsize: 100, fee: 500, marketRate: 2, status: 'accepted', createdAt: '2024-05-04T00:00:00.000001Z' },
    { txid: fakeTxid('tie-b'), txHex: '0200', clientCode: 'TIE', vsize: 100, fee: 500, marketRate: 2, status: 'accepted', createdAt: '2024-05-04T00:00:00.000001Z' },
    { txid: fakeTxid('tie-c'), txHex: '0200', clientCode: 'TIE', vsize: 100, fee: 500, marketRate: 2, status: 'accepted', createdAt: '2024-05-04T00:00:00.000002Z' },
    { txid: fakeTxid('hostile'), txHex: '0200', clientCode: '=1+2', vsize: 100, fee: 500, marketRate: 2, status: 'accepted', createdAt: at(5, 0) },
  ];
}

function packageFixtures(): PackageFixture[] {
  const regular = Array.from({ length: 6 }, (_, i): PackageFixture => ({
    txids: [fakeTxid(`report-package${i}a`), fakeTxid(`report-package${i}b`)],
    txHexes: ['0200', '0300'],
    clientCode: CODES[(i + 1) % 3]!,
    totalVsize: i === 3 ? null : 300 + i,
    totalFee: i === 3 ? null : i === 4 ? 200 : 1500 + i,
    marketRate: i === 3 ? null : 2.5,
    createdAt: at(1, 2 * i + 1, 30),
  }));
  const ties = ['2024-05-04T00:00:00.000001Z', '2024-05-04T00:00:00.000001Z', '2024-05-04T00:00:00.000000Z'].map(
    (createdAt, i): PackageFixture => ({ txids: [fakeTxid(`tie-package${i}`)], txHexes: ['0200'], clientCode: 'TIE', totalVsize: 100, totalFee: 500, marketRate: 2, createdAt }),
  );
  // A package whose market rate was not recorded: no premium can be said.
  return [...regular, ...ties];
}

interface Expected {
  kind: 'tx' | 'package';
  id: number;
  createdAt: string;
  txid: string | string[];
  clientCode: string | null;
  size: number | null;
  fee: number | null;
  marketRate: number | null;
}

/** Newest first; a single transaction before a package of the same instant; then the higher id first. */
function reportOrder(a: Expected, b: Expected): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  if (a.kind !== b.kind) return a.kind === 'tx' ? -1 : 1;
  return b.id - a.id;
}

for (const engine of testDatabases()) {
  describe(`GET /rest-api/tx-reports/list (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let viewerToken: string;
    let adminToken: string;
    const txs = txFixtures();
    const packages = packageFixtures();
    const expected = (): Expected[] =>
      [
        ...txs.filter((f) => f.status !== 'pending').map((f): Expected => ({ kind: 'tx', id: f.id!, createdAt: f.createdAt, txid: f.txid, clientCode: f.clientCode, size: f.vsize, fee: f.fee, marketRate: f.marketRate })),
        ...packages.map((f): Expected => ({ kind: 'package', id: f.id!, createdAt: f.createdAt, txid: f.txids, clientCode: f.clientCode, size: f.totalVsize, fee: f.totalFee, marketRate: f.marketRate })),
      ].sort(reportOrder);
    const key = (e: Expected) => `${e.kind}-${e.id}`;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, undefined, { clock: fixedClock });
      viewerToken = t.tokens.viewer;
      adminToken = t.tokens.admin;
      // Interleaved, so that ids do not follow the tables' times.
      for (let i = 0; i < Math.max(txs.length, packages.length); i++) {
        if (packages[i]) await insertPackage(db, packages[i]!);
        if (txs[i]) await insertTx(db, txs[i]!);
      }
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const request = (query: Record<string, string>, token: string | null = viewerToken) => staffGet(t.app, '/rest-api/tx-reports/list', query, token);
    const list = async (query: Record<string, string>, token: string | null = viewerToken) => {
      const res = await request(query, token);
      return { statusCode: res.statusCode, body: res.json<TxReportListResponse & { message?: string }>() };
    };
    const keys = (body: TxReportListResponse) => body.result.map((r) => r.id);

    test('single transactions and packages, merged newest first and paged, with the totals over all pages', async () => {
      const all = expected().map(key);
      assert.equal(all.length, 18 + 9);
      const page1 = await list({});
      assert.equal(page1.statusCode, 200, page1.body.message);
      assert.deepEqual(keys(page1.body), all.slice(0, 10));
      assert.equal(page1.body.total_records, 27);
      assert.equal(page1.body.total_pages, 3);
      for (const page of [2, 3]) assert.deepEqual(keys((await list({ page: String(page) })).body), all.slice((page - 1) * 10, page * 10), `page ${page}`);
      const twenty = await list({ page: '2', limit: '20' });
      assert.deepEqual(keys(twenty.body), all.slice(20));
      assert.deepEqual((await list({ page: '4' })).body, { result: [], total_pages: 3, total_records: 27 });
      const kinds = new Set(page1.body.result.map((r) => r.kind));
      assert.deepEqual([...kinds].sort(), ['package', 'tx'], 'both kinds on the first page');
    });

    test('a submission still pending with the node is never reported', async () => {
      const { body } = await list({ limit: '100' });
      for (const f of txs.filter((x) => x.status === 'pending')) {
        assert.ok(!body.result.some((r) => r.txid === f.txid));
        assert.equal((await list({ txid: f.txid })).body.total_records, 0);
        const csv = await request({ download: 'true', txid: f.txid });
        assert.equal(parseCsv(csv.body).length, 1, 'the download has the header only');
      }
    });

    test('a row carries the report fields: size, fee rate, multiple, revenue and premium in sats', async () => {
      const f = txs[3]!; // 144 vB, 351 sats, market 1.8 sat/vB: 259.2 → 259 at the market, 92 above it
      const single = await list({ txid: f.txid });
      assert.deepEqual(single.body.result, [
        {
          id: `tx-${f.id}`,
          kind: 'tx',
          timestamp: '2024-05-01T03:00:00.000Z',
          txid: f.txid,
          client_code: 'ACME10',
          size_bytes: 144,
          fee_rate: 351 / 144,
          slipstream_multiplier: 351 / 144 / 1.8,
          revenue: 351,
          premium: 92,
          public_network: null,
          public_network_by_policy: null,
        } satisfies TxReportRow,
      ]);
      const p = packages[0]!; // 300 vB, 1500 sats, market 2.5: 750 at the market, 750 above it
      const pkg = await list({ txid: p.txids[1]! });
      assert.deepEqual(pkg.body.result, [
        {
          id: `package-${p.id}`,
          kind: 'package',
          timestamp: '2024-05-01T01:30:00.000Z',
          txid: p.txids,
          client_code: null,
          size_bytes: 300,
          fee_rate: 1500 / 300,
          slipstream_multiplier: 1500 / 300 / 2.5,
          revenue: 1500,
          premium: 750,
          public_network: null,
          public_network_by_policy: null,
        } satisfies TxReportRow,
      ]);
    });

    test('Public network: whether ordinary nodes would have relayed it, as judged when it was accepted (migration 018)', async () => {
      const [a, b, c] = [txs[3]!, txs[4]!, txs[5]!];
      await db.query("UPDATE tx_submissions SET standard_verdict = 'non-standard', standard_reason = 'dust' WHERE id = $1", [a.id]);
      await db.query("UPDATE tx_submissions SET standard_verdict = 'standard' WHERE id = $1", [b.id]);
      await db.query("UPDATE tx_submissions SET standard_verdict = 'unknown' WHERE id = $1", [c.id]);
      try {
        const shown = async (txid: string) => (await list({ txid })).body.result[0]?.public_network;
        assert.equal(await shown(a.txid), 'non-standard: dust');
        assert.equal(await shown(b.txid), 'standard');
        assert.equal(await shown(c.txid), 'unknown');
        // Per relay policy, as recorded (migration 031): the line as kept.
        const line = 'core: standard; core-29: non-standard (scriptpubkey); knots: unknown';
        await db.query('UPDATE tx_submissions SET relay_policies = $2 WHERE id = $1', [b.id, line]);
        assert.equal((await list({ txid: b.txid })).body.result[0]?.public_network_by_policy, line);
      } finally {
        await db.query('UPDATE tx_submissions SET standard_verdict = NULL, standard_reason = NULL, relay_policies = NULL WHERE id = ANY($1)', [[a.id, b.id, c.id]]);
      }
    });

    test('premium is max(0, fee − round(market rate × vsize)): never negative, rounded to whole sats, null when unknown', async () => {
      const half = await list({ client_code: 'HALF' });
      assert.equal(half.body.result[0]?.premium, 300 - 212, '1.5 × 141 = 211.5 rounds to 212');
      const { body } = await list({ limit: '100' });
      const byKey = new Map(body.result.map((r) => [r.id, r]));
      let zero = 0;
      let unknown = 0;
      for (const e of expected()) {
        const row = byKey.get(key(e))!;
        assert.equal(row.revenue, e.fee, key(e));
        if (e.fee === null || e.marketRate === null || e.size === null) {
          assert.equal(row.premium, null, key(e));
          unknown++;
          continue;
        }
        const owed = e.fee - Math.round(e.marketRate * e.size);
        assert.equal(row.premium, Math.max(0, owed), key(e));
        assert.ok(row.premium >= 0, `${key(e)}: ${row.premium}`);
        if (owed < 0) zero++;
      }
      // The fixtures hold fees under the market rate and an unrecorded one, so the clamp and the null were both exercised.
      assert.ok(zero >= 5, `${zero} rows paid under the market rate`);
      assert.equal(unknown, 1);
      assert.equal(premiumSats(100, 2, 100), 0);
      assert.equal(premiumSats(201, 2, 100), 1);
      assert.equal(premiumSats(null, 2, 100), null);
    });

    test('filters: a txid finds a transaction or the package holding it; client code exactly; dates inclusive; they combine', async () => {
      const check = async (query: Record<string, string>, keep: (e: Expected) => boolean, label: string) => {
        const res = await list({ limit: '100', ...query });
        assert.equal(res.statusCode, 200, `${label}: ${res.body.message}`);
        const want = expected().filter(keep).map(key);
        assert.deepEqual(keys(res.body), want, label);
        assert.equal(res.body.total_records, want.length, label);
        return want.length;
      };
      const counts = {
        txid: await check({ txid: txs[5]!.txid.toUpperCase() }, (e) => e.txid === txs[5]!.txid, 'a transaction, upper case'),
        member: await check({ txid: ` ${packages[2]!.txids[0]} ` }, (e) => e.kind === 'package' && e.id === packages[2]!.id, 'a package member'),
        code: await check({ client_code: 'BETA' }, (e) => e.clientCode === 'BETA', 'client code'),
        dates: await check({ from_date: '2024-05-01 03:00:00', to_date: '2024-05-01 07:30:00' }, (e) => e.createdAt >= at(1, 3) && e.createdAt <= at(1, 7, 30), 'dates'),
        combined: await check({ client_code: 'ACME10', from_date: '2024-05-01 04:00:00', to_date: '2024-05-01 23:59:59' }, (e) => e.clientCode === 'ACME10' && e.createdAt >= at(1, 4) && e.createdAt < at(2, 0), 'combined'),
        nothing: await check({ txid: fakeTxid('no such transaction') }, () => false, 'unknown txid'),
        // The table shows txids shortened to their first and last 10 characters: the start finds them.
        start: await check({ txid: txs[5]!.txid.slice(0, 10) }, (e) => e.txid === txs[5]!.txid, 'the start of a transaction'),
        memberStart: await check({ txid: packages[2]!.txids[1]!.slice(0, 10).toUpperCase() }, (e) => e.kind === 'package' && e.id === packages[2]!.id, 'the start of a package member'),
        end: await check({ txid: txs[5]!.txid.slice(-10) }, () => false, 'the end of a txid is not its start'),
        wildcard: await check({ txid: '_' }, () => false, 'a LIKE wildcard is taken literally'),
      };
      const firstChar = txs[5]!.txid.slice(0, 1);
      const sharing = await check({ txid: firstChar }, (e) => (Array.isArray(e.txid) ? e.txid : [e.txid]).some((t) => t.startsWith(firstChar)), 'every row with a txid of that first character');
      assert.ok(sharing > 1, 'several rows share that first character');
      assert.deepEqual(counts, { txid: 1, member: 1, code: 6, dates: 8, combined: 5, nothing: 0, start: 1, memberStart: 1, end: 0, wildcard: 0 });
    });

    test('the download is every matching row as CSV in report order, with the screen\'s column titles', async () => {
      const res = await request({ download: 'true', page: '3', limit: '10' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
      assert.equal(res.headers['content-disposition'], 'attachment; filename="tx-report-2025-03-09-07-05-03.csv"');
      const [header, ...rows] = parseCsv(res.body);
      assert.deepEqual(header, [...TX_REPORT_CSV_HEADER]);
      assert.deepEqual(header, ['S.No', 'Timestamp', 'Payment Tx(s)', 'Client code', 'Tx Size (vBytes)', 'AVG FEERATE (SAT/VBYTE)', 'Slipstream Multiple', 'Revenue (sats)', 'Premium (Sats)', 'Public network', 'Public network by policy']);
      const want = expected();
      assert.deepEqual(rows.map((r) => r[2]), want.map((e) => (Array.isArray(e.txid) ? e.txid.join(',') : e.txid)));
      assert.deepEqual(rows.map((r) => r[0]), want.map((_, i) => String(i + 1)));
      // The same figures as the list.
      const { body } = await list({ limit: '100' });
      assert.deepEqual(
        rows.map((r) => r.slice(4)),
        body.result.map((r) => [r.size_bytes, r.fee_rate, r.slipstream_multiplier, r.revenue, r.premium, r.public_network, r.public_network_by_policy].map((v) => (v === null ? '' : String(v)))),
      );
      assert.ok(rows.every((r) => r[8] === '' || Number(r[8]) >= 0), 'no negative premium');
      const p = packages[0]!;
      assert.ok(res.body.includes(`,"${p.txids.join(',')}",`), "a package's txids are one quoted field");
      assert.ok(res.body.includes(",'=1+2,"), 'a formula-like client code is neutralised');
    });

    test('the download follows the filters', async () => {
      const res = await request({ download: 'true', client_code: 'TIE' });
      const rows = parseCsv(res.body).slice(1);
      assert.deepEqual(rows.map((r) => r[2]), expected().filter((e) => e.clientCode === 'TIE').map((e) => (Array.isArray(e.txid) ? e.txid.join(',') : e.txid)));
      assert.equal(rows.length, 6);
    });

    test('the keyset walk of a download reads each row once, ties between tables and microseconds included', async () => {
      const walk = async (filters: Record<string, string>, size: number) => {
        const ids: string[] = [];
        for await (const batch of reportBatches(db, submissionFilters(filters), size)) ids.push(...batch.map((r) => `${r.kind === 1 ? 'tx' : 'package'}-${r.id}`));
        return ids;
      };
      const all = expected().map(key);
      const ties = expected().filter((e) => e.clientCode === 'TIE').map(key);
      for (const size of [1, 2, 3, 5, 1000]) {
        assert.deepEqual(await walk({}, size), all, `batch size ${size}`);
        assert.deepEqual(await walk({ client_code: 'TIE' }, size), ties, `ties, batch size ${size}`);
      }
      // The tied instant holds both kinds.
      const tiedKinds = expected().filter((e) => e.createdAt === '2024-05-04T00:00:00.000001Z').map((e) => e.kind);
      assert.deepEqual(tiedKinds, ['tx', 'tx', 'package', 'package']);
    });

    test('any signed-in staff member may read and download; nobody else', async () => {
      assert.equal((await list({}, adminToken)).statusCode, 200);
      assert.equal((await request({ download: 'true' }, viewerToken)).statusCode, 200);
      for (const token of [null, 'not-a-token']) {
        assert.equal((await list({}, token)).statusCode, 401);
        const download = await request({ download: 'true' }, token);
        assert.equal(download.statusCode, 401);
        assert.equal(download.headers['content-disposition'], undefined, 'no file');
      }
    });

    test('bad parameters are 400s with a message', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ limit: '25' }, /limit/],
        [{ submission_type: 'tx_submissions' }, /Unknown field 'submission_type'/],
        [{ download: '1x' }, /download/],
        [{ from_date: 'yesterday' }, /^from_date must be/],
        [{ download: 'true', from_date: '2024-06-12 00:00:00', to_date: '2024-06-11 23:59:59' }, /to_date cannot be earlier than from_date/],
      ];
      for (const [query, message] of cases) {
        const res = await list(query);
        assert.equal(res.statusCode, 400, JSON.stringify(query));
        assert.match(res.body.message ?? '', message, JSON.stringify(query));
      }
    });
  });
}
