import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryingFetch, SIGN_IN_RETRY_DELAYS_MS, type RetryNotice } from '../src/auth/retrying-fetch.ts';

/** The login page hears of each failed call to the provider before the wait, so it can say so at once rather than after 31 s. */

test('each failed attempt is told before its wait: which of how many, why, and when the next starts', async () => {
  const notices: RetryNotice[] = [];
  const order: string[] = [];
  let calls = 0;
  const fetch = retryingFetch(
    async () => {
      calls += 1;
      if (calls === 1) throw new TypeError('Failed to fetch');
      if (calls === 2) return new Response('', { status: 429 });
      return new Response('{}', { status: 200 });
    },
    async (ms) => void order.push(`wait ${ms}`),
    SIGN_IN_RETRY_DELAYS_MS,
    (notice) => {
      notices.push(notice);
      order.push(`notice ${notice.attempt}`);
    },
  );
  assert.equal((await fetch('https://idp.example/.well-known/openid-configuration')).status, 200);
  assert.deepEqual(notices, [
    { attempt: 1, attempts: 6, reason: 'unreachable', retryInMs: 1000 },
    { attempt: 2, attempts: 6, reason: 'busy', retryInMs: 2000 },
  ]);
  assert.deepEqual(order, ['notice 1', 'wait 1000', 'notice 2', 'wait 2000']);
});

test('the last failure is not told as a retry: it is the answer', async () => {
  const notices: RetryNotice[] = [];
  const fetch = retryingFetch(async () => { throw new TypeError('Failed to fetch'); }, async () => {}, [1, 2], (n) => notices.push(n));
  await assert.rejects(fetch('https://idp.example/x'), TypeError);
  assert.deepEqual(notices.map((n) => n.attempt), [1, 2]);
});
