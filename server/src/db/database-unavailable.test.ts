import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freePort } from '../../dev/bitcoin/node-launcher.ts';
import { testDatabases } from '../../test/helpers/test-db.ts';
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

const postgres = testDatabases().find((engine) => engine.name === 'postgres');

test('a connection the server drops in the middle of a transaction fails that transaction, not the process', { skip: postgres ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const db = await postgres!.open({ migrate: false });
  const admin = await db.openPeer();
  try {
    const dropped = db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Between two statements, as a transaction awaiting the node is: the server ends the session (a shutdown does the same).
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return tx.query('SELECT 1');
    });
    const error = await dropped.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof Error, 'the transaction failed');
    assert.equal(isDatabaseUnavailable(error), true, error.message);
    // The dropped connection was not returned to the pool: the next statements find live ones.
    for (let i = 0; i < 12; i++) assert.deepEqual((await db.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }]);
  } finally {
    await admin.close();
    await db.close();
  }
});
