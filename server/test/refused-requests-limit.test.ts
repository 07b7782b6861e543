import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * Every request under /rest-api costs a row in the audit trail, so a stranger
 * must not be able to write rows without limit. Requests no route takes, and
 * staff requests refused for a missing or invalid token, spend the public
 * API's per-address budget (RATE_LIMIT_MAX), with its 429 and Retry-After
 * once spent; signed-in staff are not limited by it, and sign-in keeps its own
 * limit. The row of such a refusal (404, 401, 403) keeps the request's size,
 * never the payload a stranger chose.
 */

const BUDGET = 4;
const TOO_MANY = /^Too many requests\. Please retry in \d+ seconds\.$/;

interface AuditRow {
  endpoint: string;
  request_payload: string | null;
  response_payload: string | null;
  error_message: string | null;
}

for (const engine of testDatabases()) {
  describe(`refused and unrouted API requests share the public budget, and their rows stay small (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    const log: string[] = [];

    before(async () => {
      db = await engine.open();
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          log.push(chunk.toString('utf8'));
          done();
        },
      });
      t = await startStaffTestApp(db, undefined, { rateLimitMax: BUDGET, auditFlushIntervalMs: 3_600_000, logger: { level: 'info', stream } });
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    const request = (ip: string, method: 'GET' | 'POST', url: string, options: { token?: string; payload?: object } = {}) =>
      t.app.inject({ method, url, remoteAddress: ip, headers: options.token ? { authorization: `Bearer ${options.token}` } : {}, ...(options.payload ? { payload: options.payload } : {}) });

    const assertLimited = (res: Awaited<ReturnType<typeof request>>, what: string) => {
      assert.equal(res.statusCode, 429, `${what}: ${res.body}`);
      assert.ok(Number(res.headers['retry-after']) > 0, `${what}: Retry-After is set`);
      assert.deepEqual(Object.keys(res.json<object>()).sort(), ['message', 'status'], what);
      assert.match(res.json<{ message: string }>().message, TOO_MANY, what);
    };

    /** The audit rows `work` added, oldest first. */
    async function rowsOf(work: () => Promise<unknown>): Promise<AuditRow[]> {
      await t.audit.flush();
      const last = (await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM audit_logs')).rows[0]!.id;
      await work();
      await t.audit.flush();
      return (await db.query<AuditRow>('SELECT endpoint, request_payload, response_payload, error_message FROM audit_logs WHERE id > $1 ORDER BY id', [last])).rows;
    }

    test('anonymous requests no API route takes spend the public budget, then get 429 with Retry-After', async () => {
      const ip = '127.0.3.1';
      for (let i = 0; i < BUDGET; i++) assert.equal((await request(ip, 'POST', `/rest-api/nothing-${i}`, { payload: { a: 1 } })).statusCode, 404);
      assertLimited(await request(ip, 'POST', '/rest-api/nothing', { payload: { a: 1 } }), 'a further 404');
      assertLimited(await request(ip, 'GET', '/REST-API/nothing'), 'the API prefix spelt otherwise');
      // One budget: the public routes refuse this address too.
      assertLimited(await request(ip, 'GET', '/rest-api/site-info'), 'a public route');

      // And the other way round: a budget spent on public routes refuses the 404s.
      const other = '127.0.3.2';
      for (let i = 0; i < BUDGET; i++) assert.equal((await request(other, 'GET', '/rest-api/site-info')).statusCode, 200);
      assertLimited(await request(other, 'GET', '/rest-api/nothing'), 'a 404 after public requests');
    });

    test('staff requests refused for a missing or invalid token spend the same budget; signed-in staff and sign-in are not limited by it', async () => {
      const ip = '127.0.3.3';
      for (let i = 0; i < BUDGET; i++) {
        const res = i % 2 === 0 ? await request(ip, 'GET', '/rest-api/audits/list') : await request(ip, 'GET', '/rest-api/audits/list', { token: 'not.a.token' });
        assert.equal(res.statusCode, 401, res.body);
      }
      assertLimited(await request(ip, 'GET', '/rest-api/audits/list'), 'no token, budget spent');
      assertLimited(await request(ip, 'POST', '/rest-api/client/add', { token: 'forged', payload: { name: 'x' } }), 'an invalid token, budget spent');
      assertLimited(await request(ip, 'GET', '/rest-api/site-info'), 'a public route');

      // Valid tokens from the same address: the staff API as ever, refusals of role included.
      assert.equal((await request(ip, 'GET', '/rest-api/audits/list', { token: t.tokens.viewer })).statusCode, 200);
      assert.equal((await request(ip, 'POST', '/rest-api/client/add', { token: t.tokens.viewer, payload: { name: 'Viewer Tries' } })).statusCode, 403);
      assert.equal((await request(ip, 'POST', '/rest-api/client/add', { token: t.tokens.admin, payload: { name: 'Budget Spent Elsewhere' } })).statusCode, 200);
      // Sign-in keeps its own limit: a wrong password is still told so.
      assert.equal((await request(ip, 'POST', '/rest-api/login', { payload: { username: 'root', password: 'wrong password' } })).statusCode, 401);
    });

    test('CORS preflights, URLs the router cannot decode and the sign-in configuration spend the same budget; once it is spent they get 429 and write no row', async () => {
      const preflight = (ip: string) =>
        t.app.inject({ method: 'OPTIONS', url: '/rest-api/submit-tx', remoteAddress: ip, headers: { origin: 'https://page.example', 'access-control-request-method': 'POST' } });
      const undecodable = (ip: string) => t.app.inject({ method: 'GET', url: '/rest-api/%zz', remoteAddress: ip });
      const authConfig = (ip: string) => t.app.inject({ method: 'GET', url: '/rest-api/auth-config', remoteAddress: ip });
      const kinds = [
        { call: preflight, status: 204 },
        { call: undecodable, status: 400 },
        { call: authConfig, status: 200 },
      ];
      for (const [index, { call, status }] of kinds.entries()) {
        const ip = `127.0.3.${30 + index}`;
        const within = await rowsOf(async () => {
          for (let i = 0; i < BUDGET; i++) assert.equal((await call(ip)).statusCode, status, `${call.name} within the budget`);
        });
        assert.equal(within.length, BUDGET, `${call.name}: each request within the budget has its row`);
        const beyond = await rowsOf(async () => {
          for (let i = 0; i < 3; i++) assertLimited(await call(ip), `${call.name} beyond the budget`);
          // One budget: the public routes refuse this address too.
          assertLimited(await request(ip, 'GET', '/rest-api/site-info'), `a public route after ${call.name}`);
        });
        assert.deepEqual(beyond, [], `${call.name}: no row once the budget is spent`);
      }

      // And the other way round: a budget spent on public routes refuses all three.
      const other = '127.0.3.39';
      for (let i = 0; i < BUDGET; i++) assert.equal((await request(other, 'GET', '/rest-api/site-info')).statusCode, 200);
      const refused = await rowsOf(async () => {
        for (const { call } of kinds) assertLimited(await call(other), `${call.name} after public requests`);
      });
      assert.deepEqual(refused, []);
    });

    test('a 404, a 401 or a 403 leaves a small row: the payload is not stored, only its size', async () => {
      const big = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`field${i}`, 'x'.repeat(4_000)]));
      const bytes = Buffer.byteLength(JSON.stringify(big));
      const longQuery = `ip_or_endpoint=${'y'.repeat(4_000)}`;
      const rows = await rowsOf(async () => {
        assert.equal((await request('127.0.3.10', 'POST', '/rest-api/nothing', { payload: big })).statusCode, 404);
        assert.equal((await request('127.0.3.11', 'GET', `/rest-api/nothing?${longQuery}`)).statusCode, 404);
        assert.equal((await request('127.0.3.12', 'GET', `/rest-api/audits/list?${longQuery}`, { token: 'forged' })).statusCode, 401);
        assert.equal((await request('127.0.3.13', 'POST', '/rest-api/client/add', { token: t.tokens.viewer, payload: big })).statusCode, 403);
      });
      assert.deepEqual(rows.map((r) => r.request_payload), [
        `[not recorded: refused request of ${bytes.toLocaleString('en-US')} bytes]`,
        `[not recorded: refused request of ${longQuery.length.toLocaleString('en-US')} bytes]`,
        `[not recorded: refused request of ${longQuery.length.toLocaleString('en-US')} bytes]`,
        `[not recorded: refused request of ${bytes.toLocaleString('en-US')} bytes]`,
      ]);
      for (const row of rows) assert.ok(JSON.stringify(row).length < 1_000, `a small row: ${JSON.stringify(row).slice(0, 300)}`);

      // A request a route handled keeps its payload, as before.
      const handled = await rowsOf(() => request('127.0.3.14', 'POST', '/rest-api/parse-tx', { payload: { tx_hexes: ['00'] } }));
      assert.match(handled[0]!.request_payload ?? '', /tx_hexes/);
    });

    test('tokens the health check refuses are not logged at info level (it is polled, and not rate limited)', async () => {
      const before = log.length;
      for (let i = 0; i < 3; i++) await request('127.0.3.20', 'GET', '/rest-api/health', { token: 'not.a.token' });
      assert.deepEqual(log.slice(before).filter((line) => line.includes('Staff token refused')), []);
      // The staff API still logs its refusals.
      await request('127.0.3.21', 'GET', '/rest-api/staff/me', { token: 'not.a.token' });
      assert.equal(log.slice(before).filter((line) => line.includes('Staff token refused')).length, 1);
    });
  });
}
