import { glob, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

/**
 * The integration and browser tiers' runner: `node --test` with the files
 * started longest first.
 *
 * `node --test` starts files in path order, so with three at a time the
 * longest ones (a minute of node outage, fifty server kills: files that
 * mostly wait) could start last and run alone at the end. Started first,
 * their waiting overlaps everyone else's work. A file's duration is the one
 * the last run here measured (`.cache/test-file-durations.json`, written
 * after every run), or else the one this repository's machine measured
 * (`test/file-durations.json`, rewritten by `--record`); a file in neither
 * goes after those known to be slow.
 *
 *   node test/run-tests.ts [--concurrency=N] [--record] <glob>...
 */

const SERVER_DIR = path.resolve(import.meta.dirname, '..');
const MEASURED_HERE = path.join(SERVER_DIR, '..', '.cache', 'test-file-durations.json');
const COMMITTED = path.join(SERVER_DIR, 'test', 'file-durations.json');
/** Each file's time limit, as `--test-timeout` gave it. */
const FILE_TEST_TIMEOUT_MS = 300_000;
/** What a file of unknown duration is assumed to take (seconds): the middle of the known ones. */
const UNKNOWN_DURATION_S = 10;

type Durations = Record<string, number>;

async function readDurations(file: string): Promise<Durations | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Durations;
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
const concurrency = Number(args.find((a) => a.startsWith('--concurrency='))?.split('=')[1] ?? 3);
const record = args.includes('--record');
const patterns = args.filter((a) => !a.startsWith('--'));
if (patterns.length === 0 || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error('Usage: node test/run-tests.ts [--concurrency=N] [--record] <glob>...');
  process.exit(2);
}

const files = new Set<string>();
for (const pattern of patterns) for await (const file of glob(pattern, { cwd: SERVER_DIR })) files.add(file.split(path.sep).join('/'));
const known = { ...(await readDurations(COMMITTED)), ...(await readDurations(MEASURED_HERE)) };
const ordered = [...files].sort((a, b) => (known[b] ?? UNKNOWN_DURATION_S) - (known[a] ?? UNKNOWN_DURATION_S) || a.localeCompare(b));

const measured: Durations = {};
const stream = run({ files: ordered.map((f) => path.join(SERVER_DIR, f)), concurrency, timeout: FILE_TEST_TIMEOUT_MS, cwd: SERVER_DIR });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.on('test:complete', (data) => {
  // Each file runs in a process of its own, reported as a test named after the file: its whole time, loading included.
  if (data.nesting !== 0 || !data.file || path.resolve(SERVER_DIR, data.name) !== data.file) return;
  const file = path.relative(SERVER_DIR, data.file).split(path.sep).join('/');
  measured[file] = (data.details.duration_ms ?? 0) / 1000;
});
stream.compose(spec).pipe(process.stdout);
await new Promise<void>((resolve) => stream.once('end', resolve));

const rounded = Object.fromEntries(Object.entries(measured).map(([file, s]) => [file, Math.round(s * 10) / 10]));
await mkdir(path.dirname(MEASURED_HERE), { recursive: true });
await writeFile(MEASURED_HERE, `${JSON.stringify({ ...(await readDurations(MEASURED_HERE)), ...rounded }, null, 2)}\n`);
if (record) {
  const sorted = Object.fromEntries(Object.entries({ ...(await readDurations(COMMITTED)), ...rounded }).sort(([a], [b]) => a.localeCompare(b)));
  await writeFile(COMMITTED, `${JSON.stringify(sorted, null, 2)}\n`);
}
