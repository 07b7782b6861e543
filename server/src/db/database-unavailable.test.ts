import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freePort } from '../../dev/bitcoin/node-launcher.ts';
import { isDatabaseUnavailable } from './database.ts';

test('a real refused connection counts as the database being unavailable', async () => {
  const client = new pg.Client({ host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'nothing', connectionTimeoutMillis: 2000 });
  const error = await client.connect().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof Error);
  assert.equal(isDatabaseUnavailable(error), true);
});

test('statement errors and other failures do not count as unavailability', () => {
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('duplicate key value'), { code: '23505' })), false);
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' })), false);
  assert.equal(isDatabaseUnavailable(new Error('something else')), false);
  assert.equal(isDatabaseUnavailable('not an error'), false);
});

test('server shutdown and connection-exception codes count as unavailability', () => {
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), true);
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('connection failure'), { code: '08006' })), true);
  assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isDatabaseUnavailable(new Error('Query read timeout')), true, "a statement unanswered within the pool's query_timeout");
});
