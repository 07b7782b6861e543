import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layering docs/architecture.md describes (convention 11), checked over the import graph: routes
 * reach the database only through services (built once in services.ts), and
 * repositories know nothing of HTTP. A plain regex over the import lines is
 * enough: every module here imports with a relative path and a `.ts` ending.
 */

const SRC = path.dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The files `file` imports (static, dynamic and type-only), as paths relative to src/. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm)) {
    found.push(path.relative(SRC, path.resolve(path.dirname(file), match[1]!)).split(path.sep).join('/'));
  }
  return found;
}

const isRoutes = (file: string) => file.endsWith('.routes.ts');
const isRepository = (file: string) => file.endsWith('.repository.ts');
const reachesDatabase = (target: string) => target.startsWith('db/') || isRepository(target);
const isHttp = (target: string) => target.startsWith('http/');

/** Every `importer -> imported` edge from the files `which` picks to the imports `bad` names. */
function violations(which: (file: string) => boolean, bad: (target: string) => boolean): string[] {
  return sourceFiles(SRC)
    .filter(which)
    .flatMap((file) => importsOf(file).filter(bad).map((target) => `${path.relative(SRC, file)} -> ${target}`));
}

describe('the import graph', () => {
  it('the regex reads static, type-only and dynamic imports', () => {
    const file = path.join(SRC, 'modules/x/x.routes.ts');
    const text = "import { a } from '../../db/database.ts';\nimport type { B } from './x.repository.ts';\nconst c = await import('../../http/csv.ts');\nimport './side-effect.ts';\n";
    assert.deepEqual(importsOf(file, text), ['db/database.ts', 'modules/x/x.repository.ts', 'http/csv.ts', 'modules/x/side-effect.ts']);
  });

  it('no route file imports the database or a repository: routes see services only', () => {
    assert.deepEqual(violations(isRoutes, reachesDatabase), []);
  });

  it('no repository imports HTTP code: repositories take typed filters and return records', () => {
    assert.deepEqual(violations(isRepository, isHttp), []);
  });

  it("TX Reports reads through its own queries and the shared accepted-submissions module, not the Tx Puller's repository", () => {
    assert.deepEqual(violations((file) => file.includes(`${path.sep}modules${path.sep}tx-reports${path.sep}`), (target) => target === 'modules/tx-puller/tx-puller.repository.ts'), []);
  });
});

