import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { NESTED_TOO_DEEPLY, tooManyValues } from '../../src/audit/audit-payload.ts';
import { CONNECTION_CLOSED_MESSAGE } from '../../src/audit/audit.hooks.ts';
import { MAX_TX_HEX_CHARS } from '../../src/modules/submission/submission.schemas.ts';
import { BAD_REQUEST_MESSAGE, CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE, HEADERS_TOO_LARGE_MESSAGE } from '../../src/http/client-errors.ts';
import { NOT_UTF8_MESSAGE } from '../../src/http/json-body-parser.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { nodeRpc } from '../helpers/test-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { auditRows, countingRpc, dbFingerprint, rawRequest, type CountingRpc, type RawResponse } from './helpers/request-probe.ts';

/**
 * Bad input at the HTTP edge, on every public route and every staff write
 * route: oversized bodies, deep JSON, header floods, wrong content types,
 * bytes that are not UTF-8, and unicode in every text field. Each refusal is
 * a 4xx in the API's JSON error shape with a message that says what is
 * wrong, makes no node call and changes no row (the audit trail records the
 * request: exactly one row each). Text that is valid Unicode is stored
 * exactly as sent wherever free text is allowed, and refused with the
 * field's own message where a format is required.
 *
 * http-limits.test.ts already covers one over-limit submit-tx body, malformed
 * JSON and the rate limits; they are not repeated here.
 */

/** Valid Unicode that free-text fields store exactly as sent. */
const VALID_TEXT: Record<string, string> = {
  emoji: 'Zoë 🚀 👩🏽‍💻 🇨🇭',
  'right-to-left with an override': 'שלום عالم \u202Eevil\u202C',
  'combining marks': 'Z\u0351\u0310a\u0336l\u0334g\u0335o e\u0301',
  'astral and private use': '𝕳𝖊𝖑𝖑𝖔 漢字 \u{10FFFF}\u{E000}',
  noncharacters: 'a\uFFFEb\uFFFF',
  'control characters': 'tab\there\r\nline \u0007\u001b[31m',
};

/** Strings no text field can store as sent: refused with a 400 naming the field. */
const BAD_TEXT: Record<string, { text: string; says: RegExp }> = {
  NUL: { text: 'a\u0000b', says: /NUL character \(U\+0000\)/ },
  'lone high surrogate': { text: 'a\uD800b', says: /unpaired UTF-16 surrogate \(\\uD800\)/ },
  'lone low surrogate': { text: 'a\uDC00b', says: /unpaired UTF-16 surrogate \(\\uDC00\)/ },
  'high surrogate at the end': { text: 'ab\uD83D', says: /unpaired UTF-16 surrogate \(\\uD83D\)/ },
  'pair in the wrong order': { text: '\uDE80\uD83D', says: /unpaired UTF-16 surrogate \(\\uDE80\)/ },
};

