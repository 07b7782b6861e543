import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createQuoteSigner, MAX_QUOTE_ID_CHARS, QUOTE_INVALID_MESSAGE, QUOTE_NEEDS_CLIENT_MESSAGE, QUOTE_NO_CLIENT_MESSAGE, QUOTE_OTHER_CLIENT_MESSAGE, QuoteRefusal, quoteExpiredMessage } from './quote-token.ts';

const key = randomBytes(32);
const signer = createQuoteSigner(key);
const now = new Date('2025-06-01T12:00:00Z');
const minutes = (n: number) => n * 60_000;
const later = (ms: number) => new Date(now.getTime() + ms);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof QuoteRefusal, String(error));
    return error.message;
  }
  assert.fail('the quote was honoured');
}

test('a quote holds its threshold until it expires, for its own client code', () => {
  const quote = signer.issue({ threshold: 3.25, clientCode: 'ABCDEFGHJK', now, validityMs: minutes(10) });
  assert.equal(quote.threshold, 3.25);
  assert.equal(quote.client_code, 'ABCDEFGHJK');
  assert.equal(quote.expires_at, '2025-06-01T12:10:00.000Z');
  assert.ok(quote.quote_id.length < 200, `${quote.quote_id.length} characters`);
  const held = signer.check(quote.quote_id, 'ABCDEFGHJK', later(minutes(10) - 1));
  assert.deepEqual(held, { quoteId: quote.quote_id, threshold: 3.25, expiresAt: new Date('2025-06-01T12:10:00.000Z') });
  assert.equal(refusal(() => signer.check(quote.quote_id, 'ABCDEFGHJK', later(minutes(10)))), quoteExpiredMessage(new Date('2025-06-01T12:10:00.000Z')));
});

test('a quote is bound to its client code, or to none', () => {
  const coded = signer.issue({ threshold: 2, clientCode: 'ABCDEFGHJK', now, validityMs: minutes(10) });
  const plain = signer.issue({ threshold: 2, clientCode: undefined, now, validityMs: minutes(10) });
  assert.equal('client_code' in plain, false);
  assert.equal(refusal(() => signer.check(coded.quote_id, 'ZZZZZZZZZZ', now)), QUOTE_OTHER_CLIENT_MESSAGE);
  assert.equal(refusal(() => signer.check(coded.quote_id, undefined, now)), QUOTE_NEEDS_CLIENT_MESSAGE);
  assert.equal(refusal(() => signer.check(plain.quote_id, 'ABCDEFGHJK', now)), QUOTE_NO_CLIENT_MESSAGE);
  assert.equal(signer.check(plain.quote_id, undefined, now).threshold, 2);
  // The code is in the quote only as a keyed hash: a receipt naming the quote does not show it.
  assert.equal(coded.quote_id.includes('ABCDEFGHJK'), false);
  assert.equal(Buffer.from(coded.quote_id.split('.')[1]!, 'base64url').toString().includes('ABCDEFGHJK'), false);
});

test('a tampered quote, one of another portal, and anything else are refused as not valid', () => {
  const quote = signer.issue({ threshold: 5, clientCode: undefined, now, validityMs: minutes(10) });
  const [prefix, payload, mac] = quote.quote_id.split('.') as [string, string, string];
  const body = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { t: number; e: number };
  const rewritten = (change: object) => `${prefix}.${Buffer.from(JSON.stringify({ ...body, ...change })).toString('base64url')}.${mac}`;
  for (const forged of [
    rewritten({ t: 1 }),
    rewritten({ e: body.e + minutes(60) }),
    `${prefix}.${payload}.${Buffer.from(mac, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b)).toString()}`,
    `${prefix}.${payload}.${mac.slice(0, -2)}`,
    `q2.${payload}.${mac}`,
    createQuoteSigner(randomBytes(32)).issue({ threshold: 5, clientCode: undefined, now, validityMs: minutes(10) }).quote_id,
    'q1..',
    'not a quote',
    'q1.' + 'a'.repeat(MAX_QUOTE_ID_CHARS) + '.b',
  ]) {
    assert.equal(refusal(() => signer.check(forged, undefined, now)), QUOTE_INVALID_MESSAGE, forged);
  }
  // The same key on another instance honours it (nothing is stored).
  assert.equal(createQuoteSigner(Buffer.from(key)).check(quote.quote_id, undefined, now).threshold, 5);
});
