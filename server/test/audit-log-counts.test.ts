import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queryable } from '../src/db/database.ts';
import { DEFAULT_MIGRATIONS_DIR, migrate } from '../src/db/migrate.ts';
import { testDatabases } from './helpers/test-db.ts';

/**
 * audit_log_counts (migration 009) holds exact counts of audit_logs per UTC
 * day and per endpoint, method, source type and success; the audit list
 * reads its totals there. These tests hold it to a GROUP BY of audit_logs
 * itself after every kind of change.
 */

const COUNTED = `SELECT day::text AS day, endpoint, http_method, source_type, is_success, records
                   FROM audit_log_counts ORDER BY 1, 2, 3, 4, 5`;
const ACTUAL = `SELECT (request_at AT TIME ZONE 'UTC')::date::text AS day, endpoint, http_method, source_type, is_success, count(*) AS records
                  FROM audit_logs GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`;

async function assertCountsExact(db: Queryable, label: string): Promise<number> {
  const [counted, actual] = await Promise.all([db.query(COUNTED), db.query(ACTUAL)]);
  assert.deepEqual(counted.rows, actual.rows, label);
  return counted.rows.length;
}

/**
 * Rows around UTC midnights, with nulls in every nullable counted column,
 * repeated combinations (counted together) and distinct ones.
 */
async function insertRows(db: Queryable, offsetMinutes = 0): Promise<void> {
  await db.query(
    `INSERT INTO audit_logs (ip_address, endpoint, http_method, client_code, request_at, source_type, is_success)
     SELECT '198.51.100.' || (i % 7), (ARRAY['/rest-api/submit-tx', '/rest-api/status-check', NULL])[1 + i % 3],
            (ARRAY['POST', 'GET', NULL, 'GET'])[1 + i % 4], NULL,
            timestamptz '2024-03-01 23:30:00+00' + make_interval(mins => i * 7 + $1::int),
            (ARRAY['External', 'Internal', NULL, 'External', 'Internal'])[1 + i % 5], i % 6 <> 0
       FROM generate_series(1, 500) AS i`,
    [offsetMinutes],
  );
}

for (const engine of testDatabases()) {
  test(`${engine.name}: the per-day counts follow every insert, update, delete and truncate`, async () => {
    const db = await engine.open();
    try {
      await insertRows(db);
      await insertRows(db, 3); // the same combinations again, and new ones
      const groups = await assertCountsExact(db, 'after inserts');
      assert.ok(groups > 30, `rows spread over several days and combinations (${groups} groups)`);

      // Moved to another day, to a null endpoint, and to success.
      await db.query(`UPDATE audit_logs SET request_at = request_at + interval '2 days', endpoint = NULL WHERE id % 5 = 0`);
      await db.query('UPDATE audit_logs SET is_success = true WHERE NOT is_success AND id % 2 = 0');
      await assertCountsExact(db, 'after updates');

      await db.query(`DELETE FROM audit_logs WHERE request_at < '2024-03-02 06:00:00+00'`);
      await db.query('DELETE FROM audit_logs WHERE id % 3 = 0');
      await assertCountsExact(db, 'after deletes');
      const { rows: zero } = await db.query('SELECT * FROM audit_log_counts WHERE records <= 0');
      assert.deepEqual(zero, [], 'no empty groups are left behind');

      await db.query('TRUNCATE audit_logs');
      assert.equal(await assertCountsExact(db, 'after truncate'), 0);
      await insertRows(db);
      await assertCountsExact(db, 'after inserts into the truncated table');
    } finally {
      await db.close();
    }
  });

  test(`${engine.name}: two instances writing at once keep the counts exact`, async () => {
    const db = await engine.open();
    try {
      const peer = await db.openPeer();
      try {
        // Batches of overlapping combinations from both connections: shared
        // rows are upserted in the same order, so no deadlock either.
        await Promise.all(Array.from({ length: 12 }, (_, i) => insertRows(i % 2 === 0 ? db : peer, i % 3)));
        await assertCountsExact(db, 'after concurrent inserts');
      } finally {
        await peer.close();
      }
    } finally {
      await db.close();
    }
  });

  test(`${engine.name}: migration 009 counts the rows written before it`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slipstream-migrations-'));
    const db = await engine.open({ migrate: false });
    try {
      for (const file of await readdir(DEFAULT_MIGRATIONS_DIR)) {
        if (file.endsWith('.sql') && Number(file.slice(0, 3)) < 9) await cp(join(DEFAULT_MIGRATIONS_DIR, file), join(dir, file));
      }
      assert.equal((await migrate(db, { dir })).version, 8);
      await insertRows(db);
      const applied = await migrate(db);
      assert.deepEqual(applied.applied.map((m) => m.version).filter((v) => v === 9), [9]);
      assert.ok((await assertCountsExact(db, 'after the migration')) > 0);
      await insertRows(db, 1);
      await assertCountsExact(db, 'after inserts that the triggers counted');
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
}
