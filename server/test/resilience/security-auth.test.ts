import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { ADMIN_REQUIRED_MESSAGE, INVALID_TOKEN_MESSAGE, SIGN_IN_REQUIRED_MESSAGE } from '../../src/auth/staff-scope.ts';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { BASE_CLIENT, discountBody, seedBusinessData, type BusinessData } from './helpers/business-data.ts';
import { forgedTokens } from './helpers/forged-tokens.ts';
import { dbFingerprint } from './helpers/request-probe.ts';
import { concreteUrl, routeTable, type Route } from './helpers/route-table.ts';

/**
 * Every staff route, read from the app's own route table (not from a list
 * kept here, so a route added tomorrow is covered the day it is added):
 * without a token, with each kind of broken token, and for the routes that
 * change data or are for administrators, with a viewer's token, each answers
 * 401 or 403 and changes no row. A route that is neither listed here as
 * public nor refuses a stranger fails the test.
 *
 * Each admin request carries a body the route accepts and names a record
 * that exists, so a check that let it through would change data; at the end
 * the same requests with an administrator's token do change it, which shows
 * that they would have.
 */

/** Routes anyone may call without a staff token (docs/behaviour.md#roles-and-permissions: the public calls; the rest are described where they live). */
const PUBLIC: Array<[string, RegExp]> = [
  ['GET', /^\/rest-api\/(getinfo|status-check|status-stream|site-info|auth-config)$/],
  ['POST', /^\/rest-api\/(parse-tx|submit-tx|submit-package|notify-email)$/],
  // The Slipstream-compatible API (slipstream-api.routes.ts): public like the calls above; its dry run
  // (POST /api/mempool/tests) checks a client's API key or a staff token itself, outside the staff scope.
  ['GET', /^\/api\/(rates|system|block-info|transactions\/status|tx\/:txid(\/status|\/hex)?)$/],
  ['POST', /^\/api\/(transactions|transactions\/packages|mempool\/tests)$/],
  // Receipts (modules/receipts): anyone may check one and fetch the keys that sign them.
  ['POST', /^\/api\/receipts\/proof$/],
  ['GET', /^\/\.well-known\/jwks\.json$/],
  // CORS preflights (http/cors-policy.ts): they answer headers, never data.
  ['OPTIONS', /^\/?\*?$/],
  // Staff sign-in by password: it is how a token is obtained. Its renewal checks
  // the local token itself (staff-token-revocation.test.ts), outside the staff scope.
  ['POST', /^\/rest-api\/login(\/renew)?$/],
  // The Prometheus scrape: open, or behind METRICS_TOKEN (metrics.routes.test.ts).
  ['GET', /^\/rest-api\/metrics$/],
  // For load balancers and monitors.
  ['GET', /^\/rest-api\/health$/],
  // The /mempool/ dashboard and its live data: public on purpose (mempool-dashboard.routes.ts).
  ['GET', /^\/mempool(\/.*)?$/],
  // The API documentation.
  ['GET', /^\/swagger-ui(\/.*)?$/],
];

/** Staff routes that only read, yet are for administrators. Every route that is not GET/HEAD must be for administrators. */
// A client's API keys: who holds a credential is an administrator's business (api-keys.routes.ts).
const ADMIN_READS = new Set(['GET /rest-api/audits/verify', 'GET /rest-api/client/:id/api-keys']);

const isPublic = (route: Route) => PUBLIC.some(([method, url]) => (route.method === method || (route.method === 'HEAD' && method === 'GET')) && url.test(route.url));
const key = (route: Route) => `${route.method} ${route.url}`;
const isAdminRoute = (route: Route) => !['GET', 'HEAD'].includes(route.method) || ADMIN_READS.has(`GET ${route.url}`);

