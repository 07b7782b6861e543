// The databases integration tests run against (docs/architecture.md, convention 6): always
// PGlite in memory, plus a real Postgres server when TEST_DATABASE_URL is set.
// This is the only place tests read the environment for a database.
//
//   for (const engine of testDatabases()) {
//     test(`... (${engine.name})`, async () => {
//       const db = await engine.open();
//       try { ... } finally { await db.close(); }
//     });
//   }

import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPglite, openPostgres, redactUrl, type Database } from '../../src/db/database.ts';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';

// Its package.json is not in its exports: read beside its entry point (dist/).
const PGLITE_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.resolve('@electric-sql/pglite')), 'utf8')) as { version: string }).version;

export interface TestDatabaseOptions {
  /** Apply the migrations of src/db/migrations (default true). */
  migrate?: boolean;
}

export type TestDatabase = Database & {
  /** Postgres only: the throw-away database's name. */
  readonly databaseName?: string;
  /** Postgres only: its connection URL, for a server started in another process. */
  readonly url?: string;
  /**
   * Another connection to the same database, as a second server instance would
   * have: a separate pool on Postgres (closed with this database at the latest);
   * on PGlite, which has a single connection, the same database again, whose
   * close() does nothing.
   */
  openPeer(): Promise<Database>;
  /** Postgres only: closes the pool and drops the database (close() does the same). */
  drop?(): Promise<void>;
};

export interface TestEngine {
  name: 'pglite' | 'postgres';
  open(options?: TestDatabaseOptions): Promise<TestDatabase>;
}

/** `db` with another close(). */
function delegate(db: Database, close: () => Promise<void>): Database {
  return {
    kind: db.kind,
    query: db.query.bind(db),
    exec: db.exec.bind(db),
    transaction: db.transaction.bind(db),
    listen: db.listen.bind(db),
    close,
  };
}

async function withAdminClient<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The migrations' text, hashed: what a kept template depends on. */
let migrationsHash: Promise<string> | undefined;
function hashOfMigrations(): Promise<string> {
  migrationsHash ??= loadMigrations().then((migrations) => {
    const hash = createHash('sha256');
    for (const m of migrations) hash.update(`${m.file}\n${m.sql}\n`);
    return hash.digest('hex').slice(0, 16);
  });
  return migrationsHash;
}

// Migrating a new Postgres database takes about 300 ms; copying a migrated template takes a third of that.
// The template is a database on the test server named after the migrations' hash: built once by whichever
// test file first needs it (under a name of its own, then renamed, so a file running at the same time sees
// the whole template or none), kept for later runs, and never connected to afterwards (Postgres copies
// only a template nobody is connected to).
const postgresTemplates = new Map<string, Promise<string>>();

function postgresTemplate(adminUrl: string): Promise<string> {
  let template = postgresTemplates.get(adminUrl);
  if (!template) {
    template = (async () => {
      const name = `slipstream_template_${await hashOfMigrations()}`;
      const exists = await withAdminClient(adminUrl, (c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]));
      if (exists.rowCount) return name;
      const building = `${name}_${process.pid}_${randomBytes(4).toString('hex')}`;
      await withAdminClient(adminUrl, (c) => c.query(`CREATE DATABASE ${building}`));
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const db = await openPostgres(url.toString());
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      await withAdminClient(adminUrl, async (c) => {
        try {
          await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        } catch (error) {
          // Another file built it meanwhile (duplicate_database): use theirs.
          if ((error as { code?: string }).code !== '42P04') throw error;
          await c.query(`DROP DATABASE ${building} WITH (FORCE)`);
        }
      });
      return name;
    })();
    postgresTemplates.set(adminUrl, template);
  }
  return template;
}

/** A fresh, uniquely named database on the server of `adminUrl`, dropped on close. */
async function openFreshPostgres(adminUrl: string, options: TestDatabaseOptions): Promise<TestDatabase> {
  const databaseName = `slipstream_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const migrated = options.migrate !== false;
  const template = migrated ? ` TEMPLATE ${await postgresTemplate(adminUrl)}` : '';
  await withAdminClient(adminUrl, (c) => c.query(`CREATE DATABASE ${databaseName}${template}`));

  const dropDatabase = () =>
    withAdminClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));

  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  let db: Database;
  try {
    db = await openPostgres(url.toString());
  } catch (err) {
    await dropDatabase();
    throw err;
  }

  const peers = new Set<Database>();
  let dropped: Promise<void> | undefined;
  const drop = (): Promise<void> => {
    dropped ??= (async () => {
      await Promise.all([db, ...peers].map((d) => d.close()));
      await dropDatabase();
    })();
    return dropped;
  };
  const openPeer = async (): Promise<Database> => {
    if (dropped) throw new Error(`Test database ${databaseName} is already dropped`);
    const peer = await openPostgres(url.toString());
    peers.add(peer);
    return delegate(peer, async () => {
      if (peers.delete(peer)) await peer.close();
    });
  };
  return { ...delegate(db, drop), databaseName, url: url.toString(), drop, openPeer };
}

// Creating a PGlite cluster runs initdb (a second and a half, most of it CPU); loading a dump of one
// takes a fifth of that. The dumps are kept in the system's temporary directory under a name made of
// what they depend on (PGlite's version, the migrations' text), so that the test files running at
// the same time, and later runs, build each once; in a process, each is read once.
const pgliteTemplates = new Map<boolean, Promise<Blob>>();

async function templateFile(migrated: boolean): Promise<string> {
  const what = migrated ? await hashOfMigrations() : 'empty';
  return join(tmpdir(), `slipstream-pglite-${PGLITE_VERSION}-template-${what}.tar`);
}

async function buildTemplate(migrated: boolean): Promise<Blob> {
  const db = await openPglite(undefined);
  try {
    if (migrated) await migrate(db);
    return await db.dumpDataDir();
  } finally {
    await db.close();
  }
}

function pgliteTemplate(migrated: boolean): Promise<Blob> {
  let template = pgliteTemplates.get(migrated);
  if (!template) {
    template = (async () => {
      const file = await templateFile(migrated);
      const kept = await readFile(file).catch(() => undefined);
      if (kept) return new Blob([kept]);
      const built = await buildTemplate(migrated);
      // Written beside, then renamed: a file running at the same time reads a whole dump or none.
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await writeFile(partial, Buffer.from(await built.arrayBuffer()));
      await rename(partial, file);
      return built;
    })();
    pgliteTemplates.set(migrated, template);
  }
  return template;
}

async function openMemoryPglite(options: TestDatabaseOptions): Promise<TestDatabase> {
  const db = await openPglite(undefined, { loadDataDir: await pgliteTemplate(options.migrate !== false) });
  const peer = delegate(db, () => Promise.resolve());
  return { ...delegate(db, () => db.close()), openPeer: () => Promise.resolve(peer) };
}

export function testDatabases(): TestEngine[] {
  const engines: TestEngine[] = [{ name: 'pglite', open: (options = {}) => openMemoryPglite(options) }];
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    if (!URL.canParse(adminUrl)) {
      throw new Error(`TEST_DATABASE_URL is not a URL: ${redactUrl(adminUrl)}`);
    }
    engines.push({ name: 'postgres', open: (options = {}) => openFreshPostgres(adminUrl, options) });
  }
  return engines;
}
