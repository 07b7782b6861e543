import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { mempoolDashboardRoutes } from '../src/modules/mempool-dashboard/mempool-dashboard.routes.ts';
import { TOO_MANY_STREAMS_FROM_IP_MESSAGE } from '../src/modules/mempool-dashboard/state-stream.ts';
import { openEventStream, type SseConnection } from './helpers/sse-client.ts';

/**
 * The /mempool/ stream cap per address counts an IPv6 client by its /64, as
 * the public rate limit does: one subscriber's network hands out 2^64
 * addresses, and a cap per full address would be no cap at all.
 */

const quietFeed: MempoolFeed = { current: () => null, subscribe: () => () => {} };

test('open streams are capped per IPv6 /64, not per address', { timeout: 10_000 }, async () => {
  // Addresses come from X-Forwarded-For, as behind the deployment's proxy (TRUST_PROXY).
  const app = Fastify({ trustProxy: true });
  await app.register(mempoolDashboardRoutes({ feed: quietFeed, authorize: async () => {}, maxStreamsPerIp: 1 }), { prefix: '/mempool' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mempool/api/stream`;
  const from = (address: string) => openEventStream(url, { headers: { 'x-forwarded-for': address } });
  const open: SseConnection[] = [];
  try {
    open.push(await from('2001:db8:1:2::1'));
    await assert.rejects(from('2001:db8:1:2:ffff:ffff:ffff:fffe'), (error: Error & { statusCode?: number; body?: string }) => {
      assert.equal(error.statusCode, 429);
      assert.deepEqual(JSON.parse(error.body!), { status: 'error', message: TOO_MANY_STREAMS_FROM_IP_MESSAGE });
      return true;
    });
    // Another /64, and IPv4 addresses, each have their own places.
    open.push(await from('2001:db8:1:3::1'));
    open.push(await from('198.51.100.7'));
    await assert.rejects(from('198.51.100.7'), (error: { statusCode?: number }) => error.statusCode === 429);
    open.push(await from('198.51.100.8'));
  } finally {
    for (const stream of open) stream.close();
    await app.close();
  }
});