describe('the job queue', () => {
  it('only jobs/job-queue.ts writes to the jobs table: every job is queued through it', () => {
    const writers = sourceFiles(SRC)
      .filter((file) => /INSERT\s+INTO\s+jobs\b/i.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'));
    assert.deepEqual(writers, ['jobs/job-queue.ts']);
  });
});

/** A file's text without its comments (block and line), so that SQL words in prose do not count. */
export function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** A statement of SQL in the code: a query, a write, or a CTE. */
const SQL_STATEMENT = /\b(SELECT\s[\s\S]{0,400}?\bFROM\b|INSERT\s+INTO\b|UPDATE\s+[a-z_]+\s+(?:[a-z_]+\s+)?SET\b|DELETE\s+FROM\b)/;

/** Where SQL may be written: each table's repository, the database layer, and the job queue (jobs are queued in the same statement as the change that needs them). */
const mayHoldSql = (file: string) => isRepository(file) || file.startsWith('db/') || file === 'jobs/job-queue.ts';

describe('SQL lives in repositories', () => {
  it('the detector finds queries, writes and CTEs, and skips comments', () => {
    assert.ok(SQL_STATEMENT.test(withoutComments("await db.query(`SELECT id FROM failed_txs WHERE id = $1`, [id]);")));
    assert.ok(SQL_STATEMENT.test(withoutComments("db.query(`UPDATE failed_txs f SET status = 'Resolved'`)")));
    assert.ok(SQL_STATEMENT.test(withoutComments("db.query('DELETE FROM tx_submissions WHERE txid = $1')")));
    assert.ok(!SQL_STATEMENT.test(withoutComments('/** Moves rows: INSERT INTO jobs happens in job-queue.ts. */\nconst a = 1; // SELECT x FROM y')));
  });

  it('no file outside a repository, db/ and the job queue holds SQL: each table is read and written through its repository', () => {
    const offenders = sourceFiles(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .filter((file) => !mayHoldSql(file))
      .filter((file) => SQL_STATEMENT.test(withoutComments(readFileSync(path.join(SRC, file), 'utf8'))));
    assert.deepEqual(offenders, []);
  });
});

/**
 * The module that owns each table: only its repositories write to it (other
 * repositories may read it). A statement that must change another module's
 * table in the same transaction takes that module's SQL fragment
 * (job-queue.ts queueJobsFrom, failed-txs.repository.ts
 * resolveOpenFailuresSql), so the SQL still sits with its owner.
 */
const TABLE_OWNERS: Record<string, string> = {
  tx_submissions: 'modules/submission/',
  package_submissions: 'modules/submission/',
  package_tx_outcomes: 'modules/submission/',
  tracker_cursor: 'modules/submission/',
  offered_parents: 'modules/submission/',
  cpfp_links: 'modules/submission/',
  failed_txs: 'modules/failed-txs/',
  jobs: 'jobs/job-queue.ts',
  audit_logs: 'audit/',
  audit_chain_head: 'audit/',
  auth_signing_keys: 'auth/',
  receipt_signing_keys: 'modules/receipts/',
  staff_accounts: 'auth/',
  login_throttle: 'auth/',
  login_failure_windows: 'auth/',
  settings: 'modules/settings/',
  setting_logs: 'modules/change-logs/',
  discount_logs: 'modules/change-logs/',
  client_logs: 'modules/change-logs/',
  discount_codes: 'modules/discounts/',
  clients: 'modules/clients/',
  client_api_keys: 'modules/clients/',
  client_webhooks: 'modules/notifications/',
  webhook_subscriptions: 'modules/notifications/',
  webhook_deliveries: 'modules/notifications/',
  email_subscriptions: 'modules/notifications/',
  email_subscription_starts: 'modules/notifications/',
};

/** Every table a file's code writes (INSERT INTO, UPDATE … SET, DELETE FROM), comments aside. */
export function tablesWritten(text: string): string[] {
  const code = withoutComments(text);
  const found = new Set<string>();
  for (const match of code.matchAll(/\b(?:INSERT\s+INTO|DELETE\s+FROM)\s+([a-z_]+)|\bUPDATE\s+([a-z_]+)\s+(?:[a-z_]+\s+)?SET\b/g)) found.add((match[1] ?? match[2])!);
  return [...found].sort();
}

describe('one owner per table', () => {
  it('reads the tables a statement writes', () => {
    assert.deepEqual(tablesWritten("q(`WITH a AS (UPDATE failed_txs f SET x = 1) INSERT INTO jobs (k) SELECT 1`); q('DELETE FROM tx_submissions')"), ['failed_txs', 'jobs', 'tx_submissions']);
  });

  it("each table is written only by its owner's code", () => {
    const strays = sourceFiles(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .flatMap((file) => tablesWritten(readFileSync(path.join(SRC, file), 'utf8')).map((table) => ({ file, table })))
      .filter(({ file, table }) => !file.startsWith('db/') && !file.startsWith(TABLE_OWNERS[table] ?? `(no owner declared for ${table})`))
      .map(({ file, table }) => `${table} written in ${file} (owner: ${TABLE_OWNERS[table] ?? 'none declared'})`);
    assert.deepEqual(strays, []);
  });
});

/**
 * The mempool engine is a workspace package (mempool-engine/, docs/architecture.md#the-mempool-engine):
 * the server depends on it, never the reverse. Its code imports only its own
 * files and Node's modules; what it needs of the portal comes in through its
 * options as structural interfaces. Its tests may also use the few test
 * helpers listed here. The server reaches it by its package name and the
 * subpaths its package.json exports, never by a path into its files.
 */
const REPO = path.resolve(SRC, '../..');
const ENGINE = path.join(REPO, 'mempool-engine');
/** Test tooling the engine's tests take from the server (a seeded generator for fixtures). */
const ENGINE_TEST_HELPERS = ['server/src/lib/seeded-random.ts'];
/** Packages the engine's tests use; its source uses none. */
const ENGINE_TEST_PACKAGES = ['fast-check'];

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

/** Every import specifier of a file (static, dynamic, type-only and re-exports), as written. */
export function specifiersOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
}

/** What is wrong with one import of an engine file: undefined when it stays inside the engine (or is allowed to a test). */
export function engineImportProblem(file: string, specifier: string): string | undefined {
  const isTest = file.endsWith('.test.ts');
  if (specifier.startsWith('node:')) return undefined;
  if (!specifier.startsWith('.')) return isTest && ENGINE_TEST_PACKAGES.includes(specifier) ? undefined : `package ${specifier}`;
  const target = path.relative(REPO, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/');
  if (target.startsWith('mempool-engine/')) return undefined;
  return isTest && ENGINE_TEST_HELPERS.includes(target) ? undefined : target;
}

describe('the mempool engine package', () => {
  const engineFiles = filesUnder(ENGINE, (name) => name.endsWith('.ts'));

  it('the check reads the engine and refuses a path out of it', () => {
    assert.ok(engineFiles.length > 50, `read ${engineFiles.length} engine files`);
    const file = path.join(ENGINE, 'src/feed/x.ts');
    assert.equal(engineImportProblem(file, '../../../server/src/lib/logger.ts'), 'server/src/lib/logger.ts');
    assert.equal(engineImportProblem(file, '@slipstream/server'), 'package @slipstream/server');
    assert.equal(engineImportProblem(file, '../../../server/src/lib/seeded-random.ts'), 'server/src/lib/seeded-random.ts', 'test helpers are for tests only');
    assert.equal(engineImportProblem(path.join(ENGINE, 'src/feed/x.test.ts'), '../../../server/src/lib/seeded-random.ts'), undefined);
    assert.equal(engineImportProblem(file, '../mirror/mempool-mirror.ts'), undefined);
    assert.deepEqual(specifiersOf("import type { A } from '../a.ts';\nexport { b } from './b.ts';\nconst c = await import('node:fs');\n"), ['../a.ts', './b.ts', 'node:fs']);
  });

  it('engine code imports nothing from server/ (or any other package): dependencies go one way, server to engine', () => {
    const problems = engineFiles.flatMap((file) =>
      specifiersOf(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const problem = engineImportProblem(file, specifier);
        return problem ? [`${path.relative(REPO, file)} -> ${problem}`] : [];
      }),
    );
    assert.deepEqual(problems, []);
  });

  it('the rest of the repository reaches the engine by its package name, never by a path into it', () => {
    const outside = ['server', 'deploy', 'web/src', 'web/test'].flatMap((dir) => filesUnder(path.join(REPO, dir), (name) => /\.(ts|tsx)$/.test(name)));
    const intoEngine = outside.flatMap((file) =>
      specifiersOf(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.') && path.relative(REPO, path.resolve(path.dirname(file), specifier)).startsWith('mempool-engine'))
        .map((specifier) => `${path.relative(REPO, file)} -> ${specifier}`),
    );
    assert.deepEqual(intoEngine, []);
  });
});
