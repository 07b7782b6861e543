import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testDatabases } from '../../test/helpers/test-db.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';

test('the embedded database\'s audit table is vacuumed on a timer, and stops with it', async () => {
  const db = await testDatabases()[0]!.open();
  try {
    const lastVacuum = async () =>
      (await db.query<{ last_vacuum: Date | null }>("SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'audit_logs'")).rows[0]?.last_vacuum ?? null;
    assert.equal(await lastVacuum(), null, 'never vacuumed before');
    const stop = startEmbeddedVacuum(db, (m) => assert.fail(m), 20);
    const deadline = Date.now() + 10_000;
    while ((await lastVacuum()) === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stop();
    assert.ok((await lastVacuum()) !== null, 'vacuumed within 10 s');
  } finally {
    await db.close();
  }
});
