import type { Queryable } from '../db/database.ts';

/** Sign-in throttling state (migration 013): per (username, address), and per username for bursts. */

export interface ThrottleSchedule {
  /** Failures a pair may have before it waits. */
  freeFailures: number;
  /** The first wait; each further failure doubles it... */
  firstDelaySeconds: number;
  /** ...up to this. */
  maxDelaySeconds: number;
  /** A pair without a failure for this long starts again from nothing. */
  forgetAfterSeconds: number;
}

/**
 * How long a pair with `failures` waits after its last one, in SQL, from the
 * schedule's parameters $4 (free failures), $5 (first delay) and $6 (cap).
 * The exponent is capped too, so that no count overflows power().
 */
const delayAfter = (failures: string) =>
  `CASE WHEN ${failures} < $4 THEN interval '0' ELSE make_interval(secs => least($6::double precision, $5::double precision * power(2, least(${failures} - $4, 30)))) END`;

/**
 * Counts an attempt of (username, address) about to be checked, unless the
 * pair is still waiting: one statement, so that concurrent attempts (several
 * instances, parallel requests) cannot all slip through before the first
 * failure is written. A pair quiet for the schedule's forget time starts
 * again at one. Returns `waitUntil` instead when the attempt may not be
 * checked.
 */
export async function claimAttempt(
  db: Queryable,
  pair: { username: string; address: string },
  now: Date,
  schedule: ThrottleSchedule,
): Promise<{ claimed: true } | { claimed: false; waitUntil: Date }> {
  const { rows } = await db.query<{ claimed: boolean; wait_until: Date | null }>(
    `WITH claimed AS (
       INSERT INTO login_throttle AS t (username, client_address, failures, last_failure_at) VALUES ($1, $2, 1, $3)
       ON CONFLICT (username, client_address) DO UPDATE SET
         failures = CASE WHEN t.last_failure_at <= $3::timestamptz - make_interval(secs => $7::double precision) THEN 1 ELSE t.failures + 1 END,
         last_failure_at = $3
       WHERE t.last_failure_at + ${delayAfter('t.failures')} <= $3::timestamptz
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM claimed) AS claimed,
            (SELECT w.last_failure_at + ${delayAfter('w.failures')} FROM login_throttle w WHERE w.username = $1 AND w.client_address = $2) AS wait_until`,
    [pair.username, pair.address, now, schedule.freeFailures, schedule.firstDelaySeconds, schedule.maxDelaySeconds, schedule.forgetAfterSeconds],
  );
  const row = rows[0]!;
  if (row.claimed) return { claimed: true };
  // The row the refusal was decided on may have changed since this statement's snapshot: never answer a wait in the past.
  return { claimed: false, waitUntil: row.wait_until && row.wait_until > now ? row.wait_until : new Date(now.getTime() + 1000) };
}

/** The pair signed in: its count goes. */
export async function clearPair(db: Queryable, pair: { username: string; address: string }): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE username = $1 AND client_address = $2', [pair.username, pair.address]);
}

/** Rows that no longer throttle anything: pairs quiet past the forget time, burst windows past their end. */
export async function pruneThrottle(db: Queryable, now: Date, forgetAfterSeconds: number, burstWindowSeconds: number): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE last_failure_at <= $1::timestamptz - make_interval(secs => $2::double precision)', [now, forgetAfterSeconds]);
  await db.query('DELETE FROM login_failure_windows WHERE started_at <= $1::timestamptz - make_interval(secs => $2::double precision)', [now, burstWindowSeconds]);
}

/**
 * Counts a failed attempt on `username` in its current window (a new one
 * starts when the last is over). `warn` is true for exactly one caller per
 * window, the first to see the count reach `burstFailures`, whichever
 * instance it runs on.
 */
export async function countFailureInWindow(
  db: Queryable,
  username: string,
  now: Date,
  window: { seconds: number; burstFailures: number },
): Promise<{ failures: number; startedAt: Date; warn: boolean }> {
  const { rows } = await db.query<{ failures: number; started_at: Date; warned: boolean }>(
    `INSERT INTO login_failure_windows AS w (username, started_at, failures) VALUES ($1, $2, 1)
     ON CONFLICT (username) DO UPDATE SET
       started_at = CASE WHEN w.started_at <= $2::timestamptz - make_interval(secs => $3::double precision) THEN $2 ELSE w.started_at END,
       failures = CASE WHEN w.started_at <= $2::timestamptz - make_interval(secs => $3::double precision) THEN 1 ELSE w.failures + 1 END,
       warned = CASE WHEN w.started_at <= $2::timestamptz - make_interval(secs => $3::double precision) THEN false ELSE w.warned END
     RETURNING failures, started_at, warned`,
    [username, now, window.seconds],
  );
  const { failures, started_at: startedAt, warned } = rows[0]!;
  if (warned || failures < window.burstFailures) return { failures, startedAt, warn: false };
  const claimed = await db.query('UPDATE login_failure_windows SET warned = true WHERE username = $1 AND started_at = $2 AND NOT warned', [username, startedAt]);
  return { failures, startedAt, warn: claimed.rowCount === 1 };
}

/** The addresses with the most failures on `username` since `since`, for the burst warning. */
export async function busiestAddresses(db: Queryable, username: string, since: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ client_address: string }>(
    'SELECT client_address FROM login_throttle WHERE username = $1 AND last_failure_at >= $2 ORDER BY failures DESC, client_address LIMIT $3',
    [username, since, limit],
  );
  return rows.map((r) => r.client_address);
}
