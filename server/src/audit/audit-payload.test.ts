import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditPayload, auditResponsePayload, truncateString } from './audit-payload.ts';

test('truncateString leaves strings up to max untouched', () => {
  assert.equal(truncateString('', 5), '');
  assert.equal(truncateString('abcd', 5), 'abcd');
  assert.equal(truncateString('abcde', 5), 'abcde');
});

test('truncateString cuts longer strings to max and notes the full length', () => {
  assert.equal(truncateString('abcdef', 5), 'abcde… [truncated, 6 chars]');
  const hex = '02000000'.repeat(1_000_000); // an 8 MB transaction
  const cut = truncateString(hex, 4096);
  assert.equal(cut, `${hex.slice(0, 4096)}… [truncated, 8000000 chars]`);
});

test('auditPayload: null and undefined are null', () => {
  assert.equal(auditPayload(null, 100), null);
  assert.equal(auditPayload(undefined, 100), null);
});

test('auditPayload: a string is stored as is, cut when over max', () => {
  assert.equal(auditPayload('0200abcd', 100), '0200abcd');
  assert.equal(auditPayload('x'.repeat(12), 10), `${'x'.repeat(10)}… [truncated, 12 chars]`);
});

test('auditPayload: short JSON values are their plain JSON', () => {
  const body = { tx_hex: '0200', client_code: 'ABC', nested: { list: ['a', 'b'], n: 3, ok: true, none: null } };
  assert.equal(auditPayload(body, 100), JSON.stringify(body));
  assert.equal(auditPayload([1, 'two'], 100), '[1,"two"]');
  assert.equal(auditPayload(0, 100), '0');
  assert.equal(auditPayload(false, 100), 'false');
});

test('auditPayload: long strings nested anywhere in JSON are cut, the rest kept', () => {
  const long = 'ab'.repeat(50); // 100 chars
  const body = { tx_hex: long, client_code: 'ABC', package: [long, 'short', { inner: long }] };
  const stored = auditPayload(body, 40);
  assert.ok(stored !== null);
  const cut = `${long.slice(0, 40)}… [truncated, 100 chars]`;
  assert.deepEqual(JSON.parse(stored), { tx_hex: cut, client_code: 'ABC', package: [cut, 'short', { inner: cut }] });
});

test('auditPayload: many moderately long strings are capped as a whole at 8 × max', () => {
  const max = 50;
  const pkg = Array.from({ length: 25 }, (_, i) => `${i}`.padEnd(max, 'f')); // each exactly max: none cut alone
  const json = JSON.stringify(pkg);
  assert.ok(json.length > max * 8);
  assert.equal(auditPayload(pkg, max), `${json.slice(0, max * 8)}… [truncated, ${json.length} chars]`);
});

test('passwords and tokens never reach the audit trail, at any depth', () => {
  const stored = auditPayload({ username: 'admin', password: 'hunter2', nested: { token: 'eyJ...', keep: 'me' } }, 4096)!;
  assert.doesNotMatch(stored, /hunter2|eyJ/);
  assert.deepEqual(JSON.parse(stored), { username: 'admin', password: '[redacted]', nested: { token: '[redacted]', keep: 'me' } });
});

test('a response carrying a token is stored with the token redacted; others are stored as they are', () => {
  assert.deepEqual(JSON.parse(auditResponsePayload('{"token":"eyJabc.def.ghi"}', 4096)), { token: '[redacted]' });
  assert.equal(auditResponsePayload('{"status":"success","message":"ab12"}', 4096), '{"status":"success","message":"ab12"}');
});
