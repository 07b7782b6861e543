import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CONNECTION_CLOSED_MESSAGE } from '../../src/audit/audit.hooks.ts';
import type { RpcClient } from '../../src/bitcoin/rpc-client.ts';
import type { Database, Queryable } from '../../src/db/database.ts';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { nodeRpc } from '../helpers/test-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';
import { rawRequest } from './helpers/request-probe.ts';

/**
 * The audit trail cannot be skipped by closing the connection before the
 * answer. Fastify runs onResponse only once an answer has been handed to the
 * socket in full, and a client that is gone never lets it; yet the request
 * may have done its work (a transaction the node accepted, a client added).
 * Such a request is recorded once its handler has answered, with the
 * answer's real outcome and a note that the client had gone; a request whose
 * body never fully arrived is recorded as failed with that note.
 *
 * Deterministic: the handler is held at the node (sendrawtransaction) or the
 * database (the client's insert) until the server has seen the client's
 * connection close.
 */

interface AuditRow {
  ip_address: string | null;
  endpoint: string;
  http_method: string;
  client_code: string | null;
  source_type: string;
  is_success: boolean;
  error_message: string | null;
  request_payload: string | null;
  response_payload: string | null;
}

/** A point the app's work stops at, once, until released. */
function createGate() {
  let armed: { matches: (what: string) => boolean; reached: () => void; released: Promise<void> } | undefined;
  return {
    async pass(what: string): Promise<void> {
      if (!armed?.matches(what)) return;
      const { reached, released } = armed;
      armed = undefined;
      reached();
      await released;
    },
    /** Holds the next piece of work `matches` picks; `reached` resolves when it is held. */
    hold(matches: (what: string) => boolean) {
      let release!: () => void;
      let reached!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const isReached = new Promise<void>((resolve) => (reached = resolve));
      armed = { matches, reached, released };
      return { reached: isReached, release };
    },
  };
}

function gatedRpc(inner: RpcClient, gate: ReturnType<typeof createGate>): RpcClient {
  return {
    async call<T>(method: string, params?: unknown[]): Promise<T> {
      await gate.pass(method);
      return inner.call<T>(method, params);
    },
    batch: (calls) => inner.batch(calls),
    wallet: (name) => gatedRpc(inner.wallet(name), gate),
  };
}

