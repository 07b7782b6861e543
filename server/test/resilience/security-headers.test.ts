import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { HSTS_VALUE, REFERRER_POLICY } from '../../src/http/security-headers.ts';
import { launchBrowser, until, WEB_DIST_DIR } from '../helpers/browser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { startWebTestApp, type WebTestApp } from '../helpers/web-app.ts';

/**
 * Security headers on every kind of response the app makes (API answers,
 * errors of every status, 404s, the web app's files and deep links,
 * /mempool/ and its live stream, Swagger UI), HSTS only over TLS as a
 * trusted proxy reports it, CORS only for configured origins, and in a real
 * browser: the built web app and Swagger UI run under their policy without
 * a single violation, and no other site can frame the portal.
 */

const SIGN_IN_ISSUER_ORIGIN = 'https://issuer.example';

type Headers = LightMyRequestResponse['headers'] | http.IncomingHttpHeaders;

/** The directives of a Content-Security-Policy header, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...sources]) => [name!, sources]));
}

function assertSecurityHeaders(headers: Headers, what: string, options: { swagger?: boolean; hsts?: boolean } = {}): void {
  const csp = headers['content-security-policy'];
  assert.equal(typeof csp, 'string', `${what}: no Content-Security-Policy`);
  const d = directives(csp as string);
  assert.deepEqual(d.get('frame-ancestors'), ["'self'"], `${what}: frame-ancestors`);
  assert.deepEqual(d.get('script-src'), ["'self'"], `${what}: script-src`);
  assert.deepEqual(d.get('default-src'), ["'self'"], `${what}: default-src`);
  assert.deepEqual(d.get('object-src'), ["'none'"], `${what}: object-src`);
  assert.deepEqual(d.get('base-uri'), ["'self'"], `${what}: base-uri`);
  assert.deepEqual(d.get('style-src'), options.swagger ? ["'self'", "'unsafe-inline'"] : ["'self'"], `${what}: style-src`);
  assert.deepEqual(d.get('connect-src'), ["'self'", SIGN_IN_ISSUER_ORIGIN], `${what}: connect-src`);
  assert.equal(headers['x-content-type-options'], 'nosniff', `${what}: X-Content-Type-Options`);
  assert.equal(headers['referrer-policy'], REFERRER_POLICY, `${what}: Referrer-Policy`);
  assert.equal(headers['x-frame-options'], 'SAMEORIGIN', `${what}: X-Frame-Options`);
  if (options.hsts) assert.equal(headers['strict-transport-security'], HSTS_VALUE, `${what}: HSTS`);
  else assert.equal(headers['strict-transport-security'], undefined, `${what}: HSTS over plain HTTP`);
}

/** The response head of a GET over real HTTP; the body is not waited for (an event stream never ends). */
function headOf(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.destroy();
    });
    request.on('error', reject);
  });
}

