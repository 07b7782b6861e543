// Migrations and the database adapter, against every engine of testDatabases():
// PGlite always, a real Postgres server when TEST_DATABASE_URL is set.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabases, type TestDatabase } from '../../test/helpers/test-db.ts';
import { isDatabaseError, openPglite, type Queryable } from './database.ts';
import { DEFAULT_MIGRATIONS_DIR, loadMigrations, migrate, MigrationError } from './migrate.ts';

const TABLES = [
  'schema_migrations',
  'settings',
  'clients',
  'discount_codes',
  'tx_submissions',
  'package_submissions',
  'jobs',
  'package_tx_outcomes',
  'tracker_cursor',
  'failed_txs',
  'audit_logs',
  'audit_log_counts',
  'audit_chain_head',
  'audit_log_hashes',
  'setting_logs',
  'discount_logs',
  'client_logs',
  'client_api_keys',
];

const TXID_A = 'a'.repeat(64);
const TXID_B = 'b'.repeat(64);

async function withDb<T>(
  open: () => Promise<TestDatabase>,
  fn: (db: TestDatabase) => Promise<T>,
): Promise<T> {
  const db = await open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'slipstream-migrations-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function tableExists(db: Queryable, table: string): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [table]);
  return rows[0]?.exists === true;
}

async function versions(db: Queryable): Promise<number[]> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((r) => r.version);
}

/** Runs `fn`, expecting it to reject with a database error of SQLSTATE `code`. */
async function rejectsWithCode(fn: () => Promise<unknown>, code: string, constraint?: string): Promise<void> {
  await assert.rejects(fn, (err: unknown) => {
    assert.ok(isDatabaseError(err), `expected a database error, got ${String(err)}`);
    assert.equal(err.code, code);
    if (constraint !== undefined) assert.equal(err.constraint, constraint);
    return true;
  });
}

test('the migration files are numbered, named and free of transaction control', async () => {
  const migrations = await loadMigrations();
  // Versions run 1, 2, 3, ... without gaps: a missing number is a lost file.
  assert.deepEqual(migrations.map((m) => m.version), migrations.map((_, i) => i + 1));
  assert.deepEqual(
    migrations.slice(0, 10).map((m) => m.file),
    [
      '001_settings.sql',
      '002_clients_and_discounts.sql',
      '003_submissions.sql',
      '004_failed_txs.sql',
      '005_audit.sql',
      '006_change_logs.sql',
      '007_pending_submissions.sql',
      '008_staff_accounts.sql',
      '009_audit_log_counts.sql',
      '010_jobs.sql',
    ],
  );
});

test('loadMigrations refuses badly named, duplicated or self-committing files', async (t) => {
  const bad = async (files: Record<string, string>, pattern: RegExp) => {
    const dir = await tempDir(t);
    for (const [name, sql] of Object.entries(files)) await writeFile(join(dir, name), sql);
    await assert.rejects(loadMigrations(dir), pattern);
  };
  await bad({ '1_x.sql': 'SELECT 1;' }, /1_x\.sql does not match/);
  await bad({ '001_Settings.sql': 'SELECT 1;' }, /001_Settings\.sql does not match/);
  await bad({ '001_a.sql': 'SELECT 1;', '001_b.sql': 'SELECT 1;' }, /share version 1/);
  await bad({ '001_a.sql': 'BEGIN;\nSELECT 1;\nCOMMIT;' }, /001_a\.sql controls transactions/);
});

