import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

/**
 * docs/request-map.md walks a newcomer through three requests, each as the
 * files they open in order. A list that names a file the server no longer
 * has, or grows past what a reader can hold, is worse than none: this test
 * reads each path section's numbered list and holds it to the code.
 * Pure file reading: no node, no database.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = import.meta.dirname;
const MAP = path.join(ROOT, 'docs/request-map.md');

/** The requests followed file by file, and how many files a reader may need for each. */
const PATHS = ['POST /rest-api/submit-tx', 'GET /rest-api/txs/view', 'POST /api/transactions'];
const MAX_FILES = 8;

/** The text of the `## heading` section, up to the next `## `. */
export function section(markdown: string, heading: string): string | undefined {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The path a section lists: each top-level numbered item opens with the file, in backticks. */
export function listedFiles(text: string): string[] {
  return [...text.matchAll(/^\d+\. `([^`]+)`/gm)].map((match) => match[1]!);
}

/** Where a listed file is: relative to server/src/ as the map writes them, or from the repository root. */
function resolved(file: string): string {
  return file.startsWith('server/') || file.startsWith('web/') ? path.join(ROOT, file) : path.join(SRC, file);
}

describe('docs/request-map.md path sections', () => {
  test('the list reader takes a numbered item\'s first file, and nothing from nested or unnumbered lines', () => {
    const text = '1. `app.ts`: hooks (`http/x.ts`).\n   - `not/listed.ts`\n2. `modules/a/a.routes.ts` (`a`): one call.\n- `helper.ts`\n';
    assert.deepEqual(listedFiles(text), ['app.ts', 'modules/a/a.routes.ts']);
    assert.equal(section('## A\nx\n## B\ny\n', 'A'), 'x');
  });

  const markdown = readFileSync(MAP, 'utf8');
  for (const heading of PATHS) {
    test(`${heading}: at most ${MAX_FILES} files, each one the server has, the route's own among them`, () => {
      const text = section(markdown, heading);
      assert.ok(text !== undefined, `docs/request-map.md has no "## ${heading}" section`);
      const files = listedFiles(text);
      assert.ok(files.length > 0, `"## ${heading}" lists no file`);
      assert.ok(files.length <= MAX_FILES, `"## ${heading}" lists ${files.length} files: ${files.join(', ')}`);
      assert.deepEqual(files.filter((file, i) => files.indexOf(file) !== i), [], `"## ${heading}" lists a file twice`);
      assert.deepEqual(files.filter((file) => !existsSync(resolved(file))), [], `"## ${heading}" lists files that do not exist`);
      // The route's registration is among them: `app.post('/submit-tx'`, under its scope's prefix.
      const [method, url] = heading.split(' ') as [string, string];
      const route = `app.${method.toLowerCase()}('${url.replace(/^\/(rest-api|api)/, '')}'`;
      assert.ok(files.some((file) => readFileSync(resolved(file), 'utf8').includes(route)), `no file "## ${heading}" lists registers ${route}`);
    });
  }
});