for (const engine of testDatabases()) {
  describe(`staff routes refuse strangers, broken tokens and viewers (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let data: BusinessData;
    let routes: Route[];
    let staffRoutes: Route[];
    let broken: Array<[string, string]>;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, undefined, { auditFlushIntervalMs: 3_600_000 });
      data = await seedBusinessData(t);
      routes = routeTable(t.app);
      staffRoutes = routes.filter((r) => !isPublic(r) && !r.wildcardPrefix);
      broken = await forgedTokens(db, t.tokens.viewer);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    /** Every `:id` names a record that exists: the client, the deletable client, the discount code. */
    const urlOf = (route: Route) => {
      const id = /client-code\//.test(route.url) ? data.discountId : /client\/delete/.test(route.url) ? data.deletableClientId : data.clientId;
      return concreteUrl(route, { id, deliveryId: data.webhookDeliveryId });
    };

    /** A body each admin route accepts, so that a request let through would change data. */
    const bodyOf = (route: Route): unknown => {
      const bodies: Record<string, unknown> = {
        'POST /rest-api/client/add': { name: 'Added By A Stranger' },
        'POST /rest-api/client/update/:id': { name: BASE_CLIENT, email: 'changed@example.com' },
        'POST /rest-api/client-code/add': discountBody({ discount_percentage: 50 }),
        'POST /rest-api/client-code/update/:id': discountBody({ discount_percentage: 99 }),
        'POST /rest-api/settings/update': [{ id: data.settingId, item: 'pool_coinbase_tag', value: 'changed by a stranger', description: 'x' }],
        'POST /rest-api/retry-txs/update': { ids: [data.failedTxId] },
        'POST /rest-api/client/:id/webhook': { url: 'https://hooks.example.com/slipstream' },
      };
      return bodies[key(route)] ?? (['GET', 'HEAD', 'DELETE'].includes(route.method) ? undefined : {});
    };

    const request = (route: Route, authorization?: string): InjectOptions => {
      const body = bodyOf(route);
      return {
        method: route.method,
        url: urlOf(route),
        headers: authorization === undefined ? {} : { authorization },
        ...(body === undefined ? {} : { payload: body as object }),
      };
    };

    test('the route table has the staff routes the dashboard uses, and every route outside the public list is a staff route', () => {
      // A sanity check on the table (it was read from the app): it must hold what we know is there.
      for (const known of ['GET /rest-api/audits/list', 'GET /rest-api/audits/verify', 'POST /rest-api/client/add', 'DELETE /rest-api/client-code/delete/:id', 'POST /rest-api/retry-txs/update', 'GET /rest-api/tx-puller/list']) {
        assert.ok(staffRoutes.some((r) => key(r) === known), `${known} is in the route table as a staff route`);
      }
      assert.ok(routes.some((r) => key(r) === 'POST /rest-api/submit-tx'), 'public routes are in the table too');
      assert.ok(staffRoutes.length >= 20, `${staffRoutes.length} staff routes`);
      // Wildcards whose full path the table cannot show must be public reads (the static files of Swagger UI).
      for (const route of routes.filter((r) => r.wildcardPrefix)) assert.ok(isPublic(route), `${key(route)}: a wildcard route outside the public list`);
    });

    test('without a token every staff route answers 401 and changes nothing', async () => {
      const before = await dbFingerprint(db);
      const reachable: string[] = [];
      for (const route of staffRoutes) {
        for (const authorization of [undefined, '', 'Bearer', 'Bearer ', 'Basic cm9vdDpyb290', `Token ${t.tokens.admin}`, `${t.tokens.admin}`]) {
          const res = await t.app.inject(request(route, authorization));
          if (res.statusCode !== 401) reachable.push(`${key(route)} with ${JSON.stringify(authorization?.slice(0, 12))}: HTTP ${res.statusCode} ${res.body.slice(0, 120)}`);
          else if (route.method !== 'HEAD') assert.equal(res.json<{ message: string }>().message, SIGN_IN_REQUIRED_MESSAGE, key(route));
        }
      }
      assert.deepEqual(reachable, [], 'routes that are not in the public list must refuse a request without a staff token');
      assert.deepEqual(await dbFingerprint(db), before);
    });

    test('each broken token gets 401 on every staff route, and changes nothing', async () => {
      assert.ok(broken.length >= 10);
      const before = await dbFingerprint(db);
      for (const route of staffRoutes) {
        for (const [what, token] of broken) {
          const res = await t.app.inject(request(route, `Bearer ${token}`));
          assert.equal(res.statusCode, 401, `${key(route)} with ${what}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
          if (route.method !== 'HEAD') assert.equal(res.json<{ message: string }>().message, INVALID_TOKEN_MESSAGE, `${key(route)} with ${what}`);
        }
      }
      assert.deepEqual(await dbFingerprint(db), before);
    });

    test("a viewer's token reads the staff lists but gets 403 on every admin route, and changes nothing", async () => {
      const before = await dbFingerprint(db);
      const adminRoutes = staffRoutes.filter(isAdminRoute);
      assert.ok(adminRoutes.length >= 9, `${adminRoutes.length} admin routes`);
      for (const route of adminRoutes) {
        const res = await t.app.inject(request(route, `Bearer ${t.tokens.viewer}`));
        assert.equal(res.statusCode, 403, `${key(route)} as a viewer: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (route.method !== 'HEAD') assert.equal(res.json<{ message: string }>().message, ADMIN_REQUIRED_MESSAGE, key(route));
      }
      // The viewer's token itself is good: every read that is not for administrators answers it.
      for (const route of staffRoutes.filter((r) => !isAdminRoute(r) && r.method === 'GET')) {
        const res = await t.app.inject(request(route, `Bearer ${t.tokens.viewer}`));
        assert.equal(res.statusCode, 200, `${key(route)} as a viewer: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      assert.deepEqual(await dbFingerprint(db), before);
    });

    test('the same requests from an administrator do change data: the refusals above are what kept it unchanged', async () => {
      // Adds and updates first, the deletes last (they remove the records the others name).
      const writes = staffRoutes.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
      assert.ok(writes.length >= 8);
      for (const route of writes) {
        const before = await dbFingerprint(db);
        const res = await t.app.inject(request(route, `Bearer ${t.tokens.admin}`));
        assert.equal(res.statusCode, 200, `${key(route)} as an administrator: HTTP ${res.statusCode} ${res.body.slice(0, 200)} (give it a body in bodyOf)`);
        assert.notDeepEqual(await dbFingerprint(db), before, `${key(route)} as an administrator changed nothing: the refusal test proves nothing for it`);
      }
    });
  });
}
