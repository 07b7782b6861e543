import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import { Value } from 'typebox/value';
import { ApiError } from '../src/http/errors.ts';
import type { MempoolDashboardState, MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { mempoolDashboardRoutes, NO_STATE_YET_MESSAGE, type MempoolDashboardOptions } from '../src/modules/mempool-dashboard/mempool-dashboard.routes.ts';
import { MempoolStateResponse } from '../src/modules/mempool-dashboard/mempool-dashboard.schemas.ts';
import { TOO_MANY_STREAMS_FROM_IP_MESSAGE } from '../src/modules/mempool-dashboard/state-stream.ts';
import type { MempoolDashboardState as PageState } from '../../web/src/mempool-page/mempool-state.ts';
import { openEventStream, type SseConnection, type SseFrame } from './helpers/sse-client.ts';

/**
 * The /mempool/ dashboard's routes over real HTTP: the state as JSON, and the
 * Server-Sent Events stream of it. The feed is a small in-test implementation
 * of our own MempoolFeed interface; the engine is tested on its own.
 */

// The page's copy of the contract (until its types are generated from the API document) must not drift: tsc fails here if it does.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _pageTypesMatch: Same<PageState, MempoolDashboardState> = true;

interface TestFeed extends MempoolFeed {
  publish(state: MempoolDashboardState): void;
  listenerCount(): number;
}

function createTestFeed(): TestFeed {
  let latest: MempoolDashboardState | null = null;
  const listeners = new Set<(state: MempoolDashboardState) => void>();
  return {
    current: () => latest,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(state) {
      latest = state;
      for (const listener of [...listeners]) listener(state);
    },
    listenerCount: () => listeners.size,
  };
}

/** A plausible state; `n` tells one from the next. */
function sampleState(n: number, overrides: Partial<MempoolDashboardState> = {}): MempoolDashboardState {
  return {
    network: 'regtest',
    updatedAtMs: 1_750_000_000_000 + n * 1000,
    lagMs: 12.5,
    mempool: { txCount: 5_000 + n, vsize: 3_500_000, totalFees: 12_345_678 },
    projectedBlocks: [0, 1, 2].map((index) => ({
      index,
      txCount: 2_000 - index * 100,
      weight: 3_996_000 - index,
      vsize: 999_000,
      totalFees: 4_000_000 - index * 1_000_000,
      minRate: 3.1 - index,
      maxRate: 250,
      medianRate: 5.25 - index,
    })),
    histogram: [1, 2, 3, 5, 8, 13].map((minRate) => ({ minRate, txCount: 100 * minRate, vsize: 25_000 * minRate })),
    recentBlocks: [0, 1].map((i) => ({ height: 900_000 + n - i, hash: `${'0'.repeat(20)}${String(n).padStart(44, 'a')}`, time: 1_750_000_000 - i * 600, txCount: 3_000, ours: i === 0 })),
    poolShare: { last24h: 12.5, last7d: 10.1, expectedNextBlockSeconds: 4_800 },
    ...overrides,
  };
}

const isState = (frame: SseFrame): frame is Extract<SseFrame, { kind: 'event' }> => frame.kind === 'event' && frame.event === 'state';
const stateOf = (frame: SseFrame) => JSON.parse((frame as Extract<SseFrame, { kind: 'event' }>).data) as MempoolDashboardState;

/** Who may see the view is the app's decision (test/mempool-privacy.test.ts); these tests are about the routes' mechanics. */
const letEveryoneIn = async () => {};

async function startApp(feed: MempoolFeed, options: Partial<Omit<MempoolDashboardOptions, 'feed'>> = {}): Promise<{ app: FastifyInstance; base: string }> {
  const app = Fastify();
  // Errors in the API's shape, as app.ts answers them (the routes' response schemas expect it).
  app.setErrorHandler((error: FastifyError, _request, reply) =>
    reply.status(error instanceof ApiError ? error.statusCode : 500).send({ status: 'error', message: error.message }),
  );
  await app.register(mempoolDashboardRoutes({ feed, authorize: letEveryoneIn, ...options }), { prefix: '/mempool' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** Polls a condition the server reaches asynchronously (a socket close travelling to it). */
async function eventually(check: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('GET /mempool/api/state', () => {
  const feed = createTestFeed();
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    await app.register(mempoolDashboardRoutes({ feed, authorize: letEveryoneIn }), { prefix: '/mempool' });
    await app.ready();
  });
  after(async () => app.close());

  test('before the first state: 503 in the app\'s error shape, with a retry hint', async () => {
    const res = await app.inject({ method: 'GET', url: '/mempool/api/state' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json(), { status: 'error', message: NO_STATE_YET_MESSAGE });
    assert.equal(res.headers['retry-after'], '2');
  });

  test('then the current state, valid against the response schema and equal to what the engine published', async () => {
    const state = sampleState(1);
    feed.publish(state);
    const res = await app.inject({ method: 'GET', url: '/mempool/api/state' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    const body: unknown = res.json();
    assert.ok(Value.Check(MempoolStateResponse, body), JSON.stringify([...Value.Errors(MempoolStateResponse, body)].slice(0, 3)));
    assert.deepEqual(body, state);
  });

  test('nulls where the pool has no share yet; fields outside the contract are not sent', async () => {
    const state = { ...sampleState(2, { poolShare: { last24h: null, last7d: null, expectedNextBlockSeconds: null } }), engineInternals: 'x' };
    feed.publish(state);
    const body = (await app.inject({ method: 'GET', url: '/mempool/api/state' })).json<Record<string, unknown>>();
    assert.ok(Value.Check(MempoolStateResponse, body));
    assert.deepEqual(body.poolShare, { last24h: null, last7d: null, expectedNextBlockSeconds: null });
    assert.equal('engineInternals' in body, false);
  });

  test('a bare /mempool goes to /mempool/, keeping the query', async () => {
    const res = await app.inject({ method: 'GET', url: '/mempool?embed=1' });
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, '/mempool/?embed=1');
  });
});

describe('GET /mempool/api/stream', () => {
  test('headers for an unbuffered event stream; nothing but the connection before the first state, then each state in order', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    const { app, base } = await startApp(feed, { minIntervalMs: 0 });
    let stream: SseConnection | undefined;
    try {
      stream = await openEventStream(`${base}/mempool/api/stream`);
      assert.equal(stream.response.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(stream.response.headers['cache-control'], 'no-cache, no-transform');
      assert.equal(stream.response.headers['x-accel-buffering'], 'no');
      await stream.waitFor((f) => f.kind === 'comment' && f.text === 'connected');
      assert.equal(stream.frames.some(isState), false, 'no state before the first projection');
      await eventually(() => feed.listenerCount() === 1, 'the stream to subscribe');

      const published = [1, 2, 3, 4].map((n) => sampleState(n));
      for (const state of published) feed.publish(state);
      await eventually(() => stream!.frames.filter(isState).length === 4, 'four states');
      const received = stream.frames.filter(isState).map(stateOf);
      assert.deepEqual(received, published);
      for (const state of received) assert.ok(Value.Check(MempoolStateResponse, state));
    } finally {
      stream?.close();
      await app.close();
    }
  });

  test('the current state at once on connect, and the reconnection delay for the browser', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    feed.publish(sampleState(7));
    const { app, base } = await startApp(feed, { retryMs: 1_234, minIntervalMs: 0 });
    let stream: SseConnection | undefined;
    try {
      stream = await openEventStream(`${base}/mempool/api/stream`);
      const first = await stream.waitFor(isState);
      assert.deepEqual(stateOf(first), sampleState(7));
      // The opening frame carries `retry:` with the `: connected` comment.
      const raw = await fetchOpening(`${base}/mempool/api/stream`);
      assert.match(raw, /^retry: 1234\n: connected\n\n/);
      // A state published again is not sent again.
      feed.publish(feed.current()!);
      feed.publish(sampleState(8));
      await stream.waitFor((f) => isState(f) && stateOf(f).mempool.txCount === sampleState(8).mempool.txCount);
      assert.equal(stream.frames.filter(isState).length, 2);
    } finally {
      stream?.close();
      await app.close();
    }
  });

  test('a comment heartbeat keeps the stream open between updates', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    const { app, base } = await startApp(feed, { heartbeatMs: 40 });
    let stream: SseConnection | undefined;
    try {
      stream = await openEventStream(`${base}/mempool/api/stream`);
      const firstBeat = await stream.waitFor((f) => f.kind === 'comment' && f.text === 'heartbeat');
      await stream.waitFor((f) => f.kind === 'comment' && f.text === 'heartbeat', { from: stream.frames.indexOf(firstBeat) + 1 });
    } finally {
      stream?.close();
      await app.close();
    }
  });

  test('one subscription to the feed however many viewers; the last to leave unsubscribes', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    feed.publish(sampleState(1));
    const { app, base } = await startApp(feed, { minIntervalMs: 0 });
    try {
      const a = await openEventStream(`${base}/mempool/api/stream`);
      const b = await openEventStream(`${base}/mempool/api/stream`);
      await Promise.all([a.waitFor(isState), b.waitFor(isState)]);
      assert.equal(feed.listenerCount(), 1);
      feed.publish(sampleState(2));
      const isSecond = (f: SseFrame) => isState(f) && stateOf(f).updatedAtMs === sampleState(2).updatedAtMs;
      await Promise.all([a.waitFor(isSecond), b.waitFor(isSecond)]);

      a.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(feed.listenerCount(), 1, 'still one viewer');
      feed.publish(sampleState(3));
      await b.waitFor((f) => isState(f) && stateOf(f).updatedAtMs === sampleState(3).updatedAtMs);

      b.close();
      await eventually(() => feed.listenerCount() === 0, 'the unsubscribe after the last viewer left');
      // Publishing to nobody is fine, and a new viewer subscribes afresh.
      feed.publish(sampleState(4));
      const c = await openEventStream(`${base}/mempool/api/stream`);
      assert.deepEqual(stateOf(await c.waitFor(isState)), sampleState(4));
      assert.equal(feed.listenerCount(), 1);
      c.close();
      await eventually(() => feed.listenerCount() === 0, 'the unsubscribe');
    } finally {
      await app.close();
    }
  });

  test('app.close() with streams open ends them and finishes promptly', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    feed.publish(sampleState(1));
    const { app, base } = await startApp(feed);
    const streams = await Promise.all([1, 2, 3].map(() => openEventStream(`${base}/mempool/api/stream`)));
    await Promise.all(streams.map((s) => s.waitFor(isState)));
    const started = Date.now();
    await app.close();
    const tookMs = Date.now() - started;
    assert.ok(tookMs < 1_000, `close took ${tookMs} ms`);
    await Promise.all(streams.map((s) => s.ended));
    assert.equal(feed.listenerCount(), 0);
  });

  test('open streams are capped per address; a closed one frees its place', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    const { app, base } = await startApp(feed, { maxStreamsPerIp: 2 });
    try {
      const a = await openEventStream(`${base}/mempool/api/stream`);
      const b = await openEventStream(`${base}/mempool/api/stream`);
      await assert.rejects(openEventStream(`${base}/mempool/api/stream`), (error: Error & { statusCode?: number; body?: string }) => {
        assert.equal(error.statusCode, 429);
        assert.deepEqual(JSON.parse(error.body!), { status: 'error', message: TOO_MANY_STREAMS_FROM_IP_MESSAGE });
        return true;
      });
      a.close();
      const c = await retryOpen(`${base}/mempool/api/stream`);
      b.close();
      c.close();
    } finally {
      await app.close();
    }
  });

  test('a viewer refused by `authorize` gets its error before the route runs: no state, no stream, no subscription', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    feed.publish(sampleState(1));
    const refused = new ApiError(401, 'not for you');
    const { app, base } = await startApp(feed, { authorize: (request) => (request.headers.authorization === 'Bearer staff' ? Promise.resolve() : Promise.reject(refused)) });
    try {
      const state = await fetch(`${base}/mempool/api/state`);
      assert.equal(state.status, 401);
      assert.doesNotMatch(await state.text(), /txCount/);
      await assert.rejects(openEventStream(`${base}/mempool/api/stream`), (error: { statusCode?: number }) => error.statusCode === 401);
      assert.equal(feed.listenerCount(), 0);
      assert.equal((await fetch(`${base}/mempool/api/state`, { headers: { authorization: 'Bearer staff' } })).status, 200);
      const stream = await openEventStream(`${base}/mempool/api/stream`, { headers: { authorization: 'Bearer staff' } });
      await stream.waitFor(isState);
      stream.close();
    } finally {
      await app.close();
    }
  });

  test('a stream ends after maxStreamMs, so that its viewer is authorised again when it reconnects', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    feed.publish(sampleState(1));
    const { app, base } = await startApp(feed, { maxStreamMs: 300 });
    try {
      const started = Date.now();
      const stream = await openEventStream(`${base}/mempool/api/stream`);
      await stream.waitFor(isState);
      await stream.ended;
      assert.ok(Date.now() - started >= 250, `ended after ${Date.now() - started} ms`);
      await eventually(() => feed.listenerCount() === 0, 'the unsubscribe');
    } finally {
      await app.close();
    }
  });

  test('a burst of updates is thinned to one per interval, the newest last', { timeout: 10_000 }, async () => {
    const feed = createTestFeed();
    const { app, base } = await startApp(feed, { minIntervalMs: 150 });
    let stream: SseConnection | undefined;
    try {
      stream = await openEventStream(`${base}/mempool/api/stream`);
      await stream.waitFor((f) => f.kind === 'comment' && f.text === 'connected');
      const started = Date.now();
      for (let n = 1; n <= 10; n++) feed.publish(sampleState(n));
      await stream.waitFor((f) => isState(f) && stateOf(f).updatedAtMs === sampleState(10).updatedAtMs);
      assert.ok(Date.now() - started >= 100, 'the last of the burst waited for the interval');
      assert.deepEqual(stream.frames.filter(isState).map((f) => stateOf(f).updatedAtMs), [sampleState(1).updatedAtMs, sampleState(10).updatedAtMs]);
      // After a quiet interval an update goes out at once.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = Date.now();
      feed.publish(sampleState(11));
      await stream.waitFor((f) => isState(f) && stateOf(f).updatedAtMs === sampleState(11).updatedAtMs);
      assert.ok(Date.now() - before < 100);
    } finally {
      stream?.close();
      await app.close();
    }
  });

  test('a viewer that cannot keep up gets the newest state when it catches up, not a backlog', { timeout: 30_000 }, async () => {
    const feed = createTestFeed();
    const { app, base } = await startApp(feed, { minIntervalMs: 0 });
    let stream: SseConnection | undefined;
    try {
      stream = await openEventStream(`${base}/mempool/api/stream`);
      await stream.waitFor((f) => f.kind === 'comment' && f.text === 'connected');
      stream.response.pause();
      // About 1 MB a state: enough to fill the socket's buffers many times over.
      const big = (n: number) =>
        sampleState(n, { recentBlocks: Array.from({ length: 16 }, (_, i) => ({ height: i, hash: `${n}`.padEnd(65_536, 'f'), time: 0, txCount: 1, ours: false })) });
      const count = 60;
      for (let n = 1; n <= count; n++) feed.publish(big(n));
      stream.response.resume();
      await stream.waitFor((f) => isState(f) && stateOf(f).updatedAtMs === big(count).updatedAtMs, { timeoutMs: 20_000 });
      const got = stream.frames.filter(isState).map((f) => stateOf(f).updatedAtMs);
      assert.ok(got.length < count, `skipped the states it could not take (${got.length} of ${count})`);
      assert.deepEqual(got, [...got].sort((x, y) => x - y), 'still in order');
    } finally {
      stream?.close();
      await app.close();
    }
  });
});

