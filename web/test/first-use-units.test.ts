import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { retryingFetch, SIGN_IN_RETRY_DELAYS_MS } from '../src/auth/retrying-fetch.ts';
import { pageOf } from '../src/lib/page-of.ts';
import { txCount } from '../src/mempool-page/mempool-format.ts';
import { packageLabel } from '../src/public/package-label.ts';

/** First-use rules that need no browser (docs/behaviour.md#limits-and-constants, docs/behaviour.md#sign-in-retries): counts in words, which page a toast belongs to, the sign-in retries. */

describe('counts in words', () => {
  test('one tx, many txs', () => {
    assert.equal(txCount(1), '1 tx');
    assert.equal(txCount(0), '0 txs');
    assert.equal(txCount(2500), '2,500 txs');
  });
  test('a package of one transaction, of two transactions', () => {
    assert.equal(packageLabel(1), 'Package of 1 transaction');
    assert.equal(packageLabel(2), 'Package of 2 transactions');
  });
});

describe('the page a toast belongs to', () => {
  test('a public page is its path; the dashboard is its section, not its list state', () => {
    assert.equal(pageOf('/status', '?txid=abc'), '/status');
    assert.equal(pageOf('/dashboard', '?section=discounts&page=2'), pageOf('/dashboard', '?section=discounts'));
    assert.notEqual(pageOf('/dashboard', '?section=discounts'), pageOf('/dashboard', '?section=settings'));
  });
});

describe('the sign-in layer\'s retries (docs/behaviour.md#sign-in-retries)', () => {
  const ok = () => new Response('{}', { status: 200 });
  const tooMany = () => new Response('', { status: 429 });

  test('waits 1, 2, 4, 8 and 16 s between attempts on network failures and 429s, then answers', async () => {
    const waits: number[] = [];
    let calls = 0;
    const fetch = retryingFetch(
      async () => {
        calls += 1;
        if (calls <= 3) throw new TypeError('Failed to fetch');
        if (calls <= 5) return tooMany();
        return ok();
      },
      async (ms) => void waits.push(ms),
    );
    const response = await fetch('https://idp.example/.well-known/openid-configuration');
    assert.equal(response.status, 200);
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000]);
    assert.deepEqual(SIGN_IN_RETRY_DELAYS_MS, [1000, 2000, 4000, 8000, 16000]);
  });

  test('after 5 retries the last failure stands: the network error, or the 429', async () => {
    let calls = 0;
    const failing = retryingFetch(async () => {
      calls += 1;
      throw new TypeError('Failed to fetch');
    }, async () => {});
    await assert.rejects(failing('https://idp.example/token'), /Failed to fetch/);
    assert.equal(calls, 6);
    const limited = retryingFetch(async () => tooMany(), async () => {});
    assert.equal((await limited('https://idp.example/token')).status, 429);
  });

  test('other answers are not retried, nor is an abort', async () => {
    let calls = 0;
    const refused = retryingFetch(async () => {
      calls += 1;
      return new Response('{"error":"invalid_grant"}', { status: 400 });
    }, async () => {});
    assert.equal((await refused('https://idp.example/token')).status, 400);
    assert.equal(calls, 1);
    const controller = new AbortController();
    controller.abort();
    let aborts = 0;
    const aborted = retryingFetch(async () => {
      aborts += 1;
      throw new DOMException('aborted', 'AbortError');
    }, async () => {});
    await assert.rejects(aborted('https://idp.example/token', { signal: controller.signal }), /aborted/);
    assert.equal(aborts, 1);
  });
});
