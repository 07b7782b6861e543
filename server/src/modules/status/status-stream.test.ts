import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { MempoolDashboardState, MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { streamLimits } from '../../http/sse-registry.ts';
import { openEventStream, type SseFrame } from '../../../test/helpers/sse-client.ts';
import { createStatusStreams } from './status-stream.ts';
import type { StatusResponse } from './status.schemas.ts';

/**
 * The status stream's throttle (one update a second by default; a minute
 * here, so that waiting it out cannot pass for speed): an update inside it
 * waits, a new block's does not.
 */

const TXID = 'ab'.repeat(32);
const silent = { warn() {}, error() {}, info() {}, debug() {} } as unknown as FastifyBaseLogger;
const stateAt = (tip: string) => ({ recentBlocks: [{ hash: tip }] }) as unknown as MempoolDashboardState;

test('a new block reaches a stream at once, even one updated a moment before; another update waits out the throttle', async () => {
  let state = stateAt('aa');
  const listeners = new Set<() => void>();
  const feed = { current: () => state, subscribe: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)) } as unknown as MempoolFeed;
  const publish = (next: MempoolDashboardState) => {
    state = next;
    for (const listener of listeners) listener();
  };
  let answer = { state: 'in_mempool', step: 0 };
  const streams = createStatusStreams({ feed, check: async () => ({ ...answer }) as unknown as StatusResponse, log: silent, ...streamLimits({ minIntervalMs: 60_000 }, 4) });
  const server = createServer((_, res) => streams.attach(res, '127.0.0.1', TXID, { ...answer } as unknown as StatusResponse, {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stream = await openEventStream(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const isStatus = (f: SseFrame): f is Extract<SseFrame, { kind: 'event' }> => f.kind === 'event' && f.event === 'status';
  const answers = () => stream.frames.filter(isStatus).map((f) => JSON.parse(f.data) as { state: string; step: number });
  try {
    await stream.waitFor(isStatus);
    assert.deepEqual(answers(), [{ state: 'in_mempool', step: 0 }]);

    // A projection moments after the stream opened: inside the throttle, it waits.
    answer = { state: 'in_mempool', step: 1 };
    publish(stateAt('aa'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(answers(), [{ state: 'in_mempool', step: 0 }], 'held back by the throttle');

    // A block: at once, and the held-back update is not sent after it.
    answer = { state: 'confirmed', step: 2 };
    const published = Date.now();
    publish(stateAt('bb'));
    await stream.waitFor((f) => isStatus(f) && (JSON.parse(f.data) as { state: string }).state === 'confirmed', { timeoutMs: 5_000 });
    assert.ok(Date.now() - published < 5_000);
    assert.deepEqual(answers(), [{ state: 'in_mempool', step: 0 }, { state: 'confirmed', step: 2 }]);
  } finally {
    stream.close();
    streams.closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
