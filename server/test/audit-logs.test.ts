import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { systemClock } from '../src/lib/clock.ts';
import type { AuditLogListResponse, AuditLogRow } from '../src/modules/audit-logs/audit-logs.schemas.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { staffToken, TEST_AUTH_KEY } from './helpers/staff-app.ts';

/**
 * GET /rest-api/audits/list (docs/behaviour.md#staff-calls) against audit rows written
 * straight into the database. Those rows all lie in 2024; the app audits this
 * test's own requests too (at the time they are made), so every assertion on
 * totals either confines itself to 2024 with from/to dates or filters on
 * something the test's own requests never carry (their IP is 127.0.0.1).
 */

const CLIENT_ID = 'slipstream-portal';
const ADMIN_GROUP = 'app-slipstream-users';
const YEAR_2024 = { from_date: '2024-01-01 00:00:00', to_date: '2024-12-31 23:59:59' };

interface Fixture {
  id?: number;
  ip: string;
  endpoint: string;
  method: string;
  clientCode: string | null;
  requestAt: Date;
  requestPayload: string | null;
  responsePayload: string | null;
  responseTimeMs: number | null;
  errorMessage: string | null;
  sourceType: 'Internal' | 'External';
  isSuccess: boolean;
}

const ENDPOINTS = ['/rest-api/submit-tx', '/rest-api/parse-tx', '/rest-api/Submit-Package', '/rest-api/status-check', '/rest-api/getinfo'];

/** 25 requests an hour apart on 1 March 2024, varied in every filtered column. */
function marchRows(): Fixture[] {
  return Array.from({ length: 25 }, (_, i) => {
    const endpoint = ENDPOINTS[i % ENDPOINTS.length]!;
    const isSuccess = i % 3 !== 0;
    return {
      ip: i % 6 === 0 ? '203.0.113.7' : `198.51.100.${i + 1}`,
      endpoint,
      method: i === 7 ? 'DELETE' : /status-check|getinfo/.test(endpoint) ? 'GET' : 'POST',
      clientCode: i % 4 === 0 ? 'ACME10' : i % 4 === 1 ? 'NOCLIENT' : null,
      requestAt: new Date(Date.UTC(2024, 2, 1, i)),
      requestPayload: `{"n":${i}}`,
      responsePayload: isSuccess ? '{"status":"success"}' : '{"status":"error","message":"rejected"}',
      responseTimeMs: i % 7 === 0 ? null : 10 + i / 2,
      errorMessage: isSuccess ? null : 'rejected',
      sourceType: i % 2 === 0 ? 'External' : 'Internal',
      isSuccess,
    };
  });
}

/** Rows just either side of the range 2024-06-10 00:00:00 to 2024-06-11 23:59:59. */
const BOUNDARY_TIMES = ['2024-06-09T23:59:59.999Z', '2024-06-10T00:00:00.000Z', '2024-06-11T23:59:59.999Z', '2024-06-12T00:00:00.000Z'];

function boundaryRows(): Fixture[] {
  return BOUNDARY_TIMES.map((iso) => ({
    ip: '192.0.2.50',
    endpoint: '/rest-api/boundary',
    method: 'GET',
    clientCode: null,
    requestAt: new Date(iso),
    requestPayload: null,
    responsePayload: null,
    responseTimeMs: 1,
    errorMessage: null,
    sourceType: 'External',
    isSuccess: true,
  }));
}

/** An IPv4 client as Node reports it when listening on '::'. */
const MAPPED: Fixture = { ...boundaryRows()[0]!, ip: '::ffff:198.51.100.200', endpoint: '/rest-api/getinfo', requestAt: new Date('2024-07-01T12:00:00Z') };

const newestFirst = (a: Fixture, b: Fixture) => b.requestAt.getTime() - a.requestAt.getTime() || b.id! - a.id!;

