import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import { createLocalLoginService, LOGIN_FAILED_MESSAGE, type LocalLoginService } from '../src/auth/local-login.service.ts';
import { LOGIN_THROTTLE, throttleKeyOf } from '../src/auth/login-throttle.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { saveAccount } from '../src/auth/staff-accounts.repository.ts';
import { ApiError } from '../src/http/errors.ts';
import type { Clock } from '../src/lib/clock.ts';
import type { Logger } from '../src/lib/logger.ts';
import { createMetrics, type Metrics } from '../src/metrics/metrics-registry.ts';
import { TEST_AUTH_KEY } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * Local sign-in is throttled per (username, client address), never locked:
 * whoever fails from one address slows only that address down, and the
 * owner signing in from anywhere else gets in at once. The service runs on a
 * real database with a clock the test moves, so nothing here sleeps.
 */

const CLIENT_ID = 'slipstream-portal';
const ADMIN_GROUP = 'app-slipstream-users';
const PASSWORD = 'correct horse battery staple';
const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.7';

class TestClock implements Clock {
  #now = new Date();
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}

interface Warning {
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/** The logger the service is given: warnings are kept, so a test can read what an operator would. */
function recordingLogger(): Logger & { warnings: Warning[] } {
  const warnings: Warning[] = [];
  return { warnings, info: () => {}, error: () => {}, warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) };
}

type Outcome = { status: 200; username: string } | { status: number; message: string; retryAfter: number | undefined };

/** One sign-in, as the route would see it: a token, or the error's status, message and Retry-After. */
async function attempt(service: LocalLoginService, username: string, password: string, address: string): Promise<Outcome> {
  try {
    const { token } = await service.login(username, password, address);
    return { status: 200, username: String(decodeJwt(token).preferred_username) };
  } catch (error) {
    assert.ok(error instanceof ApiError, `an ApiError, not ${String(error)}`);
    const retryAfter = (error as ApiError & { retryAfterSeconds?: number }).retryAfterSeconds;
    return { status: error.statusCode, message: error.message, retryAfter };
  }
}

async function counter(metrics: Metrics, name: 'loginFailures' | 'loginFailureBursts', labels: Record<string, string> = {}): Promise<number> {
  const { values } = await metrics[name].get();
  const match = values.find((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, string | number | undefined>)[k] === l));
  return match?.value ?? 0;
}