describe('beside the app\'s static files, as app.ts serves the built web app', () => {
  let dist: string;
  let app: FastifyInstance;
  before(async () => {
    dist = await mkdtemp(path.join(tmpdir(), 'mempool-dist-'));
    await mkdir(path.join(dist, 'mempool'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>portal</title>');
    await writeFile(path.join(dist, 'mempool', 'index.html'), '<!doctype html><title>mempool</title>');
    app = Fastify();
    await app.register(swagger, {
      openapi: { openapi: '3.1.0', info: { title: 't', version: '0' }, components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } },
    });
    await app.register(mempoolDashboardRoutes({ feed: createTestFeed(), authorize: letEveryoneIn }), { prefix: '/mempool' });
    // The same options as registerWebApp in server/src/app.ts.
    await app.register(fastifyStatic, { root: dist, wildcard: false });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await rm(dist, { recursive: true, force: true });
  });

  test('GET /mempool/ is the built page, with no route clash', async () => {
    const res = await app.inject({ method: 'GET', url: '/mempool/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<title>mempool<\/title>/);
  });

  test('the API document lists both routes, the stream as text/event-stream', () => {
    const document = app.swagger() as { paths: Record<string, { get: { responses: Record<string, { content?: Record<string, unknown> }> } }> };
    assert.ok(document.paths['/mempool/api/state']?.get.responses['200']?.content?.['application/json']);
    assert.ok(document.paths['/mempool/api/stream']?.get.responses['200']?.content?.['text/event-stream']);
    assert.equal(document.paths['/mempool'], undefined, 'the redirect is not documented');
  });
});

/** The first bytes of a stream as written, before any parsing. */
async function fetchOpening(url: string): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  controller.abort();
  return new TextDecoder().decode(value);
}

/** The server learns of a closed stream a moment after the client closes it. */
async function retryOpen(url: string): Promise<SseConnection> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    try {
      return await openEventStream(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