for (const engine of testDatabases()) {
  describe(`GET /rest-api/audits/list (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let viewerToken: string;
    let adminToken: string;
    const fixtures: Fixture[] = [...marchRows(), ...boundaryRows(), MAPPED];

    before(async () => {
      db = await engine.open();
      const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
      // No node is needed: nothing here reaches it.
      const rpc = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 500, maxConcurrency: 1 });
      t = await startTestApp(undefined, db, {
        rpc,
        staff: { verifier: issuer, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
      });
      viewerToken = await staffToken(db, issuer, 'watcher', false);
      adminToken = await staffToken(db, issuer, 'root', true);

      const { rows } = await db.query<{ id: number }>(
        "INSERT INTO clients (name) VALUES ('Acme Mining') RETURNING id",
      );
      await db.query(
        `INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until)
         VALUES ('ACME10', $1, 15, '2024-01-01T00:00:00Z', '2030-01-01T00:00:00Z')`,
        [rows[0]!.id],
      );
      for (const f of fixtures) {
        const inserted = await db.query<{ id: number }>(
          `INSERT INTO audit_logs (ip_address, endpoint, http_method, client_code, request_at, request_payload,
             response_payload, response_time_ms, error_message, source_type, is_success)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
          [f.ip, f.endpoint, f.method, f.clientCode, f.requestAt, f.requestPayload, f.responsePayload, f.responseTimeMs, f.errorMessage, f.sourceType, f.isSuccess],
        );
        f.id = inserted.rows[0]!.id;
      }
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const list = async (query: Record<string, string>, token: string | null = viewerToken) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/rest-api/audits/list?${new URLSearchParams(query).toString()}`,
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      });
      return { statusCode: res.statusCode, body: res.json<AuditLogListResponse & { message?: string }>() };
    };

    /** The ids a filter should return, newest first, computed from the fixtures. */
    const expectedIds = (keep: (f: Fixture) => boolean) => fixtures.filter(keep).sort(newestFirst).map((f) => f.id!);

    /** Lists all pages of a 2024 query at 100 a page and checks the ids and the totals. */
    async function assertMatches(query: Record<string, string>, keep: (f: Fixture) => boolean, label: string) {
      const res = await list({ ...YEAR_2024, limit: '100', ...query });
      assert.equal(res.statusCode, 200, `${label}: ${res.body.message}`);
      const ids = expectedIds(keep);
      assert.deepEqual(res.body.result.map((r) => r.id), ids, label);
      assert.equal(res.body.total_records, ids.length, label);
      assert.equal(res.body.total_pages, Math.ceil(ids.length / 100), label);
      return ids.length;
    }

    test('pages newest first: page 2 of 10 holds rows 11 to 20, with the totals over all pages', async () => {
      const all = expectedIds(() => true);
      assert.equal(all.length, 30);
      const page2 = await list({ ...YEAR_2024, page: '2', limit: '10' });
      assert.equal(page2.statusCode, 200);
      assert.deepEqual(page2.body.result.map((r) => r.id), all.slice(10, 20));
      assert.equal(page2.body.total_records, 30);
      assert.equal(page2.body.total_pages, 3);

      const page3 = await list({ ...YEAR_2024, page: '3', limit: '10' });
      assert.deepEqual(page3.body.result.map((r) => r.id), all.slice(20));
      const beyond = await list({ ...YEAR_2024, page: '4', limit: '10' });
      assert.deepEqual(beyond.body, { result: [], total_pages: 3, total_records: 30 });

      const defaults = await list(YEAR_2024);
      assert.deepEqual(defaults.body.result.map((r) => r.id), all.slice(0, 10), 'page 1 of 10 by default');
      const twenty = await list({ ...YEAR_2024, limit: '20', page: '2' });
      assert.deepEqual(twenty.body.result.map((r) => r.id), all.slice(20));
      assert.equal(twenty.body.total_pages, 2);
    });

    test('rows carry every field of the audit log, with the client and discount behind a known code', async () => {
      const { body } = await list({ ...YEAR_2024, ip_or_endpoint: '203.0.113.7', limit: '100' });
      const byHour = new Map(body.result.map((r) => [new Date(r.request_at).getUTCHours(), r]));
      const first = fixtures[0]!;
      assert.deepEqual(byHour.get(0), {
        id: first.id!,
        ip_address: '203.0.113.7',
        endpoint: '/rest-api/submit-tx',
        http_method: 'POST',
        client_code: 'ACME10',
        client_code_info: { client_name: 'Acme Mining', discount_percentage: 15 },
        request_at: '2024-03-01T00:00:00.000Z',
        request_payload: '{"n":0}',
        response_payload: '{"status":"error","message":"rejected"}',
        response_time: null,
        error_message: 'rejected',
        source_type: 'External',
        is_success: false,
      } satisfies AuditLogRow);
      assert.equal(byHour.get(6)?.response_time, 13);

      const unknownCode = await list({ ...YEAR_2024, client_code: 'NOCLIENT', limit: '100' });
      assert.ok(unknownCode.body.result.length > 0);
      assert.ok(unknownCode.body.result.every((r) => r.client_code === 'NOCLIENT' && r.client_code_info === null));
      const noCode = await list({ ...YEAR_2024, ip_or_endpoint: 'boundary' });
      assert.ok(noCode.body.result.every((r) => r.client_code === null && r.client_code_info === null));
    });

    test('ip_or_endpoint: an IP address matches exactly, other text matches inside endpoints ignoring case', async () => {
      assert.equal(await assertMatches({ ip_or_endpoint: '203.0.113.7' }, (f) => f.ip === '203.0.113.7', 'exact IP'), 5);
      assert.equal(await assertMatches({ ip_or_endpoint: '203.0.113' }, () => false, 'part of an IP'), 0);
      assert.equal(await assertMatches({ ip_or_endpoint: '198.51.100.200' }, (f) => f === MAPPED, 'IPv4-mapped form'), 1);
      const submits = await assertMatches({ ip_or_endpoint: 'SUBMIT' }, (f) => /submit/i.test(f.endpoint), 'endpoint, any case');
      assert.equal(submits, 10);
      await assertMatches({ ip_or_endpoint: '  /rest-api/parse-tx ' }, (f) => f.endpoint === '/rest-api/parse-tx', 'endpoint, trimmed');
    });

    test('the other filters, each alone', async () => {
      const counts = {
        client_code: await assertMatches({ client_code: 'ACME10' }, (f) => f.clientCode === 'ACME10', 'client code'),
        client_code_case: await assertMatches({ client_code: 'acme10' }, () => false, 'client code is exact'),
        get: await assertMatches({ method: 'GET' }, (f) => f.method === 'GET', 'GET'),
        post: await assertMatches({ method: 'POST' }, (f) => f.method === 'POST', 'POST'),
        delete: await assertMatches({ method: 'DELETE' }, (f) => f.method === 'DELETE', 'DELETE'),
        success: await assertMatches({ is_success: 'true' }, (f) => f.isSuccess, 'succeeded'),
        failed: await assertMatches({ is_success: 'false' }, (f) => !f.isSuccess, 'failed'),
        internal: await assertMatches({ source_type: 'Internal' }, (f) => f.sourceType === 'Internal', 'Internal'),
        external: await assertMatches({ source_type: 'External' }, (f) => f.sourceType === 'External', 'External'),
      };
      // Each filter kept some rows and dropped others, so none of them passed by accident.
      assert.deepEqual(counts, { client_code: 7, client_code_case: 0, get: 15, post: 14, delete: 1, success: 21, failed: 9, internal: 12, external: 18 });
    });

    test("'All' and absent filters select everything; filters combine with AND", async () => {
      const everything = await assertMatches({}, () => true, 'no filters');
      assert.equal(await assertMatches({ method: 'All' }, () => true, "method 'All'"), everything);
      assert.equal(await assertMatches({ ip_or_endpoint: ' ', client_code: '' }, () => true, 'blank text filters'), everything);
      await assertMatches(
        { client_code: 'ACME10', method: 'POST', is_success: 'false', source_type: 'External' },
        (f) => f.clientCode === 'ACME10' && f.method === 'POST' && !f.isSuccess && f.sourceType === 'External',
        'combined',
      );
    });

    test('from_date and to_date are inclusive at both ends, in either spelling of the end time', async () => {
      const inside = (f: Fixture) => f.endpoint === '/rest-api/boundary' && ['2024-06-10T00:00:00.000Z', '2024-06-11T23:59:59.999Z'].includes(f.requestAt.toISOString());
      for (const to of ['2024-06-11 23:59:59', '2024-06-11 23: 59: 59']) {
        const res = await list({ from_date: '2024-06-10 00:00:00', to_date: to, ip_or_endpoint: 'boundary' });
        assert.equal(res.statusCode, 200, res.body.message);
        assert.deepEqual(res.body.result.map((r) => r.id), expectedIds(inside), to);
      }
      const exact = await list({ from_date: '2024-03-01 05:00:00', to_date: '2024-03-01 07:00:00' });
      assert.deepEqual(exact.body.result.map((r) => r.request_at), ['2024-03-01T07:00:00.000Z', '2024-03-01T06:00:00.000Z', '2024-03-01T05:00:00.000Z']);
      const fromOnly = await list({ from_date: '2024-06-12 00:00:00', to_date: '2024-12-31 23:59:59' });
      assert.equal(fromOnly.body.total_records, 2, 'the last boundary row and the IPv4-mapped row');
    });

    test('pages of a range that cuts days hold the same rows as one ordered query, with and without filters', async () => {
      // From 03:00 on 1 March (the March rows run to 00:00 on 2 March) to noon
      // on 11 June: both end days are cut, the days between are whole.
      const range = { from_date: '2024-03-01 03:00:00', to_date: '2024-06-11 12:00:00' };
      const inRange = (f: Fixture) => f.requestAt >= new Date('2024-03-01T03:00:00Z') && f.requestAt < new Date('2024-06-11T12:00:01Z');
      const filters: Array<[Record<string, string>, (f: Fixture) => boolean]> = [
        [{}, () => true],
        [{ method: 'POST' }, (f) => f.method === 'POST'],
        [{ is_success: 'true', source_type: 'External' }, (f) => f.isSuccess && f.sourceType === 'External'],
        [{ ip_or_endpoint: 'submit' }, (f) => /submit/i.test(f.endpoint)],
      ];
      for (const [filter, keep] of filters) {
        const ids = expectedIds((f) => inRange(f) && keep(f));
        assert.ok(ids.length > 5, JSON.stringify(filter));
        for (let page = 1; page <= Math.ceil(ids.length / 10) + 1; page++) {
          const res = await list({ ...range, ...filter, page: String(page), limit: '10' });
          const label = `${JSON.stringify(filter)} page ${page}`;
          assert.equal(res.statusCode, 200, label);
          assert.deepEqual(res.body.result.map((r) => r.id), ids.slice((page - 1) * 10, page * 10), label);
          assert.equal(res.body.total_records, ids.length, label);
        }
      }
    });

    test('a filter works without any dates', async () => {
      // The test's own requests come from 127.0.0.1, so only the fixtures match.
      const res = await list({ ip_or_endpoint: '203.0.113.7' });
      assert.equal(res.body.total_records, 5);
    });

    test('with no parameters at all: everything, newest first, the test\'s own requests included', async () => {
      await t.audit.flush();
      const res = await list({ limit: '100' });
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.total_records > 30);
      const times = res.body.result.map((r) => Date.parse(r.request_at));
      assert.deepEqual(times, [...times].sort((a, b) => b - a));
    });

    test('out-of-range paging, unknown parameters and bad values are 400s with a message', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ limit: '15' }, /limit/],
        [{ page: '0' }, /page/],
        [{ page: '1.5' }, /page/],
        [{ foo: 'bar' }, /Unknown field 'foo'/],
        [{ method: 'get' }, /method/],
        [{ is_success: 'yes' }, /is_success/],
        [{ source_type: 'internal' }, /source_type/],
        [{ from_date: '2024-02-30 00:00:00' }, /^from_date must be a date and time 'yyyy-MM-dd HH:mm:ss' \(UTC\)/],
        [{ to_date: '2024-06-11' }, /^to_date must be/],
        [{ from_date: '2024-06-12 00:00:00', to_date: '2024-06-11 23:59:59' }, /to_date cannot be earlier than from_date/],
      ];
      for (const [query, message] of cases) {
        const res = await list(query);
        assert.equal(res.statusCode, 400, JSON.stringify(query));
        assert.match(res.body.message ?? '', message, JSON.stringify(query));
      }
    });

    test('SQL and LIKE metacharacters in the text filters are data, not code', async () => {
      const queries: Array<Record<string, string>> = [
        { ip_or_endpoint: "' OR '1'='1" },
        { ip_or_endpoint: "x'; DROP TABLE audit_logs; --" },
        { ip_or_endpoint: '%' },
        { ip_or_endpoint: '_' },
        { client_code: "' OR 1=1 --" },
        { client_code: "x'; DROP TABLE audit_logs; --" },
      ];
      for (const query of queries) {
        const res = await list({ ...YEAR_2024, ...query });
        assert.equal(res.statusCode, 200, JSON.stringify(query));
        assert.deepEqual(res.body, { result: [], total_pages: 0, total_records: 0 }, JSON.stringify(query));
      }
      const { rows } = await db.query<{ n: number }>("SELECT count(*) AS n FROM audit_logs WHERE request_at < '2025-01-01'");
      assert.equal(rows[0]!.n, 30);
    });

    test('any signed-in staff member may read it; nobody else', async () => {
      assert.equal((await list(YEAR_2024, adminToken)).statusCode, 200);
      assert.equal((await list(YEAR_2024, viewerToken)).statusCode, 200);
      assert.equal((await list(YEAR_2024, null)).statusCode, 401);
      assert.equal((await list(YEAR_2024, 'not-a-token')).statusCode, 401);
    });

    test('the trail keeps a request as it was sent, before the schema converted its types', async () => {
      await t.audit.flush();
      const last = (await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM audit_logs')).rows[0]!.id;
      const body = { client_name: 'Acme Mining', description: 'sent as a number', discount_percentage: 7, valid_from: '2031-01-01 00:00:00', valid_until: '2031-12-31 23:59:59', status: true };
      const added = await t.app.inject({ method: 'POST', url: '/rest-api/client-code/add', headers: { authorization: `Bearer ${adminToken}` }, payload: body });
      assert.equal(added.statusCode, 200, added.body);
      // A query converted to numbers by its schema is kept as the text it was.
      assert.equal((await list({ page: '1', limit: '10', client_code: 'ACME10' })).statusCode, 200);
      await t.audit.flush();
      const { rows } = await db.query<{ endpoint: string; request_payload: string }>(
        "SELECT endpoint, request_payload FROM audit_logs WHERE id > $1 AND endpoint IN ('/rest-api/client-code/add', '/rest-api/audits/list') ORDER BY id",
        [last],
      );
      assert.deepEqual(rows.map((r) => [r.endpoint, JSON.parse(r.request_payload) as unknown]), [
        ['/rest-api/client-code/add', body],
        ['/rest-api/audits/list', { page: '1', limit: '10', client_code: 'ACME10' }],
      ]);
    });

    test('searching a client\'s trail is audited without adding to that client\'s trail', async () => {
      const code = `SEARCHED${engine.name}`;
      await t.audit.flush();
      const last = (await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM audit_logs')).rows[0]!.id;
      assert.equal((await list({ client_code: code })).statusCode, 200);
      assert.equal((await list({ client_code: code }, 'an-expired-session')).statusCode, 401);
      await t.audit.flush();
      const { rows } = await db.query<{ client_code: string | null; request_payload: string | null }>(
        "SELECT client_code, request_payload FROM audit_logs WHERE endpoint = '/rest-api/audits/list' AND id > $1 ORDER BY id",
        [last],
      );
      assert.equal(rows.length, 2, 'both searches are in the trail');
      assert.deepEqual(rows.map((r) => r.client_code), [null, null], 'but not under the searched client code');
      // The refused one keeps only its size: what a stranger sends is not stored.
      assert.match(rows[0]!.request_payload ?? '', new RegExp(code));
      assert.match(rows[1]!.request_payload ?? '', /^\[not recorded: refused request of \d+ bytes\]$/);
    });
  });
}
