// Forward-only schema migrations: numbered SQL files `NNN_name.sql`, applied in
// order, each in its own transaction, recorded in schema_migrations.
//
// Several instances may start against one Postgres at once (docs/architecture.md#layout): every
// migration transaction first takes a transaction-scoped advisory lock and
// re-checks what is applied, so each file runs exactly once and the losers of the
// race simply find it done. PGlite runs the same SQL; it has one connection, so the
// lock is uncontended there.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Key of the pg_advisory_xact_lock that serializes migrations (any constant works; this one is "slip" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x736c6970;

export interface Migration {
  version: number;
  name: string;
  file: string;
  sql: string;
}

export interface MigrateOptions {
  /** Directory of NNN_name.sql files; defaults to src/db/migrations. */
  dir?: string;
}

export interface MigrateResult {
  /** Migrations this call applied, in order (empty when the schema was current). */
  applied: Array<{ version: number; name: string }>;
  /** Highest version now recorded in the database (0 when there are no migrations). */
  version: number;
}

/** A migration that failed; the transaction was rolled back. `cause` is the database's error. */
export class MigrationError extends Error {
  readonly file: string;

  constructor(file: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MigrationError';
    this.file = file;
  }
}

const FILE_PATTERN = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

// Migrations run inside a transaction that migrate() owns; a file that opens or
// closes its own would silently break that guarantee.
const TRANSACTION_CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK)\s*;/im;

/** Reads and validates the migration files of `dir`, sorted by version. */
export async function loadMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir);
  const migrations: Migration[] = [];
  for (const file of entries.filter((f) => f.endsWith('.sql')).sort()) {
    const match = FILE_PATTERN.exec(file);
    if (!match) {
      throw new MigrationError(file, `Migration file name ${file} does not match NNN_snake_case_name.sql`);
    }
    const sql = await readFile(join(dir, file), 'utf8');
    if (TRANSACTION_CONTROL.test(sql)) {
      throw new MigrationError(
        file,
        `Migration ${file} controls transactions itself; remove BEGIN/COMMIT (each migration already runs in one)`,
      );
    }
    migrations.push({ version: Number(match[1]), name: match[2] ?? '', file, sql });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    const [prev, cur] = [migrations[i - 1], migrations[i]];
    if (prev && cur && prev.version === cur.version) {
      throw new MigrationError(cur.file, `Migrations ${prev.file} and ${cur.file} share version ${cur.version}`);
    }
  }
  return migrations;
}

async function lock(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
}

async function appliedVersions(tx: Queryable): Promise<Map<number, string>> {
  const { rows } = await tx.query<{ version: number; name: string }>(
    'SELECT version, name FROM schema_migrations ORDER BY version',
  );
  return new Map(rows.map((r) => [r.version, r.name]));
}

/** 1-based line of a 1-based character position in `sql`. */
function lineOf(sql: string, position: number): number {
  return sql.slice(0, Math.max(0, position - 1)).split('\n').length;
}

function describeFailure(migration: Migration, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const position = Number((err as { position?: unknown } | null)?.position);
  const where = Number.isInteger(position) && position > 0 ? ` (line ${lineOf(migration.sql, position)})` : '';
  return `Migration ${migration.file} failed${where}: ${message}`;
}

/**
 * Applies the pending migrations of `options.dir` to `db`. Throws, before applying
 * anything, when the database records a version the directory does not have (a
 * newer schema) or a known version under another name; throws MigrationError
 * naming the file when a migration fails (its transaction is rolled back and later
 * migrations are not attempted).
 */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<MigrateResult> {
  const dir = options.dir ?? DEFAULT_MIGRATIONS_DIR;
  const migrations = await loadMigrations(dir);
  const known = new Map(migrations.map((m) => [m.version, m]));

  await db.transaction(async (tx) => {
    await lock(tx);
    const { rows } = await tx.query<{ exists: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS exists",
    );
    if (!rows[0]?.exists) {
      await tx.exec(`CREATE TABLE schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    }
    const applied = await appliedVersions(tx);
    const unknown = [...applied].filter(([version]) => !known.has(version));
    if (unknown.length > 0) {
      const list = unknown.map(([v, n]) => `${v} (${n})`).join(', ');
      throw new Error(
        `The database has migration(s) ${list} that ${dir} does not contain: its schema is newer than this code. ` +
          'Refusing to start; run the newer code or restore a matching database.',
      );
    }
    for (const [version, name] of applied) {
      const migration = known.get(version);
      if (migration && migration.name !== name) {
        throw new Error(
          `The database recorded migration ${version} as "${name}" but the code has ${migration.file}; ` +
            'applied migrations must never be renamed or replaced.',
        );
      }
    }
  });

  const result: MigrateResult = { applied: [], version: 0 };
  for (const migration of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await lock(tx);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done.rowCount > 0) return false;
      try {
        await tx.exec(migration.sql);
      } catch (err) {
        throw new MigrationError(migration.file, describeFailure(migration, err), { cause: err });
      }
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (didApply) result.applied.push({ version: migration.version, name: migration.name });
  }

  const { rows } = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  result.version = rows[0]?.version ?? 0;
  return result;
}
