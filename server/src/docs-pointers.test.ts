import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

/**
 * Code comments say why by pointing into docs/ (`docs/behaviour.md#failed-transactions`,
 * "docs/architecture.md, convention 3"); the README and the docs link to each other.
 * A pointer that leads nowhere is worse than none, so this test reads every source
 * and documentation file of the repository and fails on:
 * - a pointer to a docs/ file that does not exist, or to a heading it does not have
 *   (anchors as GitHub makes them from headings);
 * - a convention number that docs/architecture.md's "Code conventions" list lacks;
 * - a relative Markdown link in README.md or docs/ to a missing file or heading;
 * - any pointer to a document the repository does not hold: the product specification
 *   and the design notes the project once kept beside it (SPEC and DESIGN, .md), or
 *   an issue by number ("issue 6", "(issue: ...)"). Say the reason in docs/ instead
 *   (docs/architecture.md, convention 10).
 * Pure file reading: no node, no database.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs');
const SELF = path.relative(ROOT, import.meta.filename);

/** Every file of these kinds anywhere in the repository (server/, web/, deploy/, docs/, the README, a new workspace) is read. */
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.js', '.mjs', '.cjs', '.sql', '.md', '.sh', '.css', '.html', '.yml', '.yaml']);
/** Built, downloaded or generated: nobody writes pointers there. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.data', '.cache', 'test-artifacts', '.git']);
const GENERATED_FILES = new Set(['web/src/api/schema.d.ts']);

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(path.join(dir, entry.name), out);
    } else if (entry.isFile() && SOURCE_EXTENSIONS.has(path.extname(entry.name))) {
      out.push(path.join(dir, entry.name));
    }
  }
}

/** Every file this test reads, relative to the repository root. */
export function sourceFiles(root = ROOT): string[] {
  const out: string[] = [];
  walk(root, out);
  return out.map((file) => path.relative(root, file)).filter((file) => file !== SELF && !GENERATED_FILES.has(file));
}

/**
 * The anchor GitHub gives a heading: lower case, punctuation dropped (letters,
 * digits, spaces, hyphens and underscores stay), spaces as hyphens; a repeated
 * one gets -1, -2, ... in order.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fenceMark) {
      if (fence === null) fence = fenceMark;
      else if (fence === fenceMark) fence = null;
      continue;
    }
    if (fence !== null) continue;
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(text) ?? 0;
    seen.set(text, count + 1);
    anchors.add(count === 0 ? text : `${text}-${count}`);
  }
  return anchors;
}

/** The numbers of the list under docs/architecture.md's "Code conventions" heading. */
export function conventionNumbers(markdown: string): Set<number> {
  const section = /^## Code conventions\s*$([\s\S]*?)(?=^## )/m.exec(`${markdown}\n## end`)?.[1] ?? '';
  return new Set([...section.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])));
}

/** A comment's text with its line breaks and comment markers (` * `, `// `, `-- `, `# `) folded to spaces. */
function folded(text: string): string {
  return text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/|--|#)?\s*/g, ' ');
}

export interface Problem {
  file: string;
  line: number;
  message: string;
}

/** The 1-based line of `index` in `text`. */
function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** The two documents the project once kept outside the repository (spelt in parts, so that a grep for them finds only pointers). */
const SPEC_FILE = ['SPEC', 'md'].join('.');
const DESIGN_FILE = ['DESIGN', 'md'].join('.');