for (const engine of testDatabases()) {
  describe(`local sign-in throttling (${engine.name})`, () => {
    let db: TestDatabase;
    let clock: TestClock;
    let metrics: Metrics;
    let log: ReturnType<typeof recordingLogger>;
    let service: LocalLoginService;
    const { freeFailures, firstDelaySeconds, maxDelaySeconds } = LOGIN_THROTTLE;

    before(async () => {
      db = await engine.open();
      const hash = await hashPassword(PASSWORD);
      for (const username of ['root', 'victim', 'twin', 'sprayed', 'shared']) await saveAccount(db, { username, passwordHash: hash, isAdmin: username === 'root' });
    });
    after(async () => db?.close());

    /** A fresh service (clock, metrics, log) over the same database: each test uses accounts of its own. */
    function fresh(): void {
      clock = new TestClock();
      metrics = createMetrics();
      log = recordingLogger();
      const issuer = createLocalIssuer({ db, clock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
      service = createLocalLoginService({ db, issuer, clock, metrics, log });
    }

    test('an address failing over and over does not keep the owner out: the right password from another address signs in at once', async () => {
      fresh();
      for (let i = 0; i < 40; i++) {
        const outcome = await attempt(service, 'victim', `guess-${i}`, ATTACKER);
        assert.ok(outcome.status === 401 || outcome.status === 429, `attempt ${i}: ${JSON.stringify(outcome)}`);
        clock.advance(10_000);
      }
      assert.deepEqual(await attempt(service, 'victim', PASSWORD, OWNER), { status: 200, username: 'victim' });
      // And a second time: the owner's success did not depend on a slot the attacker left open.
      assert.deepEqual(await attempt(service, 'victim', PASSWORD, OWNER), { status: 200, username: 'victim' });
    });

    test('the failing address itself is slowed: refused without a check (even the right password) for a delay that doubles up to 15 minutes', async () => {
      fresh();
      for (let i = 0; i < freeFailures; i++) {
        assert.deepEqual(await attempt(service, 'root', 'wrong', ATTACKER), { status: 401, message: LOGIN_FAILED_MESSAGE, retryAfter: undefined });
      }
      // Every failure from here on makes that address wait longer: 30 s, 60 s, 120 s, … and at most 15 minutes.
      let delay: number = firstDelaySeconds;
      for (let round = 0; round < 8; round++) {
        const refused = await attempt(service, 'root', PASSWORD, ATTACKER);
        assert.equal(refused.status, 429, `round ${round}: ${JSON.stringify(refused)}`);
        assert.equal((refused as { retryAfter: number }).retryAfter, delay, `round ${round}`);
        assert.match((refused as { message: string }).message, new RegExp(`retry in ${delay} seconds`));
        clock.advance(delay * 1000 - 1000);
        assert.equal((await attempt(service, 'root', PASSWORD, ATTACKER)).status, 429, `round ${round}: still waiting one second before the end`);
        assert.equal((await attempt(service, 'root', PASSWORD, ATTACKER) as { retryAfter: number }).retryAfter, 1);
        clock.advance(1000);
        assert.deepEqual(await attempt(service, 'root', 'wrong again', ATTACKER), { status: 401, message: LOGIN_FAILED_MESSAGE, retryAfter: undefined });
        delay = Math.min(delay * 2, maxDelaySeconds);
      }
      assert.equal(delay, maxDelaySeconds, 'the delay reached its cap');
      // Once the wait is over, the right password signs in, and that clears the address's count.
      clock.advance(maxDelaySeconds * 1000);
      assert.deepEqual(await attempt(service, 'root', PASSWORD, ATTACKER), { status: 200, username: 'root' });
      for (let i = 0; i < freeFailures; i++) assert.equal((await attempt(service, 'root', 'typo', ATTACKER)).status, 401, `free failure ${i} after a success`);
      assert.equal((await attempt(service, 'root', PASSWORD, ATTACKER)).status, 429);
    });

    test('an unknown username is throttled exactly like a known one', async () => {
      fresh();
      const run = async (username: string, address: string): Promise<Outcome[]> => {
        const outcomes: Outcome[] = [];
        for (const [password, wait] of [['a', 0], ['b', 0], ['c', 0], ['d', 0], ['e', 0], ['f', 0], ['g', 29_000], ['h', 1_000], ['i', 59_000], ['j', 1_000], ['k', 0]] as const) {
          clock.advance(wait);
          const outcome = await attempt(service, username, password, address);
          outcomes.push(outcome);
        }
        return outcomes;
      };
      const known = await run('twin', '192.0.2.10');
      const unknown = await run('nobody-by-this-name', '192.0.2.11');
      assert.deepEqual(unknown, known);
      assert.ok(known.some((o) => o.status === 429), 'the sequence reaches the throttle');
    });

    test('several instances share the throttle through the database', async () => {
      fresh();
      const peer = await db.openPeer();
      try {
        const issuer = createLocalIssuer({ db: peer, clock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
        const other = createLocalLoginService({ db: peer, issuer, clock, metrics, log });
        for (let i = 0; i < freeFailures; i++) assert.equal((await attempt(i % 2 === 0 ? service : other, 'shared', 'wrong', ATTACKER)).status, 401);
        assert.equal((await attempt(other, 'shared', PASSWORD, ATTACKER)).status, 429);
        assert.equal((await attempt(service, 'shared', PASSWORD, ATTACKER)).status, 429);
        assert.equal((await attempt(other, 'shared', PASSWORD, OWNER)).status, 200);
      } finally {
        await peer.close();
      }
    });

    test('parallel attempts from one address cannot slip past the throttle: each is counted before its password is checked', async () => {
      fresh();
      const peer = await db.openPeer();
      try {
        const issuer = createLocalIssuer({ db: peer, clock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
        const other = createLocalLoginService({ db: peer, issuer, clock, metrics, log });
        const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => attempt(i % 2 === 0 ? service : other, 'parallel', `guess-${i}`, ATTACKER)));
        const statuses = outcomes.map((o) => o.status).sort();
        assert.deepEqual(statuses, [...Array<number>(freeFailures).fill(401), ...Array<number>(16 - freeFailures).fill(429)]);
      } finally {
        await peer.close();
      }
    });

    test('failures and throttled attempts are counted; a burst on one account across addresses logs one warning per window, without the password', async () => {
      fresh();
      const secret = 'hunter2-very-secret';
      const addressOf = (i: number) => `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}`;
      // 19 addresses fail once each within the window: not yet a burst.
      for (let i = 0; i < LOGIN_THROTTLE.burstFailures - 1; i++) {
        assert.equal((await attempt(service, 'sprayed', secret, addressOf(i))).status, 401);
        clock.advance(5_000);
      }
      assert.equal(log.warnings.length, 0);
      assert.equal(await counter(metrics, 'loginFailureBursts'), 0);
      // The 20th makes it one, and the rest of the window adds no second warning.
      for (let i = LOGIN_THROTTLE.burstFailures - 1; i < 30; i++) await attempt(service, 'sprayed', secret, addressOf(i));
      assert.equal(log.warnings.length, 1);
      const [warning] = log.warnings;
      assert.equal(warning!.obj.username, 'sprayed');
      assert.equal(warning!.obj.address, addressOf(LOGIN_THROTTLE.burstFailures - 1));
      assert.equal(warning!.obj.failures, LOGIN_THROTTLE.burstFailures);
      assert.ok(Array.isArray(warning!.obj.addresses) && (warning!.obj.addresses as string[]).includes(addressOf(0)), JSON.stringify(warning!.obj));
      assert.doesNotMatch(JSON.stringify(warning) + (warning!.msg ?? ''), /hunter2/);
      assert.equal(await counter(metrics, 'loginFailureBursts'), 1);
      assert.equal(await counter(metrics, 'loginFailures', { reason: 'invalid_credentials' }), 30);

      // One address keeps trying: its throttled attempts are counted as such, and count toward the burst too.
      for (let i = 0; i < freeFailures; i++) await attempt(service, 'sprayed', secret, ATTACKER);
      for (let i = 0; i < 3; i++) assert.equal((await attempt(service, 'sprayed', PASSWORD, ATTACKER)).status, 429);
      assert.equal(await counter(metrics, 'loginFailures', { reason: 'invalid_credentials' }), 30 + freeFailures);
      assert.equal(await counter(metrics, 'loginFailures', { reason: 'throttled' }), 3);

      // A new window: a new burst warns again.
      clock.advance(LOGIN_THROTTLE.burstWindowSeconds * 1000);
      for (let i = 0; i < LOGIN_THROTTLE.burstFailures; i++) await attempt(service, 'sprayed', secret, addressOf(100 + i));
      assert.equal(log.warnings.length, 2);
      assert.equal(await counter(metrics, 'loginFailureBursts'), 2);
      // Successful sign-ins are not failures.
      assert.equal((await attempt(service, 'sprayed', PASSWORD, OWNER)).status, 200);
      assert.equal(await counter(metrics, 'loginFailures', { reason: 'invalid_credentials' }), 30 + freeFailures + LOGIN_THROTTLE.burstFailures);
    });

    test('quiet pairs are forgotten: their rows go, and the count starts again', async () => {
      fresh();
      for (let i = 0; i < freeFailures; i++) await attempt(service, 'root', 'wrong', '192.0.2.99');
      assert.equal((await attempt(service, 'root', PASSWORD, '192.0.2.99')).status, 429);
      clock.advance(LOGIN_THROTTLE.forgetAfterSeconds * 1000 + 1000);
      // Another pair's failure prunes the quiet one.
      await attempt(service, 'nobody', 'x', '192.0.2.100');
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM login_throttle WHERE client_address = '192.0.2.99'");
      assert.equal(rows[0]!.n, 0);
      for (let i = 0; i < freeFailures; i++) assert.equal((await attempt(service, 'root', 'wrong', '192.0.2.99')).status, 401);
    });
  });
}

describe('throttleKeyOf', () => {
  test('an IPv4 address is its own key, written the same however it reached us', () => {
    assert.equal(throttleKeyOf('203.0.113.66'), '203.0.113.66');
    assert.equal(throttleKeyOf('::ffff:203.0.113.66'), '203.0.113.66');
  });

  test('IPv6 addresses count per /64: one subscriber holds a whole /64 and could otherwise try from each of its addresses', () => {
    const key = throttleKeyOf('2001:db8:aa:bb:1:2:3:4');
    assert.equal(key, '2001:db8:aa:bb::/64');
    assert.equal(throttleKeyOf('2001:db8:aa:bb::1'), key);
    assert.equal(throttleKeyOf('2001:0DB8:00aa:00bb:ffff:ffff:ffff:ffff'), key);
    assert.equal(throttleKeyOf('2001:db8:aa:bb:0:0:1.2.3.4'), key);
    assert.notEqual(throttleKeyOf('2001:db8:aa:bc::1'), key);
    assert.equal(throttleKeyOf('::1'), '0:0:0:0::/64');
    assert.equal(throttleKeyOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });
});
