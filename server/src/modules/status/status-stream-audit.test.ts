import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { registerAuditHooks } from '../../audit/audit.hooks.ts';
import type { AuditRow, AuditWriter } from '../../audit/audit-writer.ts';
import type { MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { openEventStream } from '../../../test/helpers/sse-client.ts';
import { until } from '../../../test/helpers/until.ts';
import type { StatusResponse } from './status.schemas.ts';
import type { StatusService } from './status.service.ts';
import { statusStreamRoutes } from './status-stream.routes.ts';

/**
 * A status stream takes the response over (reply.hijack), so Fastify's
 * onResponse never runs for it: its audit row is written when the stream
 * ends, once, with how it ended and how long it lasted. The app here is the
 * audit hooks and the stream route alone, with a status service that always
 * answers the same and a feed that never moves.
 */

const TXID = 'ab'.repeat(32);
const answer = { state: 'in_mempool', transaction: { txid: TXID } } as unknown as StatusResponse;
const status: StatusService = { check: () => Promise.resolve(answer) };
const feed: MempoolFeed = { current: () => null, subscribe: () => () => {} };

function recordingWriter(): AuditWriter & { rows: AuditRow[] } {
  const rows: AuditRow[] = [];
  return {
    rows,
    push: (row) => rows.push(row),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
    stats: () => ({ queued: 0, written: rows.length, dropped: 0, failedWrites: 0 }),
  };
}

async function streamApp(maxStreamMs: number): Promise<{ app: FastifyInstance; writer: ReturnType<typeof recordingWriter>; url: string }> {
  const writer = recordingWriter();
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  registerAuditHooks(app, writer, 4096);
  await app.register(statusStreamRoutes({ status, feed, maxStreamMs }), { prefix: '/rest-api' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, writer, url: `http://127.0.0.1:${port}/rest-api/status-stream?tx_id=${TXID}` };
}

const endingOf = (row: AuditRow) => (JSON.parse(row.responsePayload ?? '{}') as { stream_ended?: string }).stream_ended;

describe('a status stream is audited once, when it ends', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  test('closed by the client: one row, with the ending and how long it lasted', async () => {
    const s = await streamApp(60_000);
    app = s.app;
    const stream = await openEventStream(s.url);
    await stream.waitFor((f) => f.kind === 'event' && f.event === 'status');
    assert.equal(s.writer.rows.length, 0, 'no row while the stream is open');
    stream.close();
    await until(async () => s.writer.rows.length > 0, async () => 'no row after the client closed');
    await s.app.close();
    app = undefined;
    assert.equal(s.writer.rows.length, 1, JSON.stringify(s.writer.rows));
    const row = s.writer.rows[0]!;
    assert.equal(row.endpoint, '/rest-api/status-stream');
    assert.equal(row.httpMethod, 'GET');
    assert.equal(endingOf(row), 'client_closed');
    assert.equal(row.isSuccess, true);
    assert.equal(row.errorMessage, null);
    assert.match(row.requestPayload ?? '', new RegExp(TXID));
    assert.ok(row.responseTimeMs > 0, `lasted ${row.responseTimeMs} ms`);
    assert.equal((JSON.parse(row.responsePayload!) as { lasted_ms: number }).lasted_ms, Math.round(row.responseTimeMs));
  });

  test('ended by the server at its time limit: one row that says so', async () => {
    const s = await streamApp(50);
    app = s.app;
    const stream = await openEventStream(s.url);
    await stream.ended;
    await until(async () => s.writer.rows.length > 0, async () => 'no row after the stream ended');
    await s.app.close();
    app = undefined;
    assert.deepEqual(s.writer.rows.map(endingOf), ['time_limit']);
    assert.equal(s.writer.rows[0]!.isSuccess, true);
  });

  test('ended by the server shutting down: one row that says so', async () => {
    const s = await streamApp(60_000);
    app = s.app;
    const stream = await openEventStream(s.url);
    await stream.waitFor((f) => f.kind === 'event' && f.event === 'status');
    await s.app.close();
    app = undefined;
    await stream.ended;
    assert.deepEqual(s.writer.rows.map(endingOf), ['server_shutdown']);
  });
});
