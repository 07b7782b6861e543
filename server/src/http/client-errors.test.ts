import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify, { type ConnectionError, type FastifyInstance } from 'fastify';
import { BAD_REQUEST_MESSAGE, CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE, createClientErrorHandler, HEADERS_TOO_LARGE_MESSAGE, parserRefusal, REQUEST_TIMEOUT_MESSAGE } from './client-errors.ts';
import { contentSecurityPolicy, createSecurityHeaders } from './security-headers.ts';

const securityHeaders = createSecurityHeaders({ identityProviderOrigins: ['https://idp.example'] });

/** Sends raw bytes, reads until the server closes (a reset after an answer is the end of it). */
function exchange(port: number, bytes: string, options: { keepOpen?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', done);
    socket.on('error', (error) => (chunks.length > 0 ? done() : reject(error)));
    if (options.keepOpen) socket.write(bytes);
    else socket.end(bytes);
  });
}

function parse(raw: string): { status: number; headers: Map<string, string>; body: string } {
  const match = /^HTTP\/1\.1 (\d{3}) [^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  assert.ok(match, `not an HTTP response: ${JSON.stringify(raw.slice(0, 200))}`);
  const headers = new Map(match[2]!.split('\r\n').map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
  }));
  return { status: Number(match[1]), headers, body: match[3]! };
}