const TOO_LARGE = { status: 'error', message: 'The request body is too large.' };
/** The headers every answer of the app carries (src/http/security-headers.ts); HSTS only over TLS. */
const SECURITY_HEADERS = ['content-security-policy', 'x-content-type-options', 'referrer-policy', 'x-frame-options', 'strict-transport-security'];
/** Fastify's default body limit, which the staff routes keep. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(6);
});

after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`bad input at the HTTP edge (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let counting: CountingRpc;
    let port: number;
    let clientId: number;
    let discountId: number;
    const settingIds = new Map<string, number>();

    let ipCounter = 0;
    /** Every request comes from its own address: the login route allows 10 a minute per address. */
    const nextIp = () => {
      ipCounter++;
      return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
    };

    before(async () => {
      db = await engine.open();
      counting = countingRpc(nodeRpc(node));
      // Requests read the mempool engine's latest view, as in production, rather than making it catch up with the node first.
      t = await startStaffTestApp(db, node, { rpc: counting.rpc, auditFlushIntervalMs: 3_600_000, mempool: { consistency: 'latest' } });
      port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);

      const client = await t.call<{ id: number }>('POST', '/rest-api/client/add', { body: { name: 'Base Client' } });
      assert.equal(client.statusCode, 200);
      clientId = client.body.id;
      const discount = await t.call<{ id: number }>('POST', '/rest-api/client-code/add', { body: discountBody({}) });
      assert.equal(discount.statusCode, 200);
      discountId = discount.body.id;
      const settings = await t.call<{ result: Array<{ id: number; item: string }> }>('GET', '/rest-api/settings/view');
      for (const s of settings.body.result) settingIds.set(s.item, s.id);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    const discountBody = (fields: Record<string, unknown>) => ({
      client_name: 'Base Client',
      description: 'ten percent',
      discount_percentage: 10,
      valid_from: '2026-01-01 00:00:00',
      valid_until: '2099-12-31 23:59:59',
      ...fields,
    });

    const admin = () => ({ authorization: `Bearer ${t.tokens.admin}` });

    interface Route {
      name: string;
      url: () => string;
      staff: boolean;
      /** A body the route accepts the shape of. */
      body: () => unknown;
      /** Paths of every text field in that body. */
      textFields: Array<Array<string | number>>;
    }

    const ROUTES: Route[] = [
      { name: 'parse-tx', url: () => '/rest-api/parse-tx', staff: false, body: () => ({ tx_hexes: ['00'], client_code: 'C' }), textFields: [['tx_hexes', 0], ['client_code']] },
      { name: 'submit-tx', url: () => '/rest-api/submit-tx', staff: false, body: () => ({ tx_hex: 'zz', client_code: 'C' }), textFields: [['tx_hex'], ['client_code']] },
      { name: 'submit-package', url: () => '/rest-api/submit-package', staff: false, body: () => ({ tx_hexes: ['zz'], client_code: 'C' }), textFields: [['tx_hexes', 0], ['client_code']] },
      { name: 'login', url: () => '/rest-api/login', staff: false, body: () => ({ username: 'nobody', password: 'secret' }), textFields: [['username'], ['password']] },
      ...(['add', 'update'] as const).map((op): Route => ({
        name: `client/${op}`,
        url: () => (op === 'add' ? '/rest-api/client/add' : `/rest-api/client/update/${clientId}`),
        staff: true,
        body: () => ({
          name: 'Base Client',
          email: 'a@example.com',
          phone_number: '123',
          alternate_phone: '456',
          address: 'Street 1',
          organization_name: 'Org',
          organization_email: 'org@example.com',
          description: 'notes',
        }),
        textFields: [['name'], ['email'], ['phone_number'], ['alternate_phone'], ['address'], ['organization_name'], ['organization_email'], ['description']],
      })),
      ...(['add', 'update'] as const).map((op): Route => ({
        name: `client-code/${op}`,
        url: () => (op === 'add' ? '/rest-api/client-code/add' : `/rest-api/client-code/update/${discountId}`),
        staff: true,
        body: () => discountBody({ discount_percentage: '10' }),
        textFields: [['client_name'], ['description'], ['discount_percentage'], ['valid_from'], ['valid_until']],
      })),
      {
        name: 'settings/update',
        url: () => '/rest-api/settings/update',
        staff: true,
        body: () => [{ id: settingIds.get('pool_coinbase_tag'), item: 'pool_coinbase_tag', value: 'tag', description: 'the tag' }],
        textFields: [[0, 'item'], [0, 'value'], [0, 'description']],
      },
      { name: 'retry-txs/update', url: () => '/rest-api/retry-txs/update', staff: true, body: () => ({ ids: [1] }), textFields: [['ids', 0]] },
    ];

    /** A copy of `body` with the field at `path` set to `value`. */
    function withField(body: unknown, path: Array<string | number>, value: unknown): unknown {
      const copy = structuredClone(body) as Record<string | number, unknown>;
      let at = copy;
      for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
      at[path.at(-1)!] = value;
      return copy;
    }

    const post = (route: Route, payload: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }): InjectOptions => ({
      method: 'POST',
      url: route.url(),
      headers: { ...(route.staff ? admin() : {}), ...headers },
      payload,
    });

    interface Refusal {
      status: number | number[];
      message?: string | RegExp;
    }

    /**
     * Sends `request` and checks what a refusal must be: the expected 4xx in
     * the API's error shape with a message, exactly one audit row, no row
     * changed anywhere else, no node call.
     */
    async function refused(what: string, request: InjectOptions, expected: Refusal): Promise<LightMyRequestResponse> {
      await t.audit.flush();
      const rowsBefore = await dbFingerprint(db);
      const auditBefore = await auditRows(db);
      const { result: res, calls } = await counting.probe(() => t.app.inject({ remoteAddress: nextIp(), ...request }));
      const statuses = Array.isArray(expected.status) ? expected.status : [expected.status];
      assert.ok(statuses.includes(res.statusCode), `${what}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
      assert.match(String(res.headers['content-type']), /^application\/json/, what);
      const body = res.json<{ status?: string; message?: string }>();
      assert.equal(body.status, 'error', `${what}: ${res.body.slice(0, 300)}`);
      assert.ok(typeof body.message === 'string' && body.message.length > 0, `${what}: no message`);
      if (typeof expected.message === 'string') assert.equal(body.message, expected.message, what);
      else if (expected.message) assert.match(body.message, expected.message, what);
      assert.doesNotMatch(res.body, /at .*\.ts:\d+/, `${what}: a stack trace`);
      await t.audit.flush();
      assert.deepEqual(await dbFingerprint(db), rowsBefore, `${what}: rows changed`);
      assert.equal((await auditRows(db)) - auditBefore, 1, `${what}: audit rows`);
      assert.deepEqual(calls, [], `${what}: node calls`);
      return res;
    }

    // ---- Oversized bodies -------------------------------------------------------------

    test('a body twice the limit is refused with 413 on every write route, before it is parsed', async () => {
      for (const route of ROUTES) {
        // Public routes: twice a 4,000,000-byte transaction's hex; staff routes: twice Fastify's 1 MiB.
        const size = route.staff ? 2 * DEFAULT_BODY_LIMIT : 2 * MAX_TX_HEX_CHARS;
        const field = route.staff ? 'description' : route.name === 'submit-tx' ? 'tx_hex' : 'tx_hexes';
        const payload = route.name === 'submit-tx' || route.staff ? `{"${field}":"${'0'.repeat(size)}"}` : `{"${field}":["${'0'.repeat(size)}"]}`;
        await refused(`${route.name} ${payload.length} bytes`, post(route, payload), { status: 413, message: TOO_LARGE.message });
      }
    });

    test('a staff route refuses a stranger\'s oversized upload as unauthorised, without reading it', async () => {
      for (const route of ROUTES.filter((r) => r.staff)) {
        const res = await refused(`${route.name} without a token`, { method: 'POST', url: route.url(), headers: { 'content-type': 'application/json' }, payload: `{"x":"${'0'.repeat(2 * DEFAULT_BODY_LIMIT)}"}` }, { status: 401 });
        assert.match(res.json<{ message: string }>().message, /Sign-in required/);
      }
    });

    test('a transaction hex just over 8,000,000 characters, inside the body limit, is refused by the decoder with its size', async () => {
      const tooLong = '0'.repeat(MAX_TX_HEX_CHARS + 2);
      const submit = ROUTES.find((r) => r.name === 'submit-tx')!;
      await refused('submit-tx hex over the limit', post(submit, JSON.stringify({ tx_hex: tooLong })), { status: 400, message: /^Transaction hex is 8,000,002 characters long, but no transaction over 4,000,000 bytes/ });
      const pkg = ROUTES.find((r) => r.name === 'submit-package')!;
      await refused('submit-package hex over the limit', post(pkg, JSON.stringify({ tx_hexes: [tooLong] })), { status: 400, message: /^Transaction 1 of the package: Transaction hex is 8,000,002 characters long/ });
    });

    test('over real HTTP: a chunked body past the limit and a huge Content-Length get 413 without reaching a service', async () => {
      const chunk = Buffer.alloc(1024 * 1024, 0x30);
      const chunks = Array.from({ length: 17 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      const rowsBefore = await dbFingerprint(db);
      const callsBefore = counting.calls.length;
      const chunked = await rawRequest(port, Buffer.concat([
        Buffer.from('POST /rest-api/submit-tx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'),
        Buffer.from('b\r\n{"tx_hex":"\r\n'),
        ...chunks,
      ]));
      assert.equal(chunked.status, 413);
      assert.deepEqual(JSON.parse(chunked.body), TOO_LARGE);
      const declared = await rawRequest(port, 'POST /rest-api/submit-tx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n{');
      assert.equal(declared.status, 413);
      assert.deepEqual(JSON.parse(declared.body), TOO_LARGE);
      assert.deepEqual(counting.calls.slice(callsBefore), []);
      assert.deepEqual(await dbFingerprint(db), rowsBefore);
    });

    // ---- Deep JSON ------------------------------------------------------------------

    test('10,000 nested arrays or objects, as the body or in a field, get a 400 on every write route and one audit row each', async () => {
      const deepArray = '['.repeat(10_000) + ']'.repeat(10_000);
      const deepObject = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
      for (const route of ROUTES) {
        const field = route.textFields[0]!;
        // The first text field, as a deep array: `{"tx_hexes":[ [[[…]]] ]}` and the like.
        const inField = JSON.stringify(withField(route.body(), field, '@@')).replace('"@@"', deepArray);
        for (const [shape, payload] of [['array body', deepArray], ['object body', deepObject], [`array in ${field.join('.')}`, inField]] as const) {
          await refused(`${route.name}: ${shape}`, post(route, payload), { status: 400 });
        }
      }
      // Its payload is too deep to serialise, and the audit row says so instead of going missing.
      const { rows } = await db.query<{ request_payload: string }>('SELECT request_payload FROM audit_logs ORDER BY id DESC LIMIT 1');
      assert.equal(rows[0]!.request_payload, NESTED_TOO_DEEPLY);
    });

    test('a million values in one array get a 400, and the audit row notes them instead of serialising them all', async () => {
      const wide = `{"tx_hexes":[${Array(1_000_000).fill('[]').join(',')}]}`;
      const route = ROUTES.find((r) => r.name === 'parse-tx')!;
      await refused('parse-tx with a million empty arrays', post(route, wide), { status: 400, message: 'body/tx_hexes must NOT have more than 100 items' });
      const { rows } = await db.query<{ request_payload: string }>('SELECT request_payload FROM audit_logs ORDER BY id DESC LIMIT 1');
      // The test app keeps 4,096 characters of a payload, so at most 8 × 4,096 values are serialised.
      assert.equal(rows[0]!.request_payload, tooManyValues(8 * 4096));
    });

    test('400,000 nested arrays (parsed off the main thread) get a 400 that says the JSON is invalid', async () => {
      const deep = '['.repeat(400_000) + ']'.repeat(400_000);
      for (const name of ['parse-tx', 'client/add']) {
        const route = ROUTES.find((r) => r.name === name)!;
        await refused(`${name}: 400,000 nested arrays`, post(route, deep), { status: 400, message: /^Body is not valid JSON/ });
      }
    });

    // ---- Content types and encodings -----------------------------------------------------

    test('wrong or missing content types get a 4xx on every write route', async () => {
      const form = '--x\r\nContent-Disposition: form-data; name="tx_hex"\r\n\r\n00\r\n--x--\r\n';
      const utf16 = Buffer.from('{"tx_hex":"00"}', 'utf16le');
      const cases: Array<[string, Record<string, string>, string | Buffer, number[]]> = [
        // Fastify reads text/plain as a string, which no route's schema takes.
        ['text/plain', { 'content-type': 'text/plain' }, '{"tx_hex":"00"}', [400]],
        // Kept as the audit row's payload: Postgres text cannot hold the NUL, and the row must still be written.
        ['text/plain with a NUL', { 'content-type': 'text/plain' }, 'tx\u0000hex', [400]],
        ['form', { 'content-type': 'application/x-www-form-urlencoded' }, 'tx_hex=00&client_code=C', [415]],
        ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, form, [415]],
        ['missing', {}, '{"tx_hex":"00"}', [415]],
        ['xml', { 'content-type': 'application/xml' }, '<tx_hex>00</tx_hex>', [415]],
        ['JSON in UTF-16', { 'content-type': 'application/json; charset=utf-16' }, utf16, [400, 415]],
      ];
      for (const route of ROUTES) {
        for (const [kind, headers, payload, statuses] of cases) {
          await refused(`${route.name} as ${kind}`, post(route, payload, headers), { status: statuses });
        }
      }
    });

    test('a JSON body that is not UTF-8 is refused, not decoded with replacement characters', async () => {
      const client = ROUTES.find((r) => r.name === 'client/add')!;
      // 'Zoë' in Latin-1: the 0xEB byte alone is no UTF-8.
      const latin1 = Buffer.concat([Buffer.from('{"name":"Zo'), Buffer.from([0xeb]), Buffer.from('"}')]);
      await refused('client/add in Latin-1', post(client, latin1), { status: 400, message: NOT_UTF8_MESSAGE });
      // A surrogate encoded on its own (CESU-8), past the off-thread threshold: the worker refuses it too.
      const parse = ROUTES.find((r) => r.name === 'parse-tx')!;
      const big = Buffer.concat([Buffer.from(`{"tx_hexes":["${'0'.repeat(600_000)}"],"client_code":"`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
      await refused('parse-tx, 600 KB, CESU-8 surrogate', post(parse, big), { status: 400, message: NOT_UTF8_MESSAGE });
    });

    // ---- Header floods and requests that are not HTTP (real HTTP: Node's parser refuses them before the app) ----

    /** The security headers of a raw answer, by name (rawRequest lowercases the head). */
    const securityHeadersOf = (res: RawResponse) =>
      Object.fromEntries(
        res.headers
          .split('\r\n')
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const)
          .filter(([name]) => SECURITY_HEADERS.includes(name)),
      );
    /** The head lines of a raw answer, by name. */
    const headerOf = (res: RawResponse, name: string) => res.headers.split('\r\n').find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1).trim();

    test('header floods, huge URLs and requests that are not HTTP are refused by the HTTP parser in the API error shape, with the security headers, and never reach the app', async () => {
      await t.audit.flush();
      const rowsBefore = await dbFingerprint(db);
      const auditBefore = await auditRows(db);
      const callsBefore = counting.calls.length;
      // What every answer of the app carries, read from one over the same kind of connection (a 404, audited).
      const reference = await rawRequest(port, 'GET /rest-api/no-such-route HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(reference.status, 404);
      const expectedHeaders = securityHeadersOf(reference);
      assert.deepEqual(Object.keys(expectedHeaders).sort(), SECURITY_HEADERS.filter((h) => h !== 'strict-transport-security').sort(), 'the app sets them (no HSTS over plain HTTP)');
      const refusedByParser = (id: string, res: RawResponse, status: number, message: string) => {
        assert.equal(res.status, status, id);
        assert.deepEqual(JSON.parse(res.body), { status: 'error', message }, id);
        assert.equal(headerOf(res, 'content-type'), headerOf(reference, 'content-type'), `${id}: content type`);
        assert.equal(Number(headerOf(res, 'content-length')), Buffer.byteLength(res.body), `${id}: content length`);
        assert.equal(headerOf(res, 'connection'), 'close', `${id}: the connection is closed`);
        assert.deepEqual(securityHeadersOf(res), expectedHeaders, `${id}: security headers`);
      };

      const body = '{"tx_hex":"zz"}';
      const request = (line: string, extra: string, withBody = true) =>
        `${line}\r\nHost: x\r\nAuthorization: Bearer ${t.tokens.admin}\r\n` +
        (withBody ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : '') +
        `${extra}\r\n${withBody ? body : ''}`;
      const floods: Array<[string, string]> = [
        ['one 100 KB header', `X-Big: ${'a'.repeat(100_000)}\r\n`],
        ['5,000 headers', Array.from({ length: 5_000 }, (_, i) => `X-H${i}: v\r\n`).join('')],
      ];
      for (const path of ['/rest-api/submit-tx', '/rest-api/client/add', '/rest-api/login']) {
        for (const [kind, extra] of floods) {
          refusedByParser(`${path} ${kind}`, await rawRequest(port, request(`POST ${path} HTTP/1.1`, extra)), 431, HEADERS_TOO_LARGE_MESSAGE);
        }
      }
      const longUrl = await rawRequest(port, request(`GET /rest-api/status-check?tx_id=${'a'.repeat(20_000)} HTTP/1.1`, '', false));
      refusedByParser('a 20,000-character URL', longUrl, 431, HEADERS_TOO_LARGE_MESSAGE);
      // The body's framing: chunk extensions past Node's 16 KiB, and both lengths at once (request smuggling).
      const extensions = await rawRequest(port, `POST /rest-api/submit-tx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1;${'a'.repeat(20_000)}\r\n`);
      refusedByParser('20 KB of chunk extensions', extensions, 413, CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE);
      const smuggled = await rawRequest(port, `POST /rest-api/submit-tx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`);
      refusedByParser('Content-Length and Transfer-Encoding together', smuggled, 400, BAD_REQUEST_MESSAGE);
      for (const [id, bytes] of [
        ['a header name with a space', 'GET /rest-api/getinfo HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
        ['a TLS handshake on the plain port', Buffer.from('16030102000100', 'hex')],
        ['a NUL in the request line', 'GET /rest-api/getinfo\u0000 HTTP/1.1\r\nHost: x\r\n\r\n'],
      ] as const) {
        refusedByParser(id, await rawRequest(port, bytes), 400, BAD_REQUEST_MESSAGE);
      }

      // Clients that vanish mid-flood: the parser's error meets a dead socket, and nothing throws.
      for (let i = 0; i < 20; i++) {
        await new Promise<void>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => {
            socket.write(request('POST /rest-api/submit-tx HTTP/1.1', floods[i % 2]![1]));
            socket.resetAndDestroy();
          });
          socket.on('error', () => {});
          socket.on('close', () => resolve());
        });
      }

      await t.audit.flush();
      assert.deepEqual(await dbFingerprint(db), rowsBefore);
      // Nothing reached the app but the reference request, and the chunk extensions' request, whose headers did before the
      // parser refused its body: that one is recorded as cut off. Nothing else is audited.
      assert.equal(await auditRows(db), auditBefore + 2);
      const { rows: cutOff } = await db.query<{ endpoint: string; is_success: boolean; error_message: string | null }>(
        'SELECT endpoint, is_success, error_message FROM audit_logs ORDER BY id DESC LIMIT 1',
      );
      assert.deepEqual(cutOff, [{ endpoint: '/rest-api/submit-tx', is_success: false, error_message: CONNECTION_CLOSED_MESSAGE }]);
      assert.deepEqual(counting.calls.slice(callsBefore), []);
      // Under the limit, 200 headers are just a request: it is answered, audited, and costs no node call.
      const ok = await rawRequest(port, request('POST /rest-api/submit-tx HTTP/1.1', `${Array.from({ length: 200 }, (_, i) => `X-H${i}: v\r\n`).join('')}Connection: close\r\n`));
      assert.equal(ok.status, 400);
      assert.equal((JSON.parse(ok.body) as { message: string }).message, 'Transaction hex contains characters that are not hexadecimal.');
      assert.deepEqual(securityHeadersOf(ok), expectedHeaders);
      await t.audit.flush();
      assert.equal(await auditRows(db), auditBefore + 3);
      assert.deepEqual(counting.calls.slice(callsBefore), []);
    });

    // ---- Unicode: refused where it cannot be stored as sent ------------------------------------

    test('NUL and unpaired surrogates in any text field of any write route are refused with a 400 naming the field', async () => {
      for (const route of ROUTES) {
        for (const path of route.textFields) {
          for (const [kind, { text, says }] of Object.entries(BAD_TEXT)) {
            const name = path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
            await refused(`${route.name} ${name}: ${kind}`, post(route, JSON.stringify(withField(route.body(), path, text))), {
              status: 400,
              message: new RegExp(`^Field '${name.replace(/[[\]]/g, '\\$&')}' in the body contains an? ${says.source}`),
            });
          }
        }
        // And in a field's name.
        await refused(`${route.name}: NUL in a field name`, post(route, JSON.stringify(withField(route.body(), route.staff && route.name.startsWith('settings') ? [0, 'x\u0000'] : ['x\u0000'], 1))), {
          status: 400,
          message: /^A field name in the body contains a NUL character/,
        });
      }
    });

    test('query strings: NUL and bytes that are not UTF-8 in the public GET routes are refused with a 400', async () => {
      for (const url of ['/rest-api/status-check?tx_id=ab%00cd', '/rest-api/getinfo?client_code=%00']) {
        await refused(`GET ${url}`, { method: 'GET', url }, { status: 400, message: /contains a NUL character/ });
      }
      // Not a txid either way: the status check says what it wants.
      for (const url of ['/rest-api/status-check?tx_id=%ED%A0%80', '/rest-api/status-check?tx_id=%FF', `/rest-api/status-check?tx_id=${encodeURIComponent('🚀'.repeat(32))}`]) {
        await refused(`GET ${url}`, { method: 'GET', url }, { status: 400, message: 'tx_id must be a transaction id of 64 hexadecimal characters.' });
      }
    });

    // ---- Unicode: stored as sent where free text is allowed -------------------------------------

    const stored = async (sql: string, params: unknown[]) => (await db.query<Record<string, unknown>>(sql, params)).rows[0];

    test('clients: every valid Unicode text is stored and answered exactly as sent; phone numbers take ASCII digits only', async () => {
      let n = 0;
      for (const [kind, text] of Object.entries(VALID_TEXT)) {
        n++;
        const fields = { name: `${text} #${n}`, address: text, organization_name: text, description: text, email: `zoë.${n}@exämple.com`, organization_email: `🚀@🚀.${n}.com` };
        const added = await t.call<Record<string, unknown> & { id: number }>('POST', '/rest-api/client/add', { body: fields });
        assert.equal(added.statusCode, 200, `${kind}: ${JSON.stringify(added.body)}`);
        const row = await stored('SELECT name, address, organization_name, description, email, organization_email FROM clients WHERE id = $1', [added.body.id]);
        assert.deepEqual(row, fields, kind);
        for (const [field, value] of Object.entries(fields)) assert.equal(added.body[field], value, `${kind}: ${field} answered`);
        // An update stores the new text as exactly, and its change log keeps it too.
        const updated = await t.call<Record<string, unknown>>('POST', `/rest-api/client/update/${added.body.id}`, { body: { ...fields, description: `${text} (2)` } });
        assert.equal(updated.statusCode, 200, kind);
        assert.equal((await stored('SELECT description FROM clients WHERE id = $1', [added.body.id]))!.description, `${text} (2)`);
        const log = await stored("SELECT updated_values FROM client_logs WHERE client_name = $1 AND action = 'Update' ORDER BY id DESC LIMIT 1", [fields.name]);
        const logged = (typeof log!.updated_values === 'string' ? JSON.parse(log!.updated_values) : log!.updated_values) as { description: string };
        assert.equal(logged.description, `${text} (2)`, kind);
      }
      const route = ROUTES.find((r) => r.name === 'client/add')!;
      for (const [field, message] of [['phone_number', 'Phone number is invalid'], ['alternate_phone', 'Alternate phone number is invalid']] as const) {
        for (const digits of ['١٢٣٤', '１２３', '12\u200b3']) {
          await refused(`client ${field} ${digits}`, post(route, JSON.stringify({ name: 'Phone Test', [field]: digits })), { status: 400, message });
        }
      }
      await refused('client email with a blank', post(route, JSON.stringify({ name: 'Mail Test', email: 'zoë @exämple.com' })), { status: 400, message: 'Email is invalid' });
    });

    test('discount codes: a client name and description in any script are stored as sent; digits and dates must be ASCII', async () => {
      const name = VALID_TEXT.emoji!;
      assert.equal((await t.call('POST', '/rest-api/client/add', { body: { name } })).statusCode, 200);
      const description = VALID_TEXT['right-to-left with an override']!;
      const added = await t.call<{ id: number; client_name: string; description: string }>('POST', '/rest-api/client-code/add', { body: discountBody({ client_name: name, description }) });
      assert.equal(added.statusCode, 200, JSON.stringify(added.body));
      assert.deepEqual([added.body.client_name, added.body.description], [name, description]);
      assert.deepEqual(await stored('SELECT c.name, d.description FROM discount_codes d JOIN clients c ON c.id = d.client_id WHERE d.id = $1', [added.body.id]), { name, description });

      const route = ROUTES.find((r) => r.name === 'client-code/add')!;
      const cases: Array<[string, Record<string, unknown>, string | RegExp]> = [
        ['Arabic-Indic percentage', { discount_percentage: '٥٠' }, 'Must be between 0 and 99.'],
        ['full-width percentage', { discount_percentage: '１０' }, 'Must be between 0 and 99.'],
        ['full-width date', { valid_from: '２０２６-01-01 00:00:00' }, 'Date input not valid.'],
        ['date with a right-to-left mark', { valid_until: '2099-12-31\u200f 23:59:59' }, 'Date input not valid.'],
        ['unknown client in another script', { client_name: 'Ζωή' }, /^Client 'Ζωή' does not exist/],
        ['client name differing by a combining mark', { client_name: 'Zoe\u0308 🚀 👩🏽‍💻 🇨🇭' }, /does not exist/],
      ];
      for (const [kind, fields, message] of cases) await refused(`discount ${kind}`, post(route, JSON.stringify(discountBody(fields))), { status: 400, message });
    });

    test('settings: a text value and a description in any script are stored as sent; numbers must be ASCII; the item must match', async () => {
      const id = settingIds.get('pool_coinbase_tag')!;
      for (const [kind, text] of Object.entries(VALID_TEXT)) {
        const res = await t.call<{ result: Array<{ value: string; description: string }> }>('POST', '/rest-api/settings/update', {
          body: [{ id, item: 'pool_coinbase_tag', value: `/${text}/`, description: `${text}.` }],
        });
        assert.equal(res.statusCode, 200, `${kind}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(await stored('SELECT value, description FROM settings WHERE id = $1', [id]), { value: `/${text}/`, description: `${text}.` }, kind);
        assert.deepEqual([res.body.result[0]!.value, res.body.result[0]!.description], [`/${text}/`, `${text}.`]);
      }
      const route = ROUTES.find((r) => r.name === 'settings/update')!;
      const floor = settingIds.get('fee_rate_floor')!;
      for (const digits of ['２', '٣', '2\u200b']) {
        await refused(`fee_rate_floor ${digits}`, post(route, JSON.stringify([{ id: floor, item: 'fee_rate_floor', value: digits }])), { status: 400, message: 'Value must be a number, e.g. 2 or 2.5' });
      }
      await refused('item in another script', post(route, JSON.stringify([{ id: floor, item: 'fее_rate_floor', value: '2' }])), { status: 400, message: /^Setting \d+ is 'fee_rate_floor', not 'fее_rate_floor'/ });
    });

    test('login: Unicode usernames and passwords are just wrong credentials (401), with nothing written but the failure count', async () => {
      const route = ROUTES.find((r) => r.name === 'login')!;
      // A failed sign-in is counted per username and address (the throttle): those rows are its only trace.
      const THROTTLE_TABLES = ['login_throttle', 'login_failure_windows'];
      const withoutThrottle = (rows: Record<string, string>) => Object.fromEntries(Object.entries(rows).filter(([name]) => !THROTTLE_TABLES.includes(name)));
      for (const [kind, text] of Object.entries(VALID_TEXT)) {
        const before = await dbFingerprint(db);
        const res = await t.app.inject({ remoteAddress: nextIp(), ...post(route, JSON.stringify({ username: text.slice(0, 60), password: text })) });
        assert.equal(res.statusCode, 401, `login ${kind}: ${res.body}`);
        assert.equal(res.json<{ message: string }>().message, 'Invalid username or password.');
        const after = await dbFingerprint(db);
        assert.deepEqual(withoutThrottle(after), withoutThrottle(before), `login ${kind}: rows changed`);
        assert.notEqual(after.login_throttle, before.login_throttle, `login ${kind}: the failure was not counted`);
      }
    });

    test('retry: ids in other digits are refused by the schema', async () => {
      const route = ROUTES.find((r) => r.name === 'retry-txs/update')!;
      for (const id of ['١', '１', '1\u0301']) await refused(`retry id ${id}`, post(route, JSON.stringify({ ids: [id] })), { status: 400, message: /^body\/ids\/0 must be integer/ });
    });

    test('public routes: hex in other scripts is refused; a client code in any script is kept exactly, in the submission and the audit trail', async () => {
      const submit = ROUTES.find((r) => r.name === 'submit-tx')!;
      for (const hex of ['０１００', 'ab\u0301cd', '٠١', '0x01', 'ᴀʙ']) {
        await refused(`submit-tx hex ${hex}`, post(submit, JSON.stringify({ tx_hex: hex, client_code: VALID_TEXT.emoji })), { status: 400, message: 'Transaction hex contains characters that are not hexadecimal.' });
      }
      const pkg = ROUTES.find((r) => r.name === 'submit-package')!;
      await refused('submit-package hex in another script', post(pkg, JSON.stringify({ tx_hexes: ['０１'] })), { status: 400, message: 'Transaction 1 of the package: Transaction hex contains characters that are not hexadecimal.' });

      // parse-tx answers 200 with the item's error: no node call, nothing written.
      const rowsBefore = await dbFingerprint(db);
      const parsed = await counting.probe(() => t.app.inject({ method: 'POST', url: '/rest-api/parse-tx', payload: { tx_hexes: ['０１', 'ab\u0301'], client_code: VALID_TEXT.emoji } }));
      assert.equal(parsed.result.statusCode, 200);
      const items = parsed.result.json<{ status: string; transactions: Array<{ status: string; message: string }> }>();
      assert.equal(items.status, 'error');
      assert.deepEqual(items.transactions.map((i) => i.message), Array(2).fill('Transaction hex contains characters that are not hexadecimal.'));
      assert.deepEqual(parsed.calls, []);
      assert.deepEqual(await dbFingerprint(db), rowsBefore);

      // A valid transaction with a 64-code-point client code (an emoji is two UTF-16 units): accepted, and the code kept whole.
      const code = `Ω${'🚀'.repeat(62)}ё`;
      assert.equal([...code].length, 64);
      const tx = await node.buildTx({ feeRate: 5 });
      const sent = await counting.probe(() => t.app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: tx.hex, client_code: code }, remoteAddress: nextIp() }));
      assert.equal(sent.result.statusCode, 200, sent.result.body);
      assert.equal(sent.result.json<{ message: string }>().message, tx.txid);
      assert.match(sent.result.json<{ notice: string }>().notice, new RegExp(`^Client code ${code} `, 'u'));
      // The counter sees what an accepted request asks the node: it can tell a node call apart.
      assert.ok(sent.calls.includes('sendrawtransaction'), sent.calls.join(', '));
      await t.records.idle();
      assert.equal((await stored('SELECT client_code FROM tx_submissions WHERE txid = $1', [tx.txid]))!.client_code, code);
      await t.audit.flush();
      const audit = await stored("SELECT client_code FROM audit_logs WHERE endpoint = '/rest-api/submit-tx' ORDER BY id DESC LIMIT 1", []);
      assert.equal(audit!.client_code, code);
    });
  });
}
