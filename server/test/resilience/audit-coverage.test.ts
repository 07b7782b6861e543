import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { rawRequest } from './helpers/request-probe.ts';
import { concreteUrl, routeTable, type Route } from './helpers/route-table.ts';

/**
 * The audit trail cannot be dodged by how a path is spelt. Fastify's router
 * decodes percent-escapes before it matches (`/%72est-api/submit-tx` is
 * `/rest-api/submit-tx`), so whether a request is audited is decided by the
 * route it reached, and its row names that route's pattern. A request no
 * route took whose path lies under /rest-api, however it is spelt (case,
 * doubled or trailing slashes, dot segments, escapes, `;` parameters), is
 * audited under its decoded path. Refusals (401, 403, 404) are audited like
 * everything else; the routes kept out of the trail (the metrics scrape,
 * health) stay out under any spelling. A request is Internal only when the
 * staff scope verified its token: the web app's own header is no credential.
 */

interface AuditRow {
  endpoint: string;
  http_method: string;
  client_code: string | null;
  source_type: string;
  is_success: boolean;
  error_message: string | null;
}

/** Routes kept out of the trail on purpose (`config: { audit: false }`). */
const UNAUDITED = new Set(['/rest-api/metrics', '/rest-api/health']);

/** Every letter of `path` percent-escaped: the router decodes them all back. */
const escapeLetters = (path: string) => path.replace(/[a-z]/gi, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `/%72est-api/...`: the one escape the raw-URL check missed. */
const escapeFirstLetter = (path: string) => path.replace(/^\/rest-api\//, '/%72est-api/');

/** A raw HTTP/1.1 request line with `target` exactly as written (no client library normalises it). */
const raw = (method: string, target: string) => `${method} ${target} HTTP/1.1\r\nHost: portal.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(4);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`every request to the API is audited, however its path is spelt (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let port: number;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node, { auditFlushIntervalMs: 3_600_000 });
      port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    /** The audit rows `work` added, oldest first. */
    async function rowsOf(work: () => Promise<unknown>): Promise<AuditRow[]> {
      await t.audit.flush();
      const last = (await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM audit_logs')).rows[0]!.id;
      await work();
      await t.audit.flush();
      const { rows } = await db.query<AuditRow>(
        'SELECT endpoint, http_method, client_code, source_type, is_success, error_message FROM audit_logs WHERE id > $1 ORDER BY id',
        [last],
      );
      return rows;
    }

    const inject = (options: InjectOptions & { token?: string }) => {
      const { token, ...rest } = options;
      return t.app.inject({ ...rest, headers: { ...(rest.headers as Record<string, string> | undefined), ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    };

    test('a submission and an administrator\'s change sent to /%72est-api/ are audited under their routes', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      let answer = '';
      const submitted = await rowsOf(async () => {
        answer = (await inject({ method: 'POST', url: '/%72est-api/submit-tx', payload: { tx_hex: tx.hex, client_code: 'ENCODED-1' } })).body;
      });
      const { status, message } = JSON.parse(answer) as { status: string; message: string };
      assert.deepEqual({ status, message }, { status: 'success', message: tx.txid }, 'the node took it');
      assert.deepEqual(submitted, [{ endpoint: '/rest-api/submit-tx', http_method: 'POST', client_code: 'ENCODED-1', source_type: 'External', is_success: true, error_message: null }]);

      const parsed = await rowsOf(() => inject({ method: 'POST', url: '/%72est-api/parse-tx', payload: { tx_hexes: [tx.hex] } }));
      assert.deepEqual(parsed.map((r) => [r.endpoint, r.is_success]), [['/rest-api/parse-tx', true]]);

      let id = 0;
      const added = await rowsOf(async () => {
        const res = await inject({ method: 'POST', url: '/%72est-api/client/add', payload: { name: 'Encoded Client' }, token: t.tokens.admin });
        assert.equal(res.statusCode, 200, res.body);
        id = res.json<{ id: number }>().id;
      });
      assert.equal((await db.query('SELECT 1 FROM clients WHERE id = $1', [id])).rowCount, 1, 'the client was added');
      assert.deepEqual(added.map((r) => [r.endpoint, r.http_method, r.source_type, r.is_success]), [['/rest-api/client/add', 'POST', 'Internal', true]]);

      // A route with a parameter is recorded under its pattern, not the id it was called with.
      const updated = await rowsOf(async () => {
        const res = await inject({ method: 'POST', url: `/rest-api/client/update/${id}`, payload: { name: 'Encoded Client 2' }, token: t.tokens.admin });
        assert.equal(res.statusCode, 200, res.body);
      });
      assert.deepEqual(updated.map((r) => r.endpoint), ['/rest-api/client/update/:id']);

      // The staff Logs screen finds them by endpoint text.
      const listed = await inject({ method: 'GET', url: `/rest-api/audits/list?${new URLSearchParams({ ip_or_endpoint: 'client/update', limit: '100' }).toString()}`, token: t.tokens.viewer });
      assert.equal(listed.statusCode, 200, listed.body);
      const endpoints = listed.json<{ result: Array<{ endpoint: string }> }>().result.map((r) => r.endpoint);
      assert.ok(endpoints.includes('/rest-api/client/update/:id'), JSON.stringify(endpoints));
    });

    test('every API route, reached through escaped spellings, refused or not, leaves one row under its pattern', async () => {
      const routes = routeTable(t.app).filter((r) => r.url.startsWith('/rest-api/') && !r.wildcardPrefix);
      assert.ok(routes.length >= 40, `only ${routes.length} API routes found`);
      const reached: string[] = [];
      const audited = (route: Route) => !UNAUDITED.has(route.url);
      for (const route of routes) {
        const url = concreteUrl(route);
        // Anonymous (a staff route refuses with 401), as a viewer (an admin route refuses with 403), and as an
        // administrator; escapes in upper and lower case. The row names the route: a 404 it answered itself
        // (no such record) is still its own.
        const spellings: Array<[string, string | undefined]> = [[escapeFirstLetter(url), undefined], [escapeLetters(url), t.tokens.viewer], [escapeLetters(url).toLowerCase(), t.tokens.admin]];
        for (const [spelt, token] of spellings) {
          let status = 0;
          const rows = await rowsOf(async () => {
            status = (await inject({ method: route.method, url: spelt, token })).statusCode;
          });
          reached.push(`${status} ${route.method} ${spelt}`);
          const expected = audited(route) ? [[route.url, route.method]] : [];
          assert.deepEqual(rows.map((r) => [r.endpoint, r.http_method]), expected, `${route.method} ${spelt} (answered ${status})`);
        }
      }
      // Refusals were among them.
      for (const status of [200, 400, 401, 403]) assert.ok(reached.some((line) => line.startsWith(`${status} `)), `some answered ${status}`);
    });

    test('a raw target no API route took is audited under its decoded path when that path lies under /rest-api; one the router resolves, under its route', async () => {
      const long = `/rest-api/${'a'.repeat(600)}`;
      const cases: Array<[method: string, target: string, endpoint: string]> = [
        ['POST', '/rest-api/no-such-endpoint?token=abc', '/rest-api/no-such-endpoint'],
        ['POST', '/rest-api', '/rest-api'],
        ['POST', '/rest-api/parse-tx/', '/rest-api/parse-tx/'],
        ['POST', '/rest-api//parse-tx', '/rest-api//parse-tx'],
        ['POST', '//rest-api/parse-tx', '//rest-api/parse-tx'],
        ['POST', '/REST-API/parse-tx', '/REST-API/parse-tx'],
        ['POST', '/%52est-Api/client/add', '/Rest-Api/client/add'],
        ['POST', '/rest-api/parse-tx;jsessionid=1', '/rest-api/parse-tx;jsessionid=1'],
        ['POST', '/rest-api;x/parse-tx', '/rest-api;x/parse-tx'],
        ['POST', '/rest-api%2Fparse-tx', '/rest-api%2Fparse-tx'],
        ['POST', '/rest-api%2fparse-tx', '/rest-api%2fparse-tx'],
        ['POST', '/%2572est-api/parse-tx', '/%72est-api/parse-tx'],
        ['POST', '/rest-api/../rest-api/parse-tx', '/rest-api/../rest-api/parse-tx'],
        ['POST', '/rest-api/./parse-tx', '/rest-api/./parse-tx'],
        ['POST', '/elsewhere/../rest-api/parse-tx', '/elsewhere/../rest-api/parse-tx'],
        ['POST', '/elsewhere/%2e%2e/rest-api/parse-tx', '/elsewhere/../rest-api/parse-tx'],
        ['POST', '/elsewhere/..%2frest-api/parse-tx', '/elsewhere/..%2frest-api/parse-tx'],
        ['POST', '/rest-api\\parse-tx', '/rest-api\\parse-tx'],
        ['POST', '/rest-api/parse-tx%20', '/rest-api/parse-tx '],
        // An absolute-form target (RFC 9112, section 3.2.2): the router takes its path, and so reaches the route.
        ['POST', 'http://portal.example/rest-api/parse-tx', '/rest-api/parse-tx'],
        ['POST', 'http://portal.example/rest-api/no-such-endpoint', 'http://portal.example/rest-api/no-such-endpoint'],
        // A wildcard route took it (the API docs' static files), but its path is the API's.
        ['GET', '/swagger-ui/../rest-api/getinfo', '/swagger-ui/../rest-api/getinfo'],
        ['POST', long, long.slice(0, 512)],
        // Refused before routing, where no hook runs: a path the router cannot decode, a parameter over its length limit.
        ['POST', '/rest-api/client/update/%zz', '/rest-api/client/update/%zz'],
        ['POST', '/%72est-api/client/update/%zz?x=1', '/%72est-api/client/update/%zz'],
        ['DELETE', `/rest-api/client/delete/${'9'.repeat(101)}`, `/rest-api/client/delete/${'9'.repeat(101)}`],
      ];
      for (const [method, target, endpoint] of cases) {
        let status = 0;
        const rows = await rowsOf(async () => {
          status = (await rawRequest(port, raw(method, target))).status;
        });
        assert.ok(status >= 400, `${method} ${target} was refused (${status})`);
        assert.deepEqual(rows.map((r) => [r.endpoint, r.http_method, r.is_success, r.source_type]), [[endpoint, method, false, 'External']], `${method} ${target} (answered ${status})`);
      }
    });

    test('paths outside /rest-api and the routes kept out of the trail leave no row, however spelt', async () => {
      // 'route': reached its route (whatever that answered); a number: answered that.
      const cases: Array<[string, string, number | 'route']> = [
        ['POST', '/rest-apix/parse-tx', 404],
        ['POST', '/not-rest-api/parse-tx', 404],
        ['GET', '/mempool/no-such-page', 404],
        ['GET', '/swagger-ui/json', 200],
        ['GET', '/%72est-api/metrics', 'route'],
        ['HEAD', '/%72est-api/metrics', 'route'],
        ['GET', '/rest-api/%68ealth', 'route'],
        ['GET', escapeLetters('/rest-api/health'), 'route'],
      ];
      for (const [method, target, expected] of cases) {
        let status = 0;
        const rows = await rowsOf(async () => {
          status = (await rawRequest(port, raw(method, target))).status;
        });
        if (expected === 'route') assert.ok(status !== 404 && status !== 400, `${method} ${target} reached its route (${status})`);
        else assert.equal(status, expected, `${method} ${target}`);
        assert.deepEqual(rows, [], `${method} ${target} left no row`);
      }
    });

    test('Internal is a verified staff token only: the web app\'s header, or a token a route never checked, is External', async () => {
      const web = { 'x-portal-client': 'web' };
      const cases: Array<[string, InjectOptions & { token?: string }, number, string]> = [
        ['a stranger sending the web app\'s header', { method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: 'zz' }, headers: web }, 400, 'External'],
        ['a made-up token with the header', { method: 'GET', url: '/rest-api/audits/list', headers: web, token: 'not-a-token' }, 401, 'External'],
        ['a staff token on a public route, which never checks it', { method: 'GET', url: '/rest-api/site-info', headers: web, token: t.tokens.admin }, 200, 'External'],
        ['a viewer refused an admin route', { method: 'POST', url: '/rest-api/client/add', payload: { name: 'Nope' }, token: t.tokens.viewer }, 403, 'Internal'],
        ['a viewer on a staff route, without the header', { method: 'GET', url: '/rest-api/audits/list', token: t.tokens.viewer }, 200, 'Internal'],
      ];
      for (const [what, options, expected, sourceType] of cases) {
        let status = 0;
        const rows = await rowsOf(async () => {
          status = (await inject(options)).statusCode;
        });
        assert.equal(status, expected, what);
        assert.deepEqual(rows.map((r) => r.source_type), [sourceType], what);
      }
    });
  });
}
