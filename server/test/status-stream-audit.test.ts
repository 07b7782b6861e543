import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openEventStream } from './helpers/sse-client.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, startTestApp, type TestApp } from './helpers/test-app.ts';
import { until } from './helpers/until.ts';

/**
 * GET /rest-api/status-stream takes the response over, so the hooks that
 * write every other request's audit row never see it end: the stream writes
 * its own row, once, as it ends, in the audit trail every request goes to.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(2);
});
after(async () => node?.stop());

interface StreamRow {
  endpoint: string;
  http_method: string;
  request_payload: string | null;
  response_payload: string | null;
  response_time_ms: number;
  error_message: string | null;
  is_success: boolean;
}

for (const engine of testDatabases()) {
  describe(`a status stream's audit row (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let base: string;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const streamRows = async () =>
      (await db.query<StreamRow>(
        `SELECT endpoint, http_method, request_payload, response_payload, response_time_ms::float8 AS response_time_ms, error_message, is_success
           FROM audit_logs WHERE endpoint = '/rest-api/status-stream' ORDER BY id`,
      )).rows;

    test('opened and closed by the client: exactly one row, with how it ended and how long it lasted', async () => {
      const tx = await node.buildTx({ feeRate: 20 });
      const submitted = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(submitted.body.status, 'success', submitted.body.message);

      const stream = await openEventStream(`${base}/rest-api/status-stream?tx_id=${tx.txid}`);
      await stream.waitFor((f) => f.kind === 'event' && f.event === 'status');
      await t.audit.flush();
      assert.deepEqual(await streamRows(), [], 'no row while the stream is open');
      stream.close();

      await until(
        async () => {
          await t.audit.flush();
          return (await streamRows()).length > 0;
        },
        async () => 'no row for the stream after the client closed it',
      );
      const rows = await streamRows();
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const row = rows[0]!;
      assert.equal(row.http_method, 'GET');
      assert.equal(row.is_success, true);
      assert.equal(row.error_message, null);
      assert.match(row.request_payload ?? '', new RegExp(tx.txid));
      const answer = JSON.parse(row.response_payload ?? '{}') as { stream_ended?: string; lasted_ms?: number };
      assert.equal(answer.stream_ended, 'client_closed');
      assert.ok(row.response_time_ms > 0, `lasted ${row.response_time_ms} ms`);
      assert.equal(answer.lasted_ms, Math.round(row.response_time_ms));
    });
  });
}