async function listening(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

test('parser errors map to the statuses Node itself uses, each with a message for people', () => {
  assert.deepEqual(parserRefusal('HPE_HEADER_OVERFLOW'), { statusCode: 431, message: HEADERS_TOO_LARGE_MESSAGE });
  assert.deepEqual(parserRefusal('HPE_CHUNK_EXTENSIONS_OVERFLOW'), { statusCode: 413, message: CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE });
  assert.deepEqual(parserRefusal('ERR_HTTP_REQUEST_TIMEOUT'), { statusCode: 408, message: REQUEST_TIMEOUT_MESSAGE });
  for (const code of ['HPE_INVALID_HEADER_TOKEN', 'HPE_INVALID_METHOD', 'HPE_UNEXPECTED_CONTENT_LENGTH', undefined]) {
    assert.deepEqual(parserRefusal(code), { statusCode: 400, message: BAD_REQUEST_MESSAGE });
  }
});

test('over real HTTP: 431, 413, 400 and 408 in the API error shape with the security headers, and the connection closed', async () => {
  // A short request timeout, checked often, so that a silent client is answered in a moment.
  const app = Fastify({ requestTimeout: 300, http: { connectionsCheckingInterval: 50 }, clientErrorHandler: createClientErrorHandler(securityHeaders) });
  let reached = 0;
  app.post('/x', async () => {
    reached++;
    return { ok: true };
  });
  const port = await listening(app);
  try {
    const cases: Array<[string, string, number, string, { keepOpen?: boolean }?]> = [
      ['a 100 KB header', `POST /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`, 431, HEADERS_TOO_LARGE_MESSAGE],
      ['a 20 KB URL', `GET /x?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, HEADERS_TOO_LARGE_MESSAGE],
      ['20 KB of chunk extensions', `POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1;${'a'.repeat(20_000)}\r\n`, 413, CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE],
      ['a header name with a space', 'GET /x HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400, BAD_REQUEST_MESSAGE],
      ['Content-Length with Transfer-Encoding', 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, BAD_REQUEST_MESSAGE],
      ['a TLS handshake', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', 400, BAD_REQUEST_MESSAGE],
      ['half a request, then silence', 'POST /x HTTP/1.1\r\nHost: x\r\n', 408, REQUEST_TIMEOUT_MESSAGE, { keepOpen: true }],
    ];
    for (const [what, bytes, status, message, options] of cases) {
      const res = parse(await exchange(port, bytes, options));
      assert.equal(res.status, status, what);
      assert.deepEqual(JSON.parse(res.body), { status: 'error', message }, what);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', what);
      assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.body), what);
      assert.equal(res.headers.get('connection'), 'close', what);
      assert.equal(res.headers.get('content-security-policy'), contentSecurityPolicy('app', ['https://idp.example']), what);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
      assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', what);
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', what);
      assert.equal(res.headers.get('strict-transport-security'), undefined, `${what}: no HSTS over plain HTTP`);
    }
    assert.equal(reached, 0, 'no refused request reached a route');
  } finally {
    await app.close();
  }
});

test('a bad request pipelined behind a response already under way closes the connection without a word more', async () => {
  const handler = createClientErrorHandler(securityHeaders);
  const seen: string[] = [];
  const app = Fastify({
    clientErrorHandler: function (this: FastifyInstance, error: ConnectionError, socket: net.Socket) {
      seen.push(error.code);
      handler.call(this, error, socket);
    },
  });
  let finish: (() => void) | undefined;
  app.get('/slow', (_request, reply) => {
    // The head and half the body go out; the rest waits.
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4' });
    reply.raw.write('ab');
    finish = () => reply.raw.end('cd');
  });
  const port = await listening(app);
  try {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        // Half the first response is here: now the second request, which the parser refuses.
        if (Buffer.concat(chunks).toString().endsWith('ab')) socket.write('GET /x HTTP/1.1\r\nBad Header: 1\r\n\r\n');
      });
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', (error) => (chunks.length > 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(error)));
      socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(raw.endsWith('\r\n\r\nab'), `nothing after the half-sent body: ${JSON.stringify(raw)}`);
    assert.doesNotMatch(raw, /HTTP\/1\.1 400/);
    assert.deepEqual(seen, ['HPE_INVALID_HEADER_TOKEN'], 'the parser refused the second request');
  } finally {
    finish?.();
    await app.close();
  }
});

test('a reset, destroyed or half-closed socket is only destroyed: nothing is written, nothing throws', () => {
  const handler = createClientErrorHandler(securityHeaders);
  const logged: unknown[] = [];
  const fastify = { log: { debug: (...args: unknown[]) => logged.push(args) } } as unknown as FastifyInstance;
  const error = (code: string) => Object.assign(new Error(code), { code, bytesParsed: 0, rawPacket: { type: 'Buffer', data: [] } }) as ConnectionError;
  const fakeSocket = (state: { destroyed?: boolean; writable?: boolean; headersSent?: boolean }) => {
    const socket = {
      destroyed: state.destroyed ?? false,
      writable: state.writable ?? true,
      _httpMessage: state.headersSent === undefined ? null : { headersSent: state.headersSent },
      written: [] as string[],
      destroyCalls: 0,
      write(data: Buffer) {
        if (this.destroyed || !this.writable) throw new Error('write to a dead socket');
        this.written.push(data.toString('utf8'));
        return true;
      },
      destroy(...args: unknown[]) {
        assert.deepEqual(args, [], 'destroyed without an error (no second error event)');
        this.destroyCalls++;
        this.destroyed = true;
        return this;
      },
    };
    return socket;
  };
  const cases: Array<[string, ReturnType<typeof fakeSocket>, string, number]> = [
    ['reset by the client', fakeSocket({}), 'ECONNRESET', 0],
    ['already destroyed', fakeSocket({ destroyed: true }), 'HPE_HEADER_OVERFLOW', 0],
    ['no longer writable', fakeSocket({ writable: false }), 'HPE_INVALID_METHOD', 0],
    ['a response already sending', fakeSocket({ headersSent: true }), 'HPE_INVALID_HEADER_TOKEN', 0],
    ['a response not started yet', fakeSocket({ headersSent: false }), 'ERR_HTTP_REQUEST_TIMEOUT', 1],
    ['a fresh connection', fakeSocket({}), 'HPE_HEADER_OVERFLOW', 1],
  ];
  for (const [what, socket, code, writes] of cases) {
    assert.doesNotThrow(() => handler.call(fastify, error(code), socket as unknown as net.Socket), what);
    assert.equal(socket.written.length, writes, what);
    assert.equal(socket.destroyCalls, 1, `${what}: destroyed`);
  }
  assert.match(cases[4]![1].written[0]!, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.match(cases[5]![1].written[0]!, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  assert.equal(logged.length, 2, 'the answered ones are logged (at debug)');
});
