import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layering DESIGN.md describes, checked over the import graph: routes
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
