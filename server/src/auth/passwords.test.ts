import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, verifyPassword } from './passwords.ts';

test('a password verifies against its own hash only', async () => {
  const hash = await hashPassword('correct horse battery staple');
  assert.match(hash, /^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
  assert.equal(await verifyPassword('correct horse battery staple', hash), true);
  assert.equal(await verifyPassword('correct horse battery stapl', hash), false);
  assert.equal(await verifyPassword('anything', 'not-a-hash'), false);
});

test('the same password hashes differently each time (salted)', async () => {
  assert.notEqual(await hashPassword('same'), await hashPassword('same'));
});
