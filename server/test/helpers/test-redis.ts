import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedisCounters, type SharedCounters } from '../../src/http/rate-limit-store.ts';
import type { Logger } from '../../src/lib/logger.ts';

/**
 * The Redis that tests sharing rate limits between instances use:
 * TEST_REDIS_URL (`.ci/run` sets it when a Redis answers on 127.0.0.1:6379).
 * This is the only place tests read the environment for Redis. Each run
 * counts under a key prefix of its own, so that runs at the same time never
 * share a count, and deletes its keys at the end.
 */

const url = process.env.TEST_REDIS_URL?.trim() || undefined;

/** `skip` for a describe() that needs Redis: false when TEST_REDIS_URL is set, or the reason it is skipped. */
export const redisSkip: false | string = url === undefined ? 'TEST_REDIS_URL is unset (e.g. redis://127.0.0.1:6379): no Redis to share counters in' : false;

export interface TestRedis {
  /** TEST_REDIS_URL. */
  url: string;
  /** A prefix of this run's own, for every instance the test starts. */
  keyPrefix: string;
  /** Counters as one portal instance opens them (its own connection). */
  connect(log: Logger): Promise<SharedCounters>;
  /** Deletes the run's keys and closes every connection it opened. */
  close(): Promise<void>;
}

export function testRedis(): TestRedis {
  if (url === undefined) throw new Error('testRedis() needs TEST_REDIS_URL: guard the suite with redisSkip');
  const redisUrl = url;
  const keyPrefix = `slipstream-test:${randomBytes(6).toString('hex')}:`;
  const opened: SharedCounters[] = [];
  return {
    url: redisUrl,
    keyPrefix,
    async connect(log) {
      const counters = await connectRedisCounters(redisUrl, { keyPrefix, log });
      opened.push(counters);
      return counters;
    },
    async close() {
      for (const counters of opened) await counters.close();
      const admin = new Redis(redisUrl);
      try {
        const keys = await admin.keys(`${keyPrefix}*`);
        if (keys.length > 0) await admin.del(...keys);
      } finally {
        admin.disconnect();
      }
    },
  };
}
