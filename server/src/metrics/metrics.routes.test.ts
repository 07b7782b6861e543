import { test } from 'node:test';
import assert from 'node:assert/strict';
import { submissionOutcome } from './metrics-registry.ts';
import { bearerMatches } from './metrics.routes.ts';

test('the scrape token must be sent exactly, as a Bearer token', () => {
  const token = 'scrape-secret-0123456789';
  assert.equal(bearerMatches(token, `Bearer ${token}`), true);
  assert.equal(bearerMatches(token, `bearer ${token}  `), true, 'the scheme is case-insensitive (RFC 7235 section 2.1)');
  for (const sent of [undefined, '', 'Bearer', `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token, `Bearer ${token} extra`]) {
    assert.equal(bearerMatches(token, sent), false, String(sent));
  }
});

test('a submission answer\'s status code gives its outcome', () => {
  assert.equal(submissionOutcome(200), 'accepted');
  assert.equal(submissionOutcome(400), 'invalid');
  assert.equal(submissionOutcome(413), 'invalid');
  assert.equal(submissionOutcome(422), 'rejected');
  assert.equal(submissionOutcome(500), 'failed');
  assert.equal(submissionOutcome(503), 'failed');
  // Never an attempt: rate limited, or no such route.
  assert.equal(submissionOutcome(429), undefined);
  assert.equal(submissionOutcome(404), undefined);
});