/** Pointers to documents the repository does not hold. */
const FORBIDDEN: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /\bSPEC\b/g, why: `${SPEC_FILE} is not in the repository: point to a section of docs/behaviour.md` },
  { pattern: new RegExp(`\\b${DESIGN_FILE.replace('.', '\\.')}\\b`, 'g'), why: `${DESIGN_FILE} is not in the repository: point to docs/architecture.md` },
  { pattern: /\bissues?\s+#?\d+/gi, why: 'an issue number says nothing to a reader of the code: point to the section of docs/ that holds the reason' },
  { pattern: /\(issues?(?::|\)\s*:|\s+")/gi, why: 'an issue says nothing to a reader of the code: point to the section of docs/ that holds the reason' },
];

/** docs/<file>.md, with an optional #anchor or ", convention N". */
const DOCS_POINTER = /\bdocs\/([\w.-]+\.md)(?:#([\w-]+)|,?\s+(?:code\s+)?conventions?\s+(\d+))?/g;
/** A relative Markdown link: [text](target), target not a URL. */
const MARKDOWN_LINK = /\]\((?!https?:|mailto:)([^)\s]*)\)/g;

export interface DocsIndex {
  anchors(file: string): Set<string> | undefined;
  conventions: Set<number>;
}

export function docsIndex(root = ROOT): DocsIndex {
  const cache = new Map<string, Set<string> | undefined>();
  const anchors = (file: string) => {
    if (!cache.has(file)) {
      const full = path.join(root, file);
      cache.set(file, existsSync(full) && statSync(full).isFile() ? headingAnchors(readFileSync(full, 'utf8')) : undefined);
    }
    return cache.get(file);
  };
  const architecture = path.join(root, 'docs', 'architecture.md');
  return { anchors, conventions: existsSync(architecture) ? conventionNumbers(readFileSync(architecture, 'utf8')) : new Set() };
}

/** What is wrong with the pointers in one file's text; `file` is relative to the repository root. */
export function pointerProblems(file: string, text: string, docs: DocsIndex): Problem[] {
  const problems: Problem[] = [];
  const flat = folded(text);
  // Folding changes offsets; a problem is reported at the first line holding its start.
  const locate = (fragment: string) => {
    const at = text.indexOf(fragment.split(/\s/)[0]!);
    return at === -1 ? 1 : lineOf(text, at);
  };
  for (const { pattern, why } of FORBIDDEN) {
    for (const match of flat.matchAll(pattern)) problems.push({ file, line: locate(match[0]), message: `"${match[0]}": ${why}` });
  }
  for (const match of text.matchAll(DOCS_POINTER)) {
    const [whole, name, anchor] = match;
    const target = `docs/${name!}`;
    const anchors = docs.anchors(target);
    const line = lineOf(text, match.index);
    if (anchors === undefined) problems.push({ file, line, message: `${whole}: ${target} does not exist` });
    else if (anchor !== undefined && !anchors.has(anchor)) problems.push({ file, line, message: `${whole}: ${target} has no heading #${anchor}` });
  }
  // ", convention N" may run over a line break in a comment.
  for (const match of flat.matchAll(DOCS_POINTER)) {
    const [whole, name, , convention] = match;
    if (convention === undefined) continue;
    if (name !== 'architecture.md') problems.push({ file, line: locate(whole), message: `${whole}: conventions are numbered in docs/architecture.md` });
    else if (!docs.conventions.has(Number(convention))) problems.push({ file, line: locate(whole), message: `${whole}: docs/architecture.md has no convention ${convention}` });
  }
  if (file.endsWith('.md')) {
    for (const match of text.matchAll(MARKDOWN_LINK)) {
      const [, target] = match;
      const [pathPart, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = pathPart === '' ? file : path.normalize(path.join(path.dirname(file), pathPart));
      if (!resolved.endsWith('.md') && anchor === undefined) {
        if (!existsSync(path.join(ROOT, resolved))) problems.push({ file, line: lineOf(text, match.index), message: `link to ${target}: ${resolved} does not exist` });
        continue;
      }
      const anchors = docs.anchors(resolved);
      if (anchors === undefined) problems.push({ file, line: lineOf(text, match.index), message: `link to ${target}: ${resolved} does not exist` });
      else if (anchor !== undefined && !anchors.has(anchor)) problems.push({ file, line: lineOf(text, match.index), message: `link to ${target}: ${resolved} has no heading #${anchor}` });
    }
  }
  return problems;
}

describe('pointers into docs/', () => {
  const docs = docsIndex();
  const files = sourceFiles();

  test('the docs the code points to exist', () => {
    for (const name of ['behaviour.md', 'architecture.md', 'request-map.md', 'glossary.md']) {
      assert.ok(existsSync(path.join(DOCS, name)), `docs/${name}`);
    }
    assert.ok(docs.conventions.has(1) && docs.conventions.has(13), 'docs/architecture.md numbers its code conventions 1 to 13');
  });

  test('every pointer resolves, and none points outside the repository', () => {
    assert.ok(files.length > 500, `read ${files.length} files`);
    const problems = files.flatMap((file) => pointerProblems(file, readFileSync(path.join(ROOT, file), 'utf8'), docs));
    assert.deepEqual(
      problems.map((p) => `${p.file}:${p.line}: ${p.message}`),
      [],
    );
  });

  test('the code does point into docs/ (the scan reads what it should)', () => {
    const pointing = files.filter((file) => !file.startsWith('docs/') && /\bdocs\/[\w-]+\.md/.test(readFileSync(path.join(ROOT, file), 'utf8')));
    assert.ok(pointing.length > 150, `${pointing.length} files point into docs/`);
    // Each workspace's comments are held to the same pointers (the mempool engine is a package of its own).
    for (const workspace of ['server/', 'web/', 'deploy/', 'mempool-engine/']) {
      assert.ok(pointing.some((file) => file.startsWith(workspace)), `a file of ${workspace} points into docs/`);
    }
  });
});

describe('the pointer check itself', () => {
  const docs: DocsIndex = {
    anchors: (file) => (file === 'docs/behaviour.md' ? new Set(['failed-transactions', 'private-until-mined']) : file === 'docs/architecture.md' ? new Set(['layout']) : undefined),
    conventions: new Set([1, 2, 3, 13]),
  };
  const problemsOf = (text: string, file = 'server/src/x.ts') => pointerProblems(file, text, docs).map((p) => p.message);

  test('anchors as GitHub makes them', () => {
    const anchors = headingAnchors('# Product behaviour\n## Private until mined\n```\n# not a heading\n```\n### Bump advice (`bump` in `GET /rest-api/status-check`)\n## Logs\n## Logs\n## Tables, filters and dates\n');
    assert.deepEqual([...anchors], ['product-behaviour', 'private-until-mined', 'bump-advice-bump-in-get-rest-apistatus-check', 'logs', 'logs-1', 'tables-filters-and-dates']);
  });

  test('a pointer that resolves passes; one to a missing heading, file or convention fails', () => {
    assert.deepEqual(problemsOf('// See docs/behaviour.md#failed-transactions and docs/architecture.md, convention 3.'), []);
    assert.deepEqual(problemsOf(' * (docs/architecture.md, code\n * conventions 13)'), []);
    assert.equal(problemsOf('// docs/behaviour.md#failed-txs').length, 1);
    assert.equal(problemsOf('// docs/nowhere.md').length, 1);
    assert.equal(problemsOf('// docs/architecture.md, convention\n// 14').length, 1);
  });

  test('pointers to documents outside the repository fail, whatever their spelling', () => {
    for (const text of [`// ${SPEC_FILE} section 7`, "/* the SPEC's messages */", `-- (${DESIGN_FILE}, convention 3)`, ' * (issue 6; bench)', ' * (issue\n * 18)', "// Issue 4's bar", ' * (issue: "faults")', ' * Faults (issue): "x"']) {
      assert.ok(problemsOf(text).length > 0, text);
    }
    for (const text of ['for (const issue of result.issues) {}', 'v.getDotPath(issue) ?? ""', 'issue: () => unused()', 'an API key staff issued to the client']) {
      assert.deepEqual(problemsOf(text), [], text);
    }
  });

  test('relative Markdown links are checked from the file they are in', () => {
    assert.deepEqual(problemsOf('[x](behaviour.md#private-until-mined), [y](architecture.md#layout)', 'docs/glossary.md'), []);
    assert.equal(problemsOf('[x](behaviour.md#nowhere)', 'docs/glossary.md').length, 1);
  });
});
