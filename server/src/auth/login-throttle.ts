import { isIPv4, isIPv6 } from 'node:net';
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Metrics } from '../metrics/metrics-registry.ts';
import { busiestAddresses, claimAttempt, clearPair, countFailureInWindow, pruneThrottle } from './login-throttle.repository.ts';

/**
 * Throttling of local sign-in per (username, client address), in place of an
 * account lock that anyone could set by failing five times and so keep the
 * break-glass administrator out for ever (OWASP Authentication Cheat Sheet,
 * "Account lockout": lock-outs are a denial of service; prefer throttling).
 *
 * After a few failures from one address on one username, that address waits
 * before its next attempt on that username is even checked, 30 s and doubling
 * with each further failure, at most 15 minutes; while it waits, even the
 * right password is refused (429 with Retry-After). Every other address,
 * the owner's, is unaffected. An unknown username is counted exactly like a
 * known one, so nothing here tells whether an account exists. Success clears
 * the pair. The state is in the database, shared by every instance.
 *
 * Many failures on one username within five minutes, from whatever
 * addresses, log one warning per window, and count in
 * slipstream_login_failure_bursts_total.
 */
export const LOGIN_THROTTLE = {
  freeFailures: 5,
  firstDelaySeconds: 30,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 60 * 60,
  burstFailures: 20,
  burstWindowSeconds: 5 * 60,
} as const;

/** How many of a burst's busiest addresses its warning names. */
const BURST_ADDRESSES_LOGGED = 10;

export class LoginThrottledError extends ApiError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(429, `Too many failed sign-ins from this address. Please retry in ${retryAfterSeconds} seconds.`);
    this.name = 'LoginThrottledError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The address a throttle counts: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address as its IPv4 one), an IPv6 address by its /64, since one
 * subscriber or host is routinely given a whole /64 (RFC 6177) and could
 * otherwise start afresh from each of its addresses.
 */
export function throttleKeyOf(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  const withoutZone = address.split('%')[0]!;
  if (!isIPv6(withoutZone)) return address;
  return `${ipv6Groups(withoutZone).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const count = (part: string) => (part === '' ? 0 : part.split(':').reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0));
  const [head = '', tail] = address.split('::');
  const groups = tail === undefined ? head.split(':') : [...(head === '' ? [] : head.split(':')), ...Array<string>(8 - count(head) - count(tail)).fill('0'), ...(tail === '' ? [] : tail.split(':'))];
  return groups.map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
}

export type LoginMetrics = Pick<Metrics, 'loginFailures' | 'loginFailureBursts'>;

export interface LoginThrottleDeps {
  db: Queryable;
  clock: Clock;
  /** Without them (some tests, benches) nothing is counted or logged. */
  metrics?: LoginMetrics | undefined;
  log?: Logger | undefined;
}

export function createLoginThrottle(deps: LoginThrottleDeps) {
  const { db, clock, metrics, log } = deps;
  const pairOf = (username: string, address: string) => ({ username, address: throttleKeyOf(address) });

  /** Every refused attempt counts toward the username's burst window; the first to reach the limit warns. */
  async function countTowardBurst(username: string, address: string, now: Date): Promise<void> {
    const window = await countFailureInWindow(db, username, now, { seconds: LOGIN_THROTTLE.burstWindowSeconds, burstFailures: LOGIN_THROTTLE.burstFailures });
    if (!window.warn) return;
    metrics?.loginFailureBursts.inc();
    const addresses = await busiestAddresses(db, username, window.startedAt, BURST_ADDRESSES_LOGGED);
    log?.warn(
      { username, address: throttleKeyOf(address), failures: window.failures, windowStartedAt: window.startedAt.toISOString(), addresses },
      `Many failed sign-ins on one staff username: ${window.failures} within ${LOGIN_THROTTLE.burstWindowSeconds / 60} minutes`,
    );
  }

  return {
    /** Before the password is checked: throws LoginThrottledError while the pair must wait, and counts the attempt otherwise. */
    async admit(username: string, address: string): Promise<void> {
      const now = clock.now();
      const claim = await claimAttempt(db, pairOf(username, address), now, LOGIN_THROTTLE);
      if (claim.claimed) return;
      metrics?.loginFailures.inc({ reason: 'throttled' });
      await countTowardBurst(username, address, now);
      throw new LoginThrottledError(Math.max(1, Math.ceil((claim.waitUntil.getTime() - now.getTime()) / 1000)));
    },

    /** The attempt admitted was wrong (unknown username or wrong password: one reason, so the metric tells no more than the answer). */
    async failed(username: string, address: string): Promise<void> {
      const now = clock.now();
      metrics?.loginFailures.inc({ reason: 'invalid_credentials' });
      await countTowardBurst(username, address, now);
      await pruneThrottle(db, now, LOGIN_THROTTLE.forgetAfterSeconds, LOGIN_THROTTLE.burstWindowSeconds);
    },

    async succeeded(username: string, address: string): Promise<void> {
      await clearPair(db, pairOf(username, address));
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
