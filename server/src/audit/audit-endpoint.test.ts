import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { auditEndpoint, MAX_ENDPOINT_CHARS, pathReachesApi, routerPath } from './audit-endpoint.ts';

/** A request as the hooks see it after routing: `pattern` undefined when no route matched. */
const request = (url: string, pattern?: string, config: { audit?: boolean } = {}) =>
  ({ url, routeOptions: { url: pattern, config } }) as unknown as Parameters<typeof auditEndpoint>[0];

describe('audit endpoint', () => {
  test('a request that reached an API route is audited under the route pattern, whatever its URL says', () => {
    assert.equal(auditEndpoint(request('/%72est-api/client/update/5?x=1', '/rest-api/client/update/:id')), '/rest-api/client/update/:id');
    assert.equal(auditEndpoint(request('http://portal.example/rest-api/parse-tx', '/rest-api/parse-tx')), '/rest-api/parse-tx');
  });

  test('a route that says audit: false stays out under any spelling; other routes outside the API stay out', () => {
    assert.equal(auditEndpoint(request('/%72est-api/metrics', '/rest-api/metrics', { audit: false })), undefined);
    assert.equal(auditEndpoint(request('/mempool/api/state', '/mempool/api/state')), undefined);
    assert.equal(auditEndpoint(request('/swagger-ui/json', '/swagger-ui/json')), undefined);
  });

  test('a request no API route took is audited under its decoded path when it lies under /rest-api', () => {
    assert.equal(auditEndpoint(request('/REST-API/parse-tx?token=1')), '/REST-API/parse-tx');
    assert.equal(auditEndpoint(request('/%2572est-api/x')), '/%72est-api/x');
    assert.equal(auditEndpoint(request('/rest-api%2Fparse-tx')), '/rest-api%2Fparse-tx', 'an escaped slash stays escaped, as the router leaves it');
    // A catch-all (CORS's OPTIONS *, the docs' static files) is no API route: the path decides.
    assert.equal(auditEndpoint(request('/swagger-ui/../rest-api/getinfo', '/swagger-ui/*')), '/swagger-ui/../rest-api/getinfo');
    assert.equal(auditEndpoint(request('/rest-api/parse-tx', '*')), '/rest-api/parse-tx');
    assert.equal(auditEndpoint(request('/nowhere')), undefined);
  });

  test('the Slipstream-compatible API under /api is audited alike: under its route pattern, or its path when no route took it', () => {
    assert.equal(auditEndpoint(request('/api/tx/abc/status', '/api/tx/:txid/status')), '/api/tx/:txid/status');
    assert.equal(auditEndpoint(request('/%61pi/transactions', '/api/transactions')), '/api/transactions');
    assert.equal(auditEndpoint(request('/API/nothing-here')), '/API/nothing-here');
    assert.equal(auditEndpoint(request('/x/../api/rates')), '/x/../api/rates');
    assert.ok(pathReachesApi('/api'));
    // Only the first segment counts: the web app's and the mempool view's own paths stay out.
    assert.equal(auditEndpoint(request('/mempool/api/state')), undefined);
    assert.equal(auditEndpoint(request('/apis/x')), undefined);
    assert.equal(auditEndpoint(request('/tx/api')), undefined);
  });

  test('the decoded path is cut to 512 code points, never inside a surrogate pair', () => {
    const long = `/rest-api/${'a'.repeat(501)}${'😀'.repeat(20)}`;
    const endpoint = auditEndpoint(request(long))!;
    assert.equal([...endpoint].length, MAX_ENDPOINT_CHARS);
    assert.ok(endpoint.isWellFormed());
    assert.ok(long.startsWith(endpoint));
  });

  test('routerPath decodes as the router does and drops the query and fragment', () => {
    assert.equal(routerPath('/%72est-api/a%20b?x=%41'), '/rest-api/a b');
    assert.equal(routerPath('/rest-api/a#frag?x'), '/rest-api/a');
    assert.equal(routerPath('/rest-api/%E0%A4%A'), '/rest-api/%E0%A4%A', 'undecodable text is kept as sent');
  });

  test('spellings of the prefix that servers or proxies treat alike all reach it', () => {
    for (const path of [
      '/rest-api', '/rest-api/', '/REST-API/x', '//rest-api/x', '/./rest-api/x', '/rest-api;v=1/x', '/rest-api/../x',
      '/x/../rest-api/y', '/x/%2e%2e/rest-api/y', '/x/..%2Frest-api', '/%2572est-api/x', '/%252572est-api/x',
      '\\rest-api\\x', '/rest-api%00/x', 'http://host.example/rest-api/x', 'https://host.example/a/../rest-api',
    ]) {
      assert.ok(pathReachesApi(path), path);
    }
    for (const path of ['/', '/rest-apix/y', '/apix/rest-api', '/rest', '/mempool/rest-api', '*', 'not a url', '/rest-api-docs/']) {
      assert.ok(!pathReachesApi(path), path);
    }
  });

  test('escaping any characters of an API path, in either case, never hides it', () => {
    const segment = fc.stringMatching(/^[a-z0-9._~-]{1,12}$/);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }), fc.boolean(), (rest, escapes, upper) => {
        const path = ['/rest-api', ...rest].join('/');
        const spelt = [...path].map((c, i) => (escapes[i % escapes.length] ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
        return pathReachesApi(upper ? spelt.toUpperCase() : spelt);
      }),
    );
  });
});