describe('security headers on every response', () => {
  let db: TestDatabase;
  let t: StaffTestApp;
  let port: number;

  before(async () => {
    db = await testDatabases()[0]!.open();
    t = await startStaffTestApp(db, undefined, { webDistDir: WEB_DIST_DIR, rateLimitMax: 3 });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });

  after(async () => {
    await t?.close();
    await db?.close();
  });

  const inject = (options: InjectOptions) => t.app.inject({ remoteAddress: '10.5.0.1', ...options });

  test('API answers, every kind of error, 404s, static files, deep links, /mempool/ and Swagger UI all carry them', async () => {
    const asset = (await inject({ method: 'GET', url: '/' })).body.match(/\/assets\/[\w.-]+\.js/)?.[0];
    assert.ok(asset, 'the index page names its script');
    const cases: Array<[string, InjectOptions, number | number[], { swagger?: boolean }?]> = [
      ['a public answer', { method: 'GET', url: '/rest-api/auth-config' }, 200],
      ['a staff answer', { method: 'GET', url: '/rest-api/staff/me', headers: { authorization: `Bearer ${t.tokens.viewer}` } }, 200],
      ['401', { method: 'GET', url: '/rest-api/client/view' }, 401],
      ['403', { method: 'POST', url: '/rest-api/client/add', headers: { authorization: `Bearer ${t.tokens.viewer}` }, payload: { name: 'x' } }, 403],
      ['400 (bad JSON)', { method: 'POST', url: '/rest-api/submit-tx', headers: { 'content-type': 'application/json' }, payload: '{"tx_hex":' }, 400],
      ['400 (schema)', { method: 'POST', url: '/rest-api/client/add', headers: { authorization: `Bearer ${t.tokens.admin}` }, payload: { name: 'x', sneaky: 1 } }, 400],
      ['413', { method: 'POST', url: '/rest-api/client/add', headers: { authorization: `Bearer ${t.tokens.admin}`, 'content-type': 'application/json' }, payload: `{"name":"${'x'.repeat(2 * 1024 * 1024)}"}` }, 413],
      ['415', { method: 'POST', url: '/rest-api/submit-tx', headers: { 'content-type': 'application/xml' }, payload: '<x/>' }, 415],
      ['503 (the node is not there)', { method: 'GET', url: '/rest-api/getinfo' }, [502, 503]],
      ['an API 404', { method: 'GET', url: '/rest-api/no-such-thing' }, 404],
      ['a URL that cannot be decoded (answered before any hook)', { method: 'POST', url: '/rest-api/client/update/%zz', headers: { authorization: `Bearer ${t.tokens.admin}` }, payload: {} }, 400],
      ['a 404 for another method', { method: 'DELETE', url: '/rest-api/audits/list', headers: { authorization: `Bearer ${t.tokens.admin}` } }, 404],
      ['a CORS preflight of a public route (any origin)', { method: 'OPTIONS', url: '/rest-api/submit-tx', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } }, 204],
      ['a CORS preflight of a staff route (refused)', { method: 'OPTIONS', url: '/rest-api/client/view', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } }, 404],
      ['the web app', { method: 'GET', url: '/' }, 200],
      ['a script', { method: 'GET', url: asset }, 200],
      ['a HEAD of a script', { method: 'HEAD', url: asset }, 200],
      ['a media file', { method: 'GET', url: '/maintenance-loop.webm' }, 200],
      ['a deep link', { method: 'GET', url: '/dashboard?section=clients' }, 200],
      ['a missing asset', { method: 'GET', url: '/assets/no-such-file.js' }, [200, 404]],
      ['/mempool (redirect)', { method: 'GET', url: '/mempool' }, 301],
      ['/mempool/', { method: 'GET', url: '/mempool/' }, 200],
      ['/mempool/api/state (private: no token)', { method: 'GET', url: '/mempool/api/state' }, 401],
      ['/mempool/api/state', { method: 'GET', url: '/mempool/api/state', headers: { authorization: `Bearer ${t.tokens.viewer}` } }, [200, 503]],
      ['/swagger-ui', { method: 'GET', url: '/swagger-ui' }, [200, 302], { swagger: true }],
      ['/swagger-ui/', { method: 'GET', url: '/swagger-ui/' }, [200, 302], { swagger: true }],
      ['/swagger-ui/static/index.html', { method: 'GET', url: '/swagger-ui/static/index.html' }, [200, 302], { swagger: true }],
      ['/swagger-ui/static/swagger-ui.css', { method: 'GET', url: '/swagger-ui/static/swagger-ui.css' }, 200, { swagger: true }],
      ['/swagger-ui/json', { method: 'GET', url: '/swagger-ui/json' }, 200, { swagger: true }],
    ];
    // Each from an address of its own: refusals and 404s spend the public budget too (3 here).
    for (const [i, [what, options, status, kind]] of cases.entries()) {
      const res = await inject({ remoteAddress: `10.5.1.${i}`, ...options });
      const statuses = Array.isArray(status) ? status : [status];
      assert.ok(statuses.includes(res.statusCode), `${what}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
      assertSecurityHeaders(res.headers, what, kind);
    }
  });

  test('a 500 from a failing query carries them too', async () => {
    await db.exec('ALTER TABLE settings RENAME TO settings_gone');
    try {
      const res = await inject({ method: 'GET', url: '/rest-api/settings/view', headers: { authorization: `Bearer ${t.tokens.viewer}` } });
      assert.equal(res.statusCode, 500, res.body);
      assertSecurityHeaders(res.headers, '500');
    } finally {
      await db.exec('ALTER TABLE settings_gone RENAME TO settings');
    }
  });

  test('a rate-limited 429 carries them too', async () => {
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 4; i++) last = await inject({ method: 'GET', url: '/rest-api/site-info', remoteAddress: '10.5.9.9' });
    assert.equal(last!.statusCode, 429);
    assertSecurityHeaders(last!.headers, '429');
  });

  test('over real HTTP too, the /mempool/ live stream included (it bypasses the usual reply path)', async () => {
    const staff = { authorization: `Bearer ${t.tokens.viewer}` };
    for (const path of ['/', '/rest-api/auth-config', '/mempool/', '/mempool/api/stream']) {
      const res = await headOf(port, path, staff);
      assert.ok(res.status < 500, `${path}: HTTP ${res.status}`);
      assertSecurityHeaders(res.headers, `HTTP ${path}`);
    }
    assert.match(String((await headOf(port, '/mempool/api/stream', staff)).headers['content-type']), /^text\/event-stream/);
    // Refused before it opens (the mempool view is private by default): headers all the same.
    const refused = await headOf(port, '/mempool/api/stream');
    assert.equal(refused.status, 401);
    assertSecurityHeaders(refused.headers, 'HTTP /mempool/api/stream refused');
  });

  test('HSTS is not sent over plain HTTP, nor when an untrusted client claims X-Forwarded-Proto: https', async () => {
    const res = await inject({ method: 'GET', url: '/rest-api/auth-config', headers: { 'x-forwarded-proto': 'https' } });
    assertSecurityHeaders(res.headers, 'an untrusted X-Forwarded-Proto');
  });
});

describe('HSTS behind a trusted TLS-terminating proxy', () => {
  let db: TestDatabase;
  let t: StaffTestApp;

  before(async () => {
    db = await testDatabases()[0]!.open();
    t = await startStaffTestApp(db, undefined, { trustProxy: ['127.0.0.1'] });
  });

  after(async () => {
    await t?.close();
    await db?.close();
  });

  test('sent when the trusted proxy says the client came over TLS; not when it says HTTP or says nothing; not when another address says so', async () => {
    const https = await t.app.inject({ method: 'GET', url: '/rest-api/auth-config', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.5' } });
    assertSecurityHeaders(https.headers, 'https via the proxy', { hsts: true });
    const notFound = await t.app.inject({ method: 'GET', url: '/rest-api/nope', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-proto': 'https' } });
    assertSecurityHeaders(notFound.headers, 'a 404 over https via the proxy', { hsts: true });
    const plain = await t.app.inject({ method: 'GET', url: '/rest-api/auth-config', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-proto': 'http' } });
    assertSecurityHeaders(plain.headers, 'http via the proxy');
    const silent = await t.app.inject({ method: 'GET', url: '/rest-api/auth-config', remoteAddress: '127.0.0.1' });
    assertSecurityHeaders(silent.headers, 'nothing said');
    const stranger = await t.app.inject({ method: 'GET', url: '/rest-api/auth-config', remoteAddress: '198.51.100.7', headers: { 'x-forwarded-proto': 'https' } });
    assertSecurityHeaders(stranger.headers, 'a client that is not the proxy');
  });
});

describe('CORS: the public API for any origin (or CORS_ORIGINS), the rest for none', () => {
  let db: TestDatabase;
  let anyOrigin: StaffTestApp;
  let listed: StaffTestApp;
  const ALLOWED = 'https://ops.example.com';
  const EVIL = 'https://evil.example';
  const preflight = (origin: string, url: string, method = 'POST', headers = 'content-type'): InjectOptions => ({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
  const corsHeaders = (res: LightMyRequestResponse) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));
  const PUBLIC = ['/api/rates', '/api/transactions', '/api/transactions/status?tx_id=x', '/api/tx/' + 'a'.repeat(64), '/api/tx/' + 'a'.repeat(64) + '/hex', '/api/nowhere', '/rest-api/getinfo', '/rest-api/submit-tx', '/rest-api/status-check?tx_id=x', '/rest-api/site-info', '/rest-api/parse-tx'];
  const NOT_PUBLIC = ['/rest-api/client/view', '/rest-api/staff/me', '/rest-api/login', '/rest-api/auth-config', '/rest-api/metrics', '/rest-api/health', '/mempool/api/state', '/swagger-ui/json', '/rest-api/nowhere'];

  before(async () => {
    db = await testDatabases()[0]!.open();
    anyOrigin = await startStaffTestApp(db, undefined);
    listed = await startStaffTestApp(await db.openPeer(), undefined, { corsOrigins: [ALLOWED, 'http://localhost:5173'] });
  });

  after(async () => {
    await listed?.close();
    await anyOrigin?.close();
    await db?.close();
  });

  test('every public endpoint answers a preflight from any origin: POST with JSON, no credentials, Retry-After exposed', async () => {
    for (const url of PUBLIC) {
      for (const origin of [EVIL, 'null', 'http://localhost:9999']) {
        const pre = await anyOrigin.app.inject(preflight(origin, url));
        assert.equal(pre.statusCode, 204, `${url} from ${origin}`);
        assert.equal(pre.headers['access-control-allow-origin'], '*', url);
        assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
        assert.match(String(pre.headers['access-control-allow-headers']), /content-type/);
        assert.equal(pre.headers['access-control-allow-credentials'], undefined, url);
      }
    }
    const get = await anyOrigin.app.inject({ method: 'GET', url: '/api/rates', headers: { origin: EVIL } });
    assert.equal(get.headers['access-control-allow-origin'], '*');
    assert.match(String(get.headers['access-control-expose-headers']), /retry-after/i);
    assert.equal(get.headers['access-control-allow-credentials'], undefined);
  });

  test('staff endpoints, login, metrics and the rest give no CORS to another origin, whatever CORS_ORIGINS says', async () => {
    for (const app of [anyOrigin, listed]) {
      for (const url of NOT_PUBLIC) {
        for (const origin of [EVIL, ALLOWED]) {
          const pre = await app.app.inject(preflight(origin, url, 'GET', 'authorization'));
          assert.deepEqual(corsHeaders(pre), [], `preflight ${url} from ${origin}`);
          assert.notEqual(pre.statusCode, 204, url);
        }
      }
      const me = await app.app.inject({ method: 'GET', url: '/rest-api/staff/me', headers: { origin: ALLOWED, authorization: `Bearer ${app.tokens.viewer}` } });
      assert.equal(me.statusCode, 200);
      assert.deepEqual(corsHeaders(me), []);
    }
  });

  test('with CORS_ORIGINS set, the public endpoints answer those origins only, exactly', async () => {
    const pre = await listed.app.inject(preflight(ALLOWED, '/api/transactions'));
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], ALLOWED);
    assert.match(String(pre.headers.vary), /origin/i);
    const get = await listed.app.inject({ method: 'GET', url: '/rest-api/site-info', headers: { origin: ALLOWED } });
    assert.equal(get.headers['access-control-allow-origin'], ALLOWED);
    assertSecurityHeaders(get.headers, 'a CORS answer');
    for (const origin of [EVIL, 'null', `${ALLOWED}.evil.example`, 'http://ops.example.com', 'https://OPS.example.com', `${ALLOWED}:8443`]) {
      assert.deepEqual(corsHeaders(await listed.app.inject(preflight(origin, '/api/transactions'))), [], origin);
      assert.deepEqual(corsHeaders(await listed.app.inject({ method: 'GET', url: '/api/rates', headers: { origin } })), [], origin);
    }
  });

  test("a public endpoint's answer does not depend on cookies", async () => {
    const plain = await anyOrigin.app.inject({ method: 'GET', url: '/rest-api/site-info', headers: { origin: EVIL } });
    const withCookie = await anyOrigin.app.inject({ method: 'GET', url: '/rest-api/site-info', headers: { origin: EVIL, cookie: `session=${anyOrigin.tokens.admin}; id_token=${anyOrigin.tokens.admin}` } });
    assert.equal(withCookie.body, plain.body);
    assert.deepEqual(corsHeaders(withCookie), corsHeaders(plain));
    assert.equal(withCookie.headers['set-cookie'], undefined);
  });
});

// ---- In a real browser: the built web app under its policy ----------------------------------------

describe('in a browser: no policy violations, Swagger UI renders, no other site frames the portal', () => {
  let node: TestNode;
  let db: TestDatabase;
  let app: WebTestApp;
  let browser: Browser;
  let framer: http.Server;
  let framerUrl: string;

  before(async () => {
    node = await startTestNode();
    db = await testDatabases()[0]!.open();
    app = await startWebTestApp(node, db);
    browser = await launchBrowser();
    // Another site (another origin: another port) that tries to frame the portal.
    framer = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>framer</title><iframe id="portal" src="${app.base}/" width="800" height="600"></iframe><iframe id="mempool" src="${app.base}/mempool/"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    framerUrl = `http://localhost:${(framer.address() as { port: number }).port}/`;
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => framer?.close(resolve));
    await app?.close();
    await db?.close();
    await node?.stop();
  });

  /** Records every CSP violation the page reports, in every frame. */
  async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    await page.exposeFunction('reportCspViolation', (text: string) => violations.push(text));
    await page.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) => void window.reportCspViolation(e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber));`,
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    return { page, violations };
  }

  test('the portal, its sign-in, the dashboard and /mempool/ run without a single violation', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${app.base}/`);
    await page.getByRole('button', { name: 'SUBMIT', exact: true }).waitFor();
    // The mempool view is private by default: a visitor is told so (its requests refused with 401, no violation either).
    await page.goto(`${app.base}/mempool/`);
    await page.getByText('The mempool view is private: sign in to the dashboard to see it.').waitFor();
    // Staff sign-in through the identity provider (another origin: connect-src and frame-src name it), then the dashboard, which frames /mempool/.
    await page.goto(`${app.base}/dashboard?section=mempool`);
    await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(app.password('admin'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.base}/dashboard?section=mempool`);
    await page.frameLocator('iframe[title="Mempool"]').getByRole('heading', { name: 'Fee rates in the mempool' }).waitFor();
    // Signed in, the page on its own reads the stream with the staff token.
    await page.goto(`${app.base}/mempool/`);
    await page.getByRole('region', { name: 'Projected and mined blocks' }).waitFor();
    await page.goto(`${app.base}/dashboard?section=clients`);
    await page.getByRole('table').first().waitFor();
    assert.deepEqual(violations, []);
    // The toasts' stylesheet comes with the bundle's CSS: an inline <style> (react-toastify's default) would be refused.
    const toastRules = await page.evaluate<boolean>(
      "[...document.styleSheets].some((sheet) => [...sheet.cssRules].some((rule) => rule.cssText.includes('Toastify__toast-container')))",
    );
    assert.ok(toastRules, 'the toast styles are loaded');
    // The watch itself works: an inline script is refused, and reported.
    await page.evaluate("document.head.append(Object.assign(document.createElement('script'), { textContent: 'window.inlineRan = true' }))");
    await until(async () => violations.length > 0, async () => 'an inline script was not reported as a violation', 5_000);
    assert.match(violations.join('\n'), /script-src/);
    assert.equal(await page.evaluate<boolean>('window.inlineRan === true'), false, 'the inline script did not run');
    await page.context().close();
  });

  test('Swagger UI renders under its own policy, without violations', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${app.base}/swagger-ui/`);
    await page.locator('.swagger-ui .info .title').waitFor();
    await page.locator('.opblock').first().waitFor();
    assert.match(await page.locator('.swagger-ui .info .title').innerText(), /Direct Transaction Submission Portal API/);
    assert.deepEqual(violations, []);
    await page.context().close();
  });

  test('another site cannot frame the portal or /mempool/', async () => {
    const { page } = await watchedPage();
    await page.goto(framerUrl);
    await page.waitForLoadState('load');
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    assert.equal(frames.length, 2);
    for (const frame of frames) {
      // A frame the browser refused to render shows its error page, not the portal.
      const blocked = await frame.evaluate<boolean>("document.querySelector('#root') === null").catch(() => true);
      assert.ok(blocked, `${frame.url()} rendered inside another site`);
    }
    await page.context().close();
  });
});
