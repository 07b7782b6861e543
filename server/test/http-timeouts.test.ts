import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { REQUEST_TIMEOUT_MESSAGE } from '../src/http/client-errors.ts';
import { openEventStream } from './helpers/sse-client.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The server's own timeouts, on a listening server and raw sockets: a client
 * that sends its headers or body a byte at a time cannot hold a connection
 * (and the memory of a half-read body) open for ever; a finished request's
 * long-lived answer, the /mempool/ event stream, is not cut by them. The
 * node is pointed at a closed port: none of this reaches it.
 */

const REQUEST_MS = 1_000;
const HEADERS_MS = 600;

interface RawAnswer {
  /** Everything the server wrote before it closed the connection. */
  text: string;
  /** From the first byte sent to the close. */
  elapsedMs: number;
}

/** Opens a connection, writes `head`, then one byte of `trickle` every `everyMs` until the server closes the connection (or `giveUpMs`). */
function trickle(port: number, head: string, trickleText: string, everyMs: number, giveUpMs: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the server still held the connection after ${giveUpMs} ms; it wrote ${JSON.stringify(text)}`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => {}); // a reset after the answer is the close
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ text, elapsedMs: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.destroyed || !socket.writable) return;
        socket.write(trickleText[sent++ % trickleText.length]!);
      }, everyMs);
    });
  });
}

function assertTimedOut(answer: RawAnswer, withinMs: number): void {
  assert.match(answer.text, /^HTTP\/1\.1 408 /, `a 408, got ${JSON.stringify(answer.text.slice(0, 200))}`);
  assert.ok(answer.text.endsWith(JSON.stringify({ status: 'error', message: REQUEST_TIMEOUT_MESSAGE })), 'in the API\'s error shape');
  assert.ok(answer.elapsedMs < withinMs, `answered after ${answer.elapsedMs} ms, within ${withinMs} ms`);
}

for (const engine of testDatabases()) {
  describe(`HTTP timeouts (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let port: number;

    before(async () => {
      db = await engine.open();
      const rpc = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 1000, maxConcurrency: 1 });
      t = await startTestApp(undefined, db, {
        rpc,
        httpTimeouts: { requestMs: REQUEST_MS, headersMs: HEADERS_MS, keepAliveMs: 5_000, idleMs: 10_000 },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('a body trickled a byte at a time is cut off with 408 once the request timeout passes', async () => {
      const body = JSON.stringify({ tx_hexes: ['00'.repeat(500)] });
      const head = `POST /rest-api/parse-tx HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      // Never idle (a byte every 100 ms), never done (over 100 s at that pace).
      const answer = await trickle(port, head, body, 100, 10 * REQUEST_MS);
      assertTimedOut(answer, 4 * REQUEST_MS);
      assert.ok(answer.elapsedMs >= REQUEST_MS - 50, `not before the request timeout (${answer.elapsedMs} ms)`);
    });

    test('headers trickled a byte at a time are cut off with 408 once the headers timeout passes', async () => {
      const answer = await trickle(port, 'GET /rest-api/site-info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 'abcdefghij', 50, 10 * REQUEST_MS);
      assertTimedOut(answer, 4 * HEADERS_MS + 1_000);
    });

    test('a request that arrives in time is answered as usual on the same server', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/rest-api/site-info`);
      assert.equal(res.status, 200);
      assert.equal(typeof (await res.json() as { maintenance: unknown }).maintenance, 'boolean');
    });

    test('the /mempool/ event stream stays open well past the request timeout', async () => {
      // Open to everyone where the view has a public switch (signed-in staff otherwise).
      await db.query("UPDATE settings SET value = 'true' WHERE item = 'public_mempool_view'");
      t.settings.invalidate();
      const stream = await openEventStream(`http://127.0.0.1:${port}/mempool/api/stream`);
      try {
        let ended = false;
        void stream.ended.then(() => (ended = true));
        await stream.waitFor((frame) => frame.kind === 'comment' && frame.text === 'connected');
        await sleep(3 * REQUEST_MS);
        assert.equal(ended, false, 'the stream is still open');
        assert.equal(stream.response.socket?.destroyed, false);
      } finally {
        stream.close();
      }
    });
  });
}