function gatedDb(inner: Database, gate: ReturnType<typeof createGate>): Database {
  const gated = (q: Queryable): Queryable => ({
    async query(sql, params) {
      await gate.pass(sql);
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  return { ...gated(inner), kind: inner.kind, transaction: (fn) => inner.transaction((tx) => fn(gated(tx))), listen: (channel, handlers) => inner.listen(channel, handlers), close: () => inner.close() };
}

const post = (path: string, body: string, headers: Record<string, string> = {}, contentLength = Buffer.byteLength(body)) =>
  `POST ${path} HTTP/1.1\r\nHost: portal.example\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(4);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`a request whose client closed the connection before the answer is still audited (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let port: number;
    const gate = createGate();

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(gatedDb(db, gate), node, { rpc: gatedRpc(nodeRpc(node), gate), auditFlushIntervalMs: 3_600_000 });
      port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    const lastId = async () => (await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM audit_logs')).rows[0]!.id;
    const rowsAfter = async (id: number) => {
      await t.audit.flush();
      return (await db.query<AuditRow>(
        'SELECT ip_address, endpoint, http_method, client_code, source_type, is_success, error_message, request_payload, response_payload FROM audit_logs WHERE id > $1 ORDER BY id',
        [id],
      )).rows;
    };
    /** The rows after `id`, once there is one (the handler answers after the client left). */
    const rowsOnceWritten = async (id: number) => {
      await until(async () => (await rowsAfter(id)).length > 0, async () => 'no audit row was written for the request', 10_000);
      return rowsAfter(id);
    };

    /** Resolves when the server's side of its next connection has closed. */
    const nextConnectionClosed = () => new Promise<void>((resolve) => t.app.server.once('connection', (socket: net.Socket) => socket.once('close', () => resolve())));

    /** Sends `request` on a new connection and returns the socket, for the test to close when it wants. */
    const send = (request: string) =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(request, () => resolve(socket)));
        socket.on('error', reject);
      });

    for (const how of ['end', 'reset'] as const) {
      test(`a submission the node accepts after the client left (${how === 'end' ? 'closed' : 'reset'}) is audited as the success it was`, async () => {
        const tx = await node.buildTx({ feeRate: 3 });
        const from = await lastId();
        const held = gate.hold((what) => what === 'sendrawtransaction');
        const serverClosed = nextConnectionClosed();
        const socket = await send(post('/rest-api/submit-tx', JSON.stringify({ tx_hex: tx.hex, client_code: 'LEFT-EARLY' })));
        await held.reached;
        socket.on('error', () => {});
        if (how === 'end') socket.end();
        else socket.resetAndDestroy();
        await serverClosed;
        held.release();

        const rows = await rowsOnceWritten(from);
        assert.deepEqual(
          rows.map((r) => [r.endpoint, r.http_method, r.client_code, r.source_type, r.is_success, r.error_message]),
          [['/rest-api/submit-tx', 'POST', 'LEFT-EARLY', 'External', true, CONNECTION_CLOSED_MESSAGE]],
        );
        assert.match(rows[0]!.response_payload ?? '', new RegExp(tx.txid), 'the answer the client never read is recorded');
        assert.match(rows[0]!.request_payload ?? '', /LEFT-EARLY/);
        // It did happen: the node has it and the portal recorded it.
        assert.ok(await node.rpc.call('getmempoolentry', [tx.txid]));
        await until(async () => (await db.query('SELECT 1 FROM tx_submissions WHERE txid = $1', [tx.txid])).rowCount === 1, async () => 'no tx_submissions row');
        // Once: the connection's close, the answer and anything after add nothing.
        assert.equal((await rowsAfter(from)).length, 1);
      });
    }

    test('an administrator\'s change completed after the client left is audited as Internal', async () => {
      const from = await lastId();
      const held = gate.hold((sql) => sql.startsWith('INSERT INTO clients'));
      const serverClosed = nextConnectionClosed();
      const socket = await send(post('/rest-api/client/add', JSON.stringify({ name: 'Left Before The Answer' }), { authorization: `Bearer ${t.tokens.admin}` }));
      await held.reached;
      socket.destroy();
      await serverClosed;
      held.release();

      const rows = await rowsOnceWritten(from);
      assert.deepEqual(
        rows.map((r) => [r.endpoint, r.source_type, r.is_success, r.error_message]),
        [['/rest-api/client/add', 'Internal', true, CONNECTION_CLOSED_MESSAGE]],
      );
      // Read while the connection was open: a closed socket has no address to give.
      assert.equal(rows[0]!.ip_address, '127.0.0.1');
      assert.equal((await db.query("SELECT 1 FROM clients WHERE name = 'Left Before The Answer'")).rowCount, 1, 'the client was added');
      assert.equal((await rowsAfter(from)).length, 1);
    });

    test('a request whose body never fully arrived is audited as failed, with the note', async () => {
      const from = await lastId();
      const serverClosed = nextConnectionClosed();
      // Says 10,000 bytes, sends 20 and leaves.
      const socket = await send(post('/rest-api/submit-tx', '{"tx_hex": "0200000', {}, 10_000));
      socket.destroy();
      await serverClosed;

      const rows = await rowsOnceWritten(from);
      assert.deepEqual(
        rows.map((r) => [r.endpoint, r.http_method, r.source_type, r.is_success, r.error_message]),
        [['/rest-api/submit-tx', 'POST', 'External', false, CONNECTION_CLOSED_MESSAGE]],
      );
    });

    test('a request Node\'s parser cuts off after its headers reached the app is recorded, with its address, and the trail goes on', async () => {
      const from = await lastId();
      // Chunk extensions past Node's 16 KiB: the headers reach the app, then the parser refuses the body and closes.
      const refused = await rawRequest(port, `POST /rest-api/submit-tx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1;${'a'.repeat(20_000)}\r\n`);
      assert.equal(refused.status, 413);
      const rows = await rowsOnceWritten(from);
      assert.deepEqual(
        rows.map((r) => [r.ip_address, r.endpoint, r.http_method, r.is_success, r.error_message]),
        [['127.0.0.1', '/rest-api/submit-tx', 'POST', false, CONNECTION_CLOSED_MESSAGE]],
      );
      // The row was written, so later ones are too.
      const after = await lastId();
      assert.equal((await rawRequest(port, `GET /rest-api/site-info HTTP/1.1\r\nHost: portal.example\r\nConnection: close\r\n\r\n`)).status, 200);
      assert.deepEqual((await rowsAfter(after)).map((r) => [r.endpoint, r.is_success]), [['/rest-api/site-info', true]]);
    });

    test('a request whose client reads the answer is recorded once, without the note', async () => {
      const from = await lastId();
      const answer = await rawRequest(port, `GET /rest-api/site-info HTTP/1.1\r\nHost: portal.example\r\nConnection: close\r\n\r\n`);
      assert.equal(answer.status, 200);
      const rows = await rowsAfter(from);
      assert.deepEqual(rows.map((r) => [r.endpoint, r.is_success, r.error_message]), [['/rest-api/site-info', true, null]]);
    });
  });
}
