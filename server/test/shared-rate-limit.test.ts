import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, Socket, type Server } from 'node:net';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../src/auth/login.routes.ts';
import { connectRedisCounters } from '../src/http/rate-limit-store.ts';
import type { Logger } from '../src/lib/logger.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { quietLog } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { redisSkip, testRedis, type TestRedis } from './helpers/test-redis.ts';

/**
 * With REDIS_URL, the per-address limits (the public budget, sign-in's own)
 * count in one Redis for every instance: behind a load balancer a stranger
 * has one budget, not one per instance. Two instances of the app here share
 * one Redis (TEST_REDIS_URL), each through its own connection, as two
 * processes would; a run counts under a key prefix of its own.
 */

const BUDGET = 4;
const TOO_MANY = /^Too many requests\. Please retry in \d+ seconds\.$/;

type Response = Awaited<ReturnType<StaffTestApp['app']['inject']>>;

function assertLimited(res: Response, what: string): void {
  assert.equal(res.statusCode, 429, `${what}: ${res.body}`);
  assert.ok(Number(res.headers['retry-after']) > 0, `${what}: Retry-After is set`);
  assert.match(res.json<{ message: string }>().message, TOO_MANY, what);
}

const siteInfo = (t: StaffTestApp, ip: string) => t.app.inject({ method: 'GET', url: '/rest-api/site-info', remoteAddress: ip });

/**
 * A TCP relay in front of Redis that can be cut: `silence()` keeps the
 * connections open and drops everything (a Redis that stops answering),
 * `sever()` closes them and refuses new ones (a Redis that is gone).
 */
async function redisRelay(target: URL): Promise<{ url: string; silence(): void; sever(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let silent = false;
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => silent || upstream.write(chunk));
    upstream.on('data', (chunk) => silent || client.write(chunk));
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    silence: () => {
      silent = true;
    },
    sever: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('per-address budgets shared by every instance through Redis', { skip: redisSkip }, () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let a: StaffTestApp;
  let b: StaffTestApp;

  before(async () => {
    db = await testDatabases()[0]!.open();
    redis = testRedis();
    a = await startStaffTestApp(db, undefined, { rateLimitMax: BUDGET, sharedCounters: await redis.connect(quietLog) });
    b = await startStaffTestApp(await db.openPeer(), undefined, { rateLimitMax: BUDGET, sharedCounters: await redis.connect(quietLog) });
  });

  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.close();
    await db?.close();
  });

  test('a client that spends its budget on instance A gets 429 with Retry-After on instance B; another address does not', async () => {
    const ip = '127.0.4.1';
    for (let i = 0; i < BUDGET; i++) assert.equal((await siteInfo(a, ip)).statusCode, 200, `request ${i + 1} on A`);
    assertLimited(await siteInfo(b, ip), 'the same address on B');
    assertLimited(await b.app.inject({ method: 'GET', url: '/rest-api/auth-config', remoteAddress: ip }), 'the sign-in configuration on B');
    assertLimited(await siteInfo(a, ip), 'the same address on A');
    assert.equal((await siteInfo(b, '127.0.4.2')).statusCode, 200, 'another address on B');
  });

  test('requests spread over both instances spend one budget', async () => {
    const ip = '127.0.4.3';
    for (let i = 0; i < BUDGET; i++) assert.equal((await siteInfo(i % 2 === 0 ? a : b, ip)).statusCode, 200, `request ${i + 1}`);
    assertLimited(await siteInfo(a, ip), 'on A');
    assertLimited(await siteInfo(b, ip), 'on B');
  });

  test("sign-in's own per-address limit is shared too", async () => {
    const ip = '127.0.4.4';
    // A different username each time: the per-account throttle (in the database) stays out of it.
    for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++) {
      const res = await (i % 2 === 0 ? a : b).app.inject({ method: 'POST', url: '/rest-api/login', remoteAddress: ip, payload: { username: `nobody${i}`, password: 'wrong password' } });
      assert.equal(res.statusCode, 401, `attempt ${i + 1}: ${res.body}`);
    }
    assertLimited(await a.app.inject({ method: 'POST', url: '/rest-api/login', remoteAddress: ip, payload: { username: 'nobody', password: 'wrong password' } }), 'sign-in on A');
    // Its own limit, not the public budget: the public routes still answer this address.
    assert.equal((await siteInfo(b, ip)).statusCode, 200);
  });
});

describe('when Redis stops answering, requests do not wait for it: each instance counts its own limits until it answers again', { skip: redisSkip }, () => {
  let db: TestDatabase;
  let redis: TestRedis;

  before(async () => {
    db = await testDatabases()[0]!.open();
    redis = testRedis();
  });
  after(async () => {
    await redis?.close();
    await db?.close();
  });

  for (const outage of ['silence', 'sever'] as const) {
    test(`a Redis that ${outage === 'silence' ? 'stops answering' : 'goes away'}`, async () => {
      const relay = await redisRelay(new URL(redis.url));
      const warnings: string[] = [];
      const log: Logger = { ...quietLog, warn: (_obj, msg) => warnings.push(msg ?? '') };
      const counters = await connectRedisCounters(relay.url, { keyPrefix: redis.keyPrefix, log });
      const a = await startStaffTestApp(db, undefined, { rateLimitMax: BUDGET, sharedCounters: counters });
      const b = await startStaffTestApp(await db.openPeer(), undefined, { rateLimitMax: BUDGET, sharedCounters: counters });
      try {
        const ip = `127.0.4.${outage === 'silence' ? 10 : 11}`;
        assert.equal((await siteInfo(a, ip)).statusCode, 200, 'counted in Redis');
        if (outage === 'silence') relay.silence();
        else await relay.sever();
        // Counted in each instance's memory now: A's budget is its own again, and B's too.
        for (let i = 0; i < BUDGET; i++) assert.equal((await siteInfo(a, ip)).statusCode, 200, `request ${i + 1} on A during the outage`);
        assertLimited(await siteInfo(a, ip), 'A, its own budget spent');
        assert.equal((await siteInfo(b, ip)).statusCode, 200, 'B counts its own');
        assert.equal(warnings.filter((w) => /Redis \(REDIS_URL\) unavailable/.test(w)).length, 1, `one warning per outage: ${JSON.stringify(warnings)}`);
      } finally {
        await a.close();
        await b.close();
        await counters.close();
        await relay.sever();
      }
    });
  }
});

test('a Redis that does not answer at start-up stops the start, naming REDIS_URL', async () => {
  const port = await freePort();
  await assert.rejects(connectRedisCounters(`redis://127.0.0.1:${port}`, { keyPrefix: 'slipstream-test:', log: quietLog }), /^Error: REDIS_URL: Redis does not answer/);
});