for (const engine of testDatabases()) {
  const open = () => engine.open({ migrate: false });
  const openMigrated = () => engine.open();

  test(`${engine.name}: migrations apply to a fresh database, and re-running is a no-op`, () =>
    withDb(open, async (db) => {
      const first = await migrate(db);
      const all = await loadMigrations();
      assert.deepEqual(
        first.applied.map((m) => `${m.version}_${m.name}`),
        all.map((m) => `${m.version}_${m.name}`),
      );
      assert.equal(first.version, all.length);
      for (const table of TABLES) assert.ok(await tableExists(db, table), `${table} exists`);

      const { rows } = await db.query<{ applied_at: Date; name: string }>(
        'SELECT applied_at, name FROM schema_migrations WHERE version = 1',
      );
      assert.ok(rows[0]?.applied_at instanceof Date);
      assert.equal(rows[0]?.name, 'settings');

      const second = await migrate(db);
      assert.deepEqual(second, { applied: [], version: all.length });
      assert.deepEqual(await versions(db), all.map((m) => m.version));
    }));

  test(`${engine.name}: a broken migration fails with its file name and line, and rolls back`, (t) =>
    withDb(open, async (db) => {
      const dir = await tempDir(t);
      await cp(join(DEFAULT_MIGRATIONS_DIR, '001_settings.sql'), join(dir, '001_settings.sql'));
      await writeFile(
        join(dir, '002_broken.sql'),
        'CREATE TABLE half_done (id integer);\n\nINSERT INTO no_such_table VALUES (1);\n',
      );
      await writeFile(join(dir, '003_never.sql'), 'CREATE TABLE never_reached (id integer);\n');

      await assert.rejects(migrate(db, { dir }), (err: unknown) => {
        assert.ok(err instanceof MigrationError);
        assert.equal(err.file, '002_broken.sql');
        assert.match(err.message, /^Migration 002_broken\.sql failed \(line 3\): relation "no_such_table" does not exist$/);
        assert.ok(isDatabaseError(err.cause));
        assert.equal(err.cause.code, '42P01');
        return true;
      });
      assert.deepEqual(await versions(db), [1]);
      assert.equal(await tableExists(db, 'half_done'), false);
      assert.equal(await tableExists(db, 'never_reached'), false);
      assert.equal(await tableExists(db, 'settings'), true);
    }));

  test(`${engine.name}: refuses a database with a migration the code does not know`, () =>
    withDb(openMigrated, async (db) => {
      await db.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')");
      await assert.rejects(migrate(db), /migration\(s\) 999 \(from_the_future\).*newer than this code/);
    }));

  test(`${engine.name}: refuses a database whose applied migration has another name`, () =>
    withDb(openMigrated, async (db) => {
      await db.query("UPDATE schema_migrations SET name = 'renamed' WHERE version = 2");
      await assert.rejects(migrate(db), /migration 2 as "renamed" but the code has 002_clients_and_discounts\.sql/);
    }));

  test(`${engine.name}: concurrent migrate() calls from two instances apply each migration once`, () =>
    withDb(open, async (db) => {
      const peer = await db.openPeer();
      try {
        const all = (await loadMigrations()).map((m) => m.version);
        const results = await Promise.all([migrate(db), migrate(peer), migrate(db), migrate(peer)]);
        const applied = results.flatMap((r) => r.applied.map((m) => m.version)).sort((a, b) => a - b);
        assert.deepEqual(applied, all);
        for (const r of results) assert.equal(r.version, all.length);
        assert.deepEqual(await versions(db), all);
      } finally {
        await peer.close();
      }
    }));

  test(`${engine.name}: the seeded settings are present and their values are checked`, () =>
    withDb(openMigrated, async (db) => {
      const { rows } = await db.query<{
        item: string;
        value: string;
        value_type: string;
        min_value: number | null;
        max_value: number | null;
        description: string;
        updated_at: Date;
      }>('SELECT item, value, value_type, min_value, max_value, description, updated_at FROM settings ORDER BY id');
      assert.deepEqual(
        rows.map((r) => [r.item, r.value, r.value_type, r.min_value, r.max_value]),
        [
          ['fee_rate_floor', '2', 'number', 0, null],
          ['slipstream_multiplier', '2', 'number', 1, 100],
          ['contact_email', 'blocks@example.com', 'email', null, null],
          ['company_url', 'https://example.com', 'url', null, null],
          ['maintenance_mode', 'false', 'boolean', null, null],
          ['pool_coinbase_tag', '', 'text', null, null],
          ['pool_payout_addresses', '', 'text', null, null],
          ['public_mempool_view', 'false', 'boolean', null, null],
          ['quote_validity_minutes', '10', 'number', 1, 1440],
          ['pool_name', 'Slipstream', 'text', null, null],
        ],
      );
      for (const r of rows) {
        assert.ok(r.description.length > 0, `${r.item} has a description`);
        assert.ok(r.updated_at instanceof Date);
      }

      const set = (item: string, value: string) =>
        db.query('UPDATE settings SET value = $2 WHERE item = $1', [item, value]);
      assert.equal((await set('slipstream_multiplier', '2.5')).rowCount, 1);
      await rejectsWithCode(() => set('slipstream_multiplier', '0.5'), '23514', 'settings_value_within_bounds');
      await rejectsWithCode(() => set('fee_rate_floor', 'two'), '23514', 'settings_value_matches_type');
      await rejectsWithCode(() => set('maintenance_mode', 'yes'), '23514', 'settings_value_matches_type');
      await rejectsWithCode(
        () => db.query("INSERT INTO settings (item, value, value_type) VALUES ('Bad Item', 'x', 'text')"),
        '23514',
        'settings_item_snake_case',
      );
    }));

  test(`${engine.name}: both engines return the same JavaScript types`, () =>
    withDb(openMigrated, async (db) => {
      const maxSupplySats = 2_100_000_000_000_000;
      await db.query(
        `INSERT INTO tx_submissions (txid, wtxid, tx_hex, fee, fee_rate, functional_rate, market_rate,
           threshold_rate, multiplier, size, vsize, weight, block_time)
         VALUES ($1, $1, '00', $2, 12.5, 12.5, 5, 10, 2.5, 200, 150, 600, $3)`,
        [TXID_A, maxSupplySats, new Date('2024-05-06T07:08:09.123Z')],
      );
      const { rows, rowCount } = await db.query<Record<string, unknown>>(
        `SELECT id, fee, fee_rate, size, created_at, block_time, block_hash, status,
                sum(fee) OVER () AS sum_fee, sum(fee) OVER ()::bigint AS sum_fee_int, count(*) OVER () AS n
         FROM tx_submissions`,
      );
      assert.equal(rowCount, 1);
      const row = rows[0];
      assert.ok(row);
      assert.equal(row.id, 1);
      assert.equal(row.fee, maxSupplySats);
      assert.equal(row.fee_rate, 12.5);
      assert.equal(row.size, 200);
      assert.ok(row.created_at instanceof Date);
      assert.ok(Math.abs(row.created_at.getTime() - Date.now()) < 60_000);
      assert.deepEqual(row.block_time, new Date('2024-05-06T07:08:09.123Z'));
      assert.equal(row.block_hash, null);
      assert.equal(row.status, 'accepted');
      assert.equal(row.sum_fee, '2100000000000000', 'sum(bigint) is numeric, which stays a string');
      assert.equal(row.sum_fee_int, maxSupplySats);
      assert.equal(row.n, 1, 'count(*) is bigint, returned as a number');

      const { rows: more } = await db.query<Record<string, unknown>>(
        `SELECT '2024-01-02'::date AS d, '2024-01-02 03:04:05'::timestamp AS ts,
                ARRAY[1, 2]::bigint[] AS big_arr, ARRAY[$1::timestamptz] AS tz_arr, ARRAY['x', NULL] AS text_arr,
                '{"a": [1, "b"]}'::jsonb AS j, true AS b, 1.50::numeric AS num, 0.1::double precision AS f,
                to_char('2024-01-02 23:30:00+00'::timestamptz, 'YYYY-MM-DD HH24:MI') AS utc_text,
                $2::int8 AS from_bigint`,
        [new Date('2024-01-02T03:04:05Z'), 42n],
      );
      assert.deepEqual(more[0], {
        d: '2024-01-02',
        ts: '2024-01-02 03:04:05',
        big_arr: [1, 2],
        tz_arr: [new Date('2024-01-02T03:04:05Z')],
        text_arr: ['x', null],
        j: { a: [1, 'b'] },
        b: true,
        num: '1.50',
        f: 0.1,
        utc_text: '2024-01-02 23:30',
        from_bigint: 42,
      });

      await assert.rejects(db.query('SELECT 9007199254740993::int8 AS too_big'), RangeError);
      assert.deepEqual((await db.query('SELECT 9007199254740991::int8 AS ok')).rows, [{ ok: 9007199254740991 }]);
      // A RangeError must not leave the connection in a bad state.
      assert.deepEqual((await db.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
    }));

  test(`${engine.name}: query() takes one statement, exec() a script, parameters must not be objects`, () =>
    withDb(openMigrated, async (db) => {
      await assert.rejects(db.query('SELECT 1; SELECT 2'), /multiple commands/);
      await db.exec('CREATE TABLE scratch (x integer); INSERT INTO scratch VALUES (1), (2);');
      assert.equal((await db.query('DELETE FROM scratch')).rowCount, 2);
      assert.equal((await db.query('DROP TABLE scratch')).rowCount, 0);
      await assert.rejects(db.query('SELECT $1::jsonb', [{ a: 1 }]), TypeError);
      await assert.rejects(db.query('SELECT $1::text[]', [[{ a: 1 }]]), TypeError);
      const { rows } = await db.query<{ j: unknown; arr: string[]; n: null }>(
        'SELECT $1::jsonb AS j, $2::text[] AS arr, $3::text AS n',
        [JSON.stringify([1, { a: 2 }]), ['a', 'b,c', 'd"e'], undefined],
      );
      assert.deepEqual(rows[0], { j: [1, { a: 2 }], arr: ['a', 'b,c', 'd"e'], n: null });
    }));

  test(`${engine.name}: transactions commit, roll back on a throw, and are isolated from other queries`, () =>
    withDb(openMigrated, async (db) => {
      const count = async () =>
        (await db.query<{ n: number }>('SELECT count(*) AS n FROM clients')).rows[0]?.n;

      const id = await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: number }>("INSERT INTO clients (name) VALUES ('kept') RETURNING id");
        return rows[0]?.id;
      });
      assert.equal(id, 1);

      const boom = new Error('boom');
      let signalInserted!: () => void;
      const inserted = new Promise<void>((resolve) => (signalInserted = resolve));
      const failing = db.transaction(async (tx) => {
        await tx.query("INSERT INTO clients (name) VALUES ('rolled back')");
        signalInserted();
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw boom;
      });
      // Another request's work while that transaction is open: it must not run
      // inside it, see its uncommitted row, or be rolled back with it.
      await inserted;
      const outside = db
        .transaction(async (other) => {
          await other.query("INSERT INTO clients (name) VALUES ('concurrent')");
        })
        .then(count);
      await assert.rejects(failing, (err) => err === boom);
      assert.equal(await outside, 2);
      const { rows } = await db.query<{ name: string }>('SELECT name FROM clients ORDER BY id');
      assert.deepEqual(
        rows.map((r) => r.name),
        ['kept', 'concurrent'],
      );
    }));

  test(`${engine.name}: a transaction whose statement failed cannot commit`, () =>
    withDb(openMigrated, async (db) => {
      await rejectsWithCode(
        () =>
          db.transaction(async (tx) => {
            await tx.query("INSERT INTO clients (name) VALUES ('x')");
            await tx.query("INSERT INTO clients (name) VALUES ('x')").catch((err: unknown) => {
              assert.ok(isDatabaseError(err) && err.code === '23505');
            });
            return 'swallowed the error';
          }),
        '25P02',
      );
      assert.equal((await db.query('SELECT * FROM clients')).rowCount, 0);
    }));

  test(`${engine.name}: the database itself cannot be used inside its own transaction, nor tx after it`, () =>
    withDb(openMigrated, async (db) => {
      let leaked: Queryable | undefined;
      await assert.rejects(
        db.transaction(async (tx) => {
          leaked = tx;
          await db.query('SELECT 1');
        }),
        /Database\.query\(\) was called inside a transaction callback/,
      );
      await assert.rejects(
        db.transaction(() => db.transaction(() => Promise.resolve())),
        /Database\.transaction\(\) was called inside/,
      );
      assert.ok(leaked);
      await assert.rejects(leaked.query('SELECT 1'), /Transaction is closed/);
      // Fire-and-forget work that outlives the transaction may use the database.
      let later: Promise<unknown> | undefined;
      await db.transaction(async () => {
        later = new Promise((resolve) => setTimeout(resolve, 10)).then(() => db.query('SELECT 1'));
        return Promise.resolve();
      });
      await later;
    }));

  test(`${engine.name}: the schema's keys and constraints hold`, () =>
    withDb(openMigrated, async (db) => {
      const { rows: clients } = await db.query<{ id: number }>(
        "INSERT INTO clients (name, email) VALUES ('Acme', 'ops@acme.example') RETURNING id",
      );
      const clientId = clients[0]?.id;
      await rejectsWithCode(() => db.query("INSERT INTO clients (name) VALUES ('Acme')"), '23505', 'clients_name_key');

      const insertCode = (code: string, pct: number, from: string, until: string) =>
        db.query<{ id: number }>(
          `INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until)
           VALUES ($1, $2, $3, $4, $5) RETURNING id`,
          [code, clientId, pct, from, until],
        );
      const { rows: codes } = await insertCode('ACME10', 10, '2024-01-01 00:00:00', '2024-12-31 23:59:59');
      await rejectsWithCode(() => insertCode('BAD', 100, '2024-01-01', '2024-02-01'), '23514', 'discount_codes_percentage_range');
      await rejectsWithCode(() => insertCode('BAD', 5, '2024-02-01', '2024-01-01'), '23514', 'discount_codes_valid_range');
      await rejectsWithCode(
        () => db.query('DELETE FROM clients WHERE id = $1', [clientId]),
        '23503',
        'discount_codes_client_id_fkey',
      );

      const submitTx = (txid: string) =>
        db.query(
          `INSERT INTO tx_submissions (txid, wtxid, tx_hex, client_code, discount_code_id, fee, fee_rate,
             functional_rate, market_rate, threshold_rate, multiplier)
           VALUES ($1, $1, '00', 'ACME10', $2, 1000, 10, 10, 5, 10, 2)`,
          [txid, codes[0]?.id],
        );
      await submitTx(TXID_A);
      await rejectsWithCode(() => submitTx(TXID_A), '23505', 'tx_submissions_txid_key');
      await rejectsWithCode(() => submitTx(TXID_A.toUpperCase().replace(/A/g, 'C')), '23514', 'tx_submissions_txid_hex');
      await rejectsWithCode(
        () => db.query("UPDATE tx_submissions SET status = 'confirmed' WHERE txid = $1", [TXID_A]),
        '23514',
        'tx_submissions_confirmed_has_block',
      );

      await db.query(
        `INSERT INTO package_submissions (package_hash, txids, tx_hexes, total_fee) VALUES ('h1', $1, $2, 5000)`,
        [[TXID_A, TXID_B], ['00', '01']],
      );
      const { rows: packages } = await db.query(
        'SELECT package_hash FROM package_submissions WHERE txids @> ARRAY[$1]::text[]',
        [TXID_B],
      );
      assert.deepEqual(packages, [{ package_hash: 'h1' }]);
      await rejectsWithCode(
        () => db.query(`INSERT INTO package_submissions (package_hash, txids, tx_hexes) VALUES ('h2', $1, $2)`, [[TXID_A], []]),
        '23514',
        'package_submissions_members',
      );

      // Deleting a discount code keeps the submissions that used it.
      await db.query('DELETE FROM discount_codes');
      const { rows: kept } = await db.query('SELECT discount_code_id FROM tx_submissions');
      assert.deepEqual(kept, [{ discount_code_id: null }]);

      const fail = (status: string) =>
        db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, '00', $2, $3)`, [
          TXID_A,
          status,
          ['bad-txns-inputs-missingorspent'],
        ]);
      await fail('Failed');
      await rejectsWithCode(() => fail('Timeout'), '23505', 'failed_txs_open_txid_key');
      await db.query("UPDATE failed_txs SET status = 'Resolved'");
      await fail('Timeout');
      const { rows: failed } = await db.query('SELECT status, errors, attempts, submission_type FROM failed_txs ORDER BY id');
      assert.deepEqual(failed, [
        { status: 'Resolved', errors: ['bad-txns-inputs-missingorspent'], attempts: 1, submission_type: 'tx' },
        { status: 'Timeout', errors: ['bad-txns-inputs-missingorspent'], attempts: 1, submission_type: 'tx' },
      ]);

      await db.query(
        `INSERT INTO discount_logs (username, action, client_code, previous_values, updated_values)
         VALUES ('alice', 'Update', 'ACME10', $1, $2)`,
        [JSON.stringify({ discount_percentage: 10 }), JSON.stringify({ discount_percentage: 15 })],
      );
      await rejectsWithCode(
        () => db.query("INSERT INTO client_logs (username, client_name, action) VALUES ('alice', 'Acme', 'Upsert')"),
        '23514',
        'client_logs_action_check',
      );
      const { rows: logs } = await db.query('SELECT previous_values, updated_values FROM discount_logs');
      assert.deepEqual(logs, [{ previous_values: { discount_percentage: 10 }, updated_values: { discount_percentage: 15 } }]);
    }));
}

test('pglite: a database in a directory keeps its data and schema across restarts', async (t) => {
  const dir = join(await tempDir(t), 'data');
  const first = await openPglite(dir);
  try {
    assert.equal((await migrate(first)).applied.length, (await loadMigrations()).length);
    await first.query("INSERT INTO clients (name) VALUES ('persisted')");
  } finally {
    await first.close();
  }
  const second = await openPglite(dir);
  try {
    assert.deepEqual(await migrate(second), { applied: [], version: (await loadMigrations()).length });
    assert.deepEqual((await second.query('SELECT name FROM clients')).rows, [{ name: 'persisted' }]);
  } finally {
    await second.close();
  }
});
