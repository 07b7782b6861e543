import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.ts';

/**
 * Where the per-address rate limits count (the public budget and sign-in's
 * own, http/public-scope.ts). Each instance counts in its own memory by
 * default, so N instances behind a load balancer would give a stranger N
 * budgets. With REDIS_URL every instance counts in one Redis, and a budget
 * spent on one is spent on all.
 *
 * When Redis cannot answer (down, unreachable, slower than
 * COMMAND_TIMEOUT_MS), a request does not wait for it: its limit counts in
 * this instance's memory instead, and so do the next requests' for a few
 * seconds, when Redis is asked again. Neither
 * fail-open nor fail-closed: failing open would lift every limit (and with
 * it the bound on the audit rows a stranger can write) whenever Redis is
 * down, and failing closed would refuse every public request for an outage
 * of a store that only counts. Counting per instance is the limit the portal
 * had without Redis: a stranger gets one budget per instance for the length
 * of the outage. The outage is logged once, and so is the recovery.
 */

/** A window's count for one key, as @fastify/rate-limit's stores report it. */
export interface WindowCount {
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

/** Counters every instance shares: the adapter (Redis) behind the shared rate-limit store. */
export interface SharedCounters {
  /** Adds one to `key`'s count in a fixed window of `windowMs` that starts at its first hit. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

/** How long a request may wait for Redis before its limit counts in memory instead. */
export const COMMAND_TIMEOUT_MS = 500;
/** After a failure, Redis is not asked again for this long: a Redis that stopped answering costs one wait, not one per request. */
const RETRY_AFTER_FAILURE_MS = 5_000;
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * One round trip, atomic: the count, and the window's end set by its first
 * hit (or again on a key that somehow has none, so no count lives forever).
 */
const HIT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

type HitCommand = (key: string, windowMs: number) => Promise<[number, number]>;

/**
 * Connects to Redis at `url`; rejects when it does not answer at start (a
 * wrong REDIS_URL is found at start-up, not in the first outage). Keys live
 * under `keyPrefix`, so that portals (or test runs) sharing a Redis never
 * count in each other's keys.
 */
export async function connectRedisCounters(url: string, options: { keyPrefix: string; log: Logger }): Promise<SharedCounters> {
  const redis = new Redis(url, {
    keyPrefix: options.keyPrefix,
    lazyConnect: true,
    // While disconnected, a command fails at once rather than waiting in a queue for the reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A connected Redis that stops answering.
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  redis.defineCommand('portalRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hitCommand = (redis as unknown as { portalRateLimitHit: HitCommand }).portalRateLimitHit.bind(redis);
  let healthy = true;
  let askAgainAt = 0;
  const failed = (error: unknown) => {
    askAgainAt = Date.now() + RETRY_AFTER_FAILURE_MS;
    if (!healthy) return;
    healthy = false;
    options.log.warn({ err: error }, 'Redis (REDIS_URL) unavailable: rate limits count per instance until it answers again');
  };
  // ioredis reports connection errors as events; without a listener they would be printed as unhandled.
  redis.on('error', failed);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL: Redis does not answer (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  return {
    async hit(key, windowMs) {
      if (Date.now() < askAgainAt) throw new Error('Redis failed moments ago');
      try {
        const [current, ttl] = await hitCommand(key, windowMs);
        if (!healthy) {
          healthy = true;
          options.log.info({}, 'Redis (REDIS_URL) answers again: rate limits are shared by every instance');
        }
        return { current, ttl };
      } catch (error) {
        failed(error);
        throw error;
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Most addresses one instance counts in memory while Redis is down; the oldest windows make room. */
const MAX_LOCAL_KEYS = 10_000;

/** Fixed windows per key in this instance's memory, bounded: where limits count while Redis is down. */
export class LocalWindows {
  readonly #windows = new Map<string, { current: number; endsAt: number }>();

  hit(key: string, windowMs: number, now = Date.now()): WindowCount {
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      this.#windows.delete(key);
      // Map order is insertion order: the first key's window started first.
      if (this.#windows.size >= MAX_LOCAL_KEYS) this.#windows.delete(this.#windows.keys().next().value!);
      window = { current: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.current += 1;
    return { current: window.current, ttl: window.endsAt - now };
  }
}

/**
 * @fastify/rate-limit's store on shared counters: each limit counts under
 * its own name (a route's limit under its method and path; a budget made
 * with app.rateLimit() names itself in its keys, http/public-scope.ts),
 * and in this instance's memory whenever the shared counters fail.
 */
export function sharedRateLimitStore(counters: SharedCounters): FastifyRateLimitStoreCtor {
  class SharedStore implements FastifyRateLimitStore {
    readonly #name: string;
    readonly #local = new LocalWindows();

    constructor(_options: unknown, name = 'limit') {
      this.#name = name;
    }

    incr(key: string, callback: (error: Error | null, result?: WindowCount) => void, timeWindow: number): void {
      counters.hit(`${this.#name}:${key}`, timeWindow).then(
        (count) => callback(null, count),
        () => callback(null, this.#local.hit(key, timeWindow)),
      );
    }

    child(routeOptions: object): FastifyRateLimitStore {
      // The plugin passes the limit's options, with the route they were given for (its typings say the route itself).
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
      return new SharedStore(undefined, typeof route?.url === 'string' ? `${String(route.method)} ${route.url}` : 'limit');
    }
  }
  return SharedStore;
}
