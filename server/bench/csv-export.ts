import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import type { Database } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import { seededRandom } from '../src/lib/seeded-random.ts';
import { CODE_ALPHABET, CODE_LENGTH } from '../src/modules/discounts/discount-codes.ts';
import { submissionFilters } from '../src/modules/accepted-submissions/accepted-submissions.query.ts';
import { txSubmissionBatches } from '../src/modules/tx-puller/tx-puller.repository.ts';
import { TX_PULLER_CSV_HEADER } from '../src/modules/tx-puller/tx-puller.service.ts';
import { absentNodeRpc, ADMIN_GROUP, CLIENT_ID, staffToken, TEST_AUTH_KEY } from '../test/helpers/staff-app.ts';
import { startTestApp } from '../test/helpers/test-app.ts';
import { testDatabases, type TestEngine } from '../test/helpers/test-db.ts';
import { ms, ratio, round3, verdict } from './stats.ts';

/**
 * The Tx Puller's CSV download at a million rows: GET
 * /rest-api/tx-puller/list?download=true over real HTTP, reported as rows
 * per second and as the growth of the server process's resident memory
 * during the export, against the goal that memory stays flat: at most
 * 100 MB over what the server held before the export began.
 *
 * The server is a child process: the app on its database (PGlite runs inside
 * it, as in production), listening on loopback. This process is the client:
 * it reads the whole stream with node:http and keeps none of it but its
 * size, its line count and its first kilobyte. So the memory measured is the
 * server's alone. The peak is the kernel's own high-water mark (VmHWM, reset
 * through /proc/self/clear_refs just before the export), so no short peak
 * between samples is missed; where /proc is not there, samples every 5 ms
 * stand in.
 *
 * Order: the server's heap is collected in full after the fill; a first
 * download of the newest tenth of the rows is measured from there (what a
 * cold server pays); the full export follows at once, measured from where
 * that left the server, as a server that has been serving requests stands.
 * Most of what the export adds is V8's, not the export's: its young
 * generation grows with the allocation rate (on this Node by 64 MB steps, up
 * to a size V8 picks from the machine's memory; `--max-semi-space-size`
 * caps it), and garbage waits in the old generation for the next full
 * collection. The report breaks the growth down so, from V8's own heap
 * statistics. What the export itself keeps alive is one batch of rows and
 * the stream's 64 KB buffer, however many rows the file has.
 *
 * The baseline, measured in the same run on the same table and in the same
 * server process: the same keyset walk read straight through the database
 * adapter (the repository's txSubmissionBatches: the very statements the
 * export runs, DEFAULT_BATCH_SIZE rows at a time), with no HTTP and no CSV. It runs
 * first, so that on PGlite the database's own buffers have filled before the
 * export is measured. The export's rows/s over the baseline's says what
 * encoding and streaming cost on top of reading the rows. The longest the
 * server's event loop was held during the export is reported too: what any
 * other request would have waited.
 *
 * Engine: the Postgres server when TEST_DATABASE_URL is set, otherwise
 * PGlite in memory (`--engine=all` measures every engine). The fill is one
 * INSERT ... SELECT from generate_series after setseed(), so every run and
 * engine holds the same rows: 90 days of submissions, a tenth of a percent
 * still pending (never exported), 30% with a client code drawn from 200
 * (skewed), raw transactions of 110 to 510 bytes.
 *
 * It reports; it does not fail when the goal is missed. It throws when the
 * measurement itself went wrong (the file's row count, header or name is
 * not what the table says).
 */

export const GOAL_RSS_GROWTH_MB = 100;
const DEFAULT_ROWS = 1_000_000;
const SPAN_DAYS = 90;
const CODES = 200;
const MB = 1024 * 1024;

export interface CsvExportBenchOptions {
  /** tx_submissions rows to fill (default 1,000,000). */
  rows?: number;
  /** Engines by name; default the last testDatabases() offers (Postgres when TEST_DATABASE_URL is set, else PGlite). */
  engines?: Array<TestEngine['name']>;
  /** Print the report (default true). */
  print?: boolean;
}

export interface CsvExportEngineResult {
  engine: TestEngine['name'];
  serverVersion: string;
  rows: number;
  exportedRows: number;
  fill: { insertMs: number; indexesMs: number; analyzeMs: number; tableMb: number };
  /** rssPeakGrowthMb: what reading the rows costs the server (on PGlite, mostly the database's own buffers filling). */
  baseline: { ms: number; rowsPerSecond: number; rssPeakGrowthMb: number };
  export: {
    ms: number;
    rowsPerSecond: number;
    bytes: number;
    megabytesPerSecond: number;
    firstByteMs: number;
  } & ServerMemory & { goalMet: boolean };
  /** The newest tenth of the rows downloaded first, from a fully collected heap. */
  firstDownload: { rows: number } & ServerMemory;
  ratioToBaseline: number;
}

export interface CsvExportBenchResult {
  goalRssGrowthMb: number;
  engines: CsvExportEngineResult[];
  totalSeconds: number;
}

/** The server process's memory and event loop over a measured stretch. */
interface ServerMemory {
  rssBeforeMb: number;
  rssPeakGrowthMb: number;
  rssGrowthSource: 'VmHWM' | 'samples';
  heapPeakGrowthMb: number;
  /** V8's committed heap at its largest, over where it stood before: the young generation grows under a high allocation rate, and shrinks again when idle. */
  heapCommittedGrowthMb: number;
  youngGenerationCommittedMb: number;
  youngGenerationCommittedGrowthMb: number;
  /** The longest the server's event loop was held: what any other request could have waited. */
  maxEventLoopStallMs: number;
  p99EventLoopStallMs: number;
}

interface Ready {
  kind: 'ready';
  port: number;
  token: string;
  serverVersion: string;
  listed: number;
  tableBytes: number;
  busiestCode: string;
  fill: Fill;
}

/** What the client asks the server process, and what it answers. */
type Ask = { kind: 'baseline' } | { kind: 'mark'; collect: boolean } | { kind: 'peak' } | { kind: 'close' };
type Answer =
  | Ready
  | { kind: 'baseline'; ms: number; rows: number; rssPeakGrowthMb: number }
  | { kind: 'marked' }
  | ({ kind: 'peak' } & ServerMemory)
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

/**
 * Ids are unique 64-digit hex (an md5 and the row number); the raw
 * transaction repeats the txid to its size. setseed() before it makes the
 * draws the same on every run and engine.
 */
const FILL_SQL = `
INSERT INTO tx_submissions (txid, wtxid, tx_hex, client_code, size, vsize, weight, fee, fee_rate, functional_rate, market_rate,
                            threshold_rate, multiplier, status, block_hash, block_height, created_at)
SELECT txid, reverse(txid), left(repeat(txid, 17), size * 2), code, size, vsize, vsize * 4 - 3, fee, fee::float8 / vsize, fee::float8 / vsize,
       market, 1, (fee::float8 / vsize) / market, status,
       CASE WHEN status = 'confirmed' THEN lpad(to_hex(g / 3000), 64, 'b') END,
       CASE WHEN status = 'confirmed' THEN 800000 + g / 3000 END,
       $2::timestamptz - make_interval(secs => $3::float8 * ($1 - g + u_time) / $1)
FROM (
  SELECT g, txid, size, (size * 3 + 3) / 4 AS vsize, market, round(market * mult * ((size * 3 + 3) / 4))::bigint AS fee, u_time,
         CASE WHEN u_code < 0.3 THEN codes[1 + floor(array_length(codes, 1) * power(u_code / 0.3, 2))::int] END AS code,
         CASE WHEN u_status < 0.001 THEN 'pending' WHEN u_status < 0.7 THEN 'confirmed' WHEN u_status < 0.72 THEN 'replaced' ELSE 'accepted' END AS status
  FROM (
    SELECT g, md5(g::text) || lpad(to_hex(g), 32, '0') AS txid, 110 + floor(400 * power(random(), 3))::int AS size,
           1 + 40 * random() AS market, 1 + 4 * random() AS mult, random() AS u_code, random() AS u_status, random() AS u_time
    FROM generate_series(1, $1) AS g
  ) AS r
  CROSS JOIN (SELECT $4::text[] AS codes) AS c
) AS s`;

interface Fill {
  insertMs: number;
  indexesMs: number;
  analyzeMs: number;
}

/**
 * The rows go in with tx_submissions' indexes and unique constraint dropped,
 * and are indexed after (a sorted build instead of a million random inserts
 * into the txid index). Both come back from their own definitions in the
 * catalogue, so whatever the migrations declare is what gets measured.
 */
async function fillSubmissions(db: Database, rows: number, endAt: Date): Promise<Fill> {
  const random = seededRandom(11);
  const codes = Array.from({ length: CODES }, () => Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[Math.floor(random() * CODE_ALPHABET.length)]).join(''));
  const { rows: indexes } = await db.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = 'tx_submissions'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  const { rows: constraints } = await db.query<{ name: string; definition: string }>(
    "SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'tx_submissions'::regclass AND contype = 'u'",
  );
  for (const index of indexes) await db.exec(`DROP INDEX ${index.name}`);
  for (const constraint of constraints) await db.exec(`ALTER TABLE tx_submissions DROP CONSTRAINT ${constraint.name}`);
  let started = performance.now();
  await db.transaction(async (tx) => {
    await tx.query('SELECT setseed(0.42)');
    await tx.query(FILL_SQL, [rows, endAt, SPAN_DAYS * 86_400, codes]);
  });
  const insertMs = performance.now() - started;
  started = performance.now();
  for (const constraint of constraints) await db.exec(`ALTER TABLE tx_submissions ADD CONSTRAINT ${constraint.name} ${constraint.definition}`);
  for (const index of indexes) await db.exec(index.definition);
  const indexesMs = performance.now() - started;
  started = performance.now();
  // VACUUM too: the steady state autovacuum keeps a Postgres server's table in.
  await db.exec('VACUUM (ANALYZE) tx_submissions');
  const analyzeMs = performance.now() - started;
  await db.exec('CHECKPOINT');
  return { insertMs, indexesMs, analyzeMs };
}

/** A full collection, so a memory baseline holds live data only (node runs this file without --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Resets the process's resident high-water mark; false where the kernel offers no such thing. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function peakRssBytes(): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Watches this process's memory and event loop until `stop()`, from where it
 * stands now, after a full collection first when `collect` is set.
 */
function memoryWatch(collect: boolean): { stop: () => ServerMemory } {
  if (collect) collectGarbage();
  const rssBefore = process.memoryUsage.rss();
  const heapBefore = process.memoryUsage().heapUsed;
  const hwm = resetPeakRss();
  let sampledPeak = rssBefore;
  let heapPeak = heapBefore;
  const committed = () => {
    let total = 0;
    let young = 0;
    for (const space of getHeapSpaceStatistics()) {
      total += space.space_size;
      if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space') young += space.space_size;
    }
    return { total, young };
  };
  const committedBefore = committed();
  let committedPeak = committedBefore;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    const now = committed();
    committedPeak = { total: Math.max(committedPeak.total, now.total), young: Math.max(committedPeak.young, now.young) };
  }, 5);
  return {
    stop() {
      clearInterval(sampler);
      loop.disable();
      const kernelPeak = hwm ? peakRssBytes() : undefined;
      return {
        rssBeforeMb: round3(rssBefore / MB),
        rssPeakGrowthMb: round3((Math.max(sampledPeak, kernelPeak ?? 0) - rssBefore) / MB),
        rssGrowthSource: kernelPeak === undefined ? 'samples' : 'VmHWM',
        heapPeakGrowthMb: round3((heapPeak - heapBefore) / MB),
        heapCommittedGrowthMb: round3((committedPeak.total - committedBefore.total) / MB),
        youngGenerationCommittedMb: round3(committedBefore.young / MB),
        youngGenerationCommittedGrowthMb: round3((committedPeak.young - committedBefore.young) / MB),
        maxEventLoopStallMs: round3(loop.max / 1e6),
        p99EventLoopStallMs: round3(loop.percentile(99) / 1e6),
      };
    },
  };
}

/**
 * The server process (`--serve`): a fresh database of the engine named in
 * argv, filled, the app listening on loopback, then answering the client's
 * asks one at a time over IPC.
 */
async function serve(engineName: TestEngine['name'], rows: number): Promise<void> {
  const send = (answer: Answer) => new Promise<void>((resolve, reject) => process.send!(answer, undefined, {}, (error) => (error ? reject(error) : resolve())));
  const engine = testDatabases().find((e) => e.name === engineName);
  if (!engine) throw new Error(`No ${engineName} engine here (set TEST_DATABASE_URL for postgres)`);
  const db = await engine.open();
  const serverVersion = (await db.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
  const fill = await fillSubmissions(db, rows, new Date());
  const { rows: [facts] } = await db.query<{ total: number; listed: number; code: string }>(
    `SELECT pg_total_relation_size('tx_submissions') AS total, (SELECT count(*) FROM tx_submissions WHERE status <> 'pending') AS listed,
            (SELECT client_code FROM tx_submissions WHERE client_code IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1) AS code`,
  );
  const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
  const t = await startTestApp(undefined, db, {
    rpc: await absentNodeRpc(),
    // The audit rows of the bench's few requests are written when it closes, outside the measurements.
    auditFlushIntervalMs: 3_600_000,
    staff: { verifier: issuer, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  let watch: ReturnType<typeof memoryWatch> | undefined;
  const closed = new Promise<void>((resolve, reject) => {
    process.on('message', (ask: Ask) => {
      void (async () => {
        switch (ask.kind) {
          case 'baseline': {
            // After the fill: its garbage is collected first.
            const measuring = memoryWatch(true);
            const started = performance.now();
            let read = 0;
            for await (const batch of txSubmissionBatches(db, submissionFilters({}))) read += batch.length;
            const elapsed = performance.now() - started;
            await send({ kind: 'baseline', ms: elapsed, rows: read, rssPeakGrowthMb: measuring.stop().rssPeakGrowthMb });
            break;
          }
          case 'mark':
            watch = memoryWatch(ask.collect);
            await send({ kind: 'marked' });
            break;
          case 'peak':
            await send({ kind: 'peak', ...watch!.stop() });
            break;
          case 'close':
            await t.close();
            await db.close();
            await send({ kind: 'closed' });
            resolve();
            break;
        }
      })().catch((error: unknown) => {
        void send({ kind: 'failed', message: (error as Error).stack ?? String(error) });
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  const { port } = t.app.server.address() as AddressInfo;
  await send({
    kind: 'ready', port, token: await staffToken(db, issuer, 'watcher', false), serverVersion,
    listed: facts!.listed, tableBytes: facts!.total, busiestCode: facts!.code, fill,
  });
  await closed;
  process.disconnect();
}

interface Download {
  status: number;
  disposition: string | undefined;
  bytes: number;
  lines: number;
  head: string;
  firstByteMs: number;
  totalMs: number;
}

/** GETs `url` and reads the whole body, keeping only its size, its line count and its first kilobyte. */
function fetchAll(url: string, token: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const firstByteMs = performance.now() - started;
      let bytes = 0;
      let lines = 0;
      let head = '';
      res.on('data', (chunk: Buffer) => {
        if (head.length < 1024) head += chunk.subarray(0, 1024).toString('utf8');
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, disposition: res.headers['content-disposition'], bytes, lines, head, firstByteMs, totalMs: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The server process's answers, in order; a failure or an early exit rejects whatever is awaited. */
function serverChannel(child: ChildProcess): { next: <K extends Answer['kind']>(kind: K) => Promise<Extract<Answer, { kind: K }>>; ask: (ask: Ask) => void } {
  const answers: Answer[] = [];
  const waiting: Array<{ resolve: (answer: Answer) => void; reject: (error: Error) => void }> = [];
  let ended: Error | undefined;
  const deliver = () => {
    while (answers.length > 0 && waiting.length > 0) waiting.shift()!.resolve(answers.shift()!);
    if (ended) while (waiting.length > 0) waiting.shift()!.reject(ended);
  };
  child.on('message', (answer: Answer) => {
    if (answer.kind === 'failed') ended = new Error(`The server process failed: ${answer.message}`);
    else answers.push(answer);
    deliver();
  });
  child.on('exit', (code, signal) => {
    ended ??= new Error(`The server process exited (${signal ?? code})`);
    deliver();
  });
  return {
    next: async (kind) => {
      const answer = await new Promise<Answer>((resolve, reject) => {
        waiting.push({ resolve, reject });
        deliver();
      });
      if (answer.kind !== kind) throw new Error(`The server process answered ${answer.kind}, not ${kind}`);
      return answer as Extract<Answer, { kind: typeof kind }>;
    },
    ask: (ask) => {
      child.send(ask);
    },
  };
}

export async function runCsvExportBench(options: CsvExportBenchOptions = {}): Promise<CsvExportBenchResult> {
  const rows = options.rows ?? DEFAULT_ROWS;
  const print = options.print ?? true;
  const out = (line = '') => {
    if (print) process.stdout.write(`${line}\n`);
  };
  const progress = (message: string) => {
    if (print) process.stderr.write(`[bench csv-export] ${message}\n`);
  };
  const benchStarted = performance.now();
  const available = testDatabases();
  const engines = options.engines ? available.filter((e) => options.engines!.includes(e.name)) : [available.at(-1)!];
  const results: CsvExportEngineResult[] = [];

  out(`== Tx Puller CSV download at ${rows.toLocaleString('en-US')} rows: GET /rest-api/tx-puller/list?download=true over loopback HTTP (Node ${process.version}, ${cpus().length} CPU); goal: the server's resident memory grows by at most ${GOAL_RSS_GROWTH_MB} MB ==`);
  if (!engines.some((e) => e.name === 'postgres')) out('(PGlite: set TEST_DATABASE_URL to measure a Postgres server instead)');

  for (const engine of engines) {
    progress(`${engine.name}: starting the server process, filling ${rows.toLocaleString('en-US')} rows`);
    const child = fork(import.meta.filename, ['--serve', `--engine=${engine.name}`, `--rows=${rows}`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const server = serverChannel(child);
    try {
      const ready = await server.next('ready');
      const { fill, listed } = ready;
      const heading = engine.name === 'postgres' ? `Postgres server ${ready.serverVersion} (TEST_DATABASE_URL)` : `PGlite in memory (PostgreSQL ${ready.serverVersion} in WASM)`;
      out();
      out(`-- ${heading}`);
      out(
        `fill: ${rows.toLocaleString('en-US')} rows in ${((fill.insertMs + fill.indexesMs + fill.analyzeMs) / 1000).toFixed(1)} s (INSERT ... SELECT ${(fill.insertMs / 1000).toFixed(1)} s, ` +
          `indexes ${(fill.indexesMs / 1000).toFixed(1)} s, VACUUM ANALYZE ${(fill.analyzeMs / 1000).toFixed(1)} s); tx_submissions ${(ready.tableBytes / MB).toFixed(0)} MB; ` +
          `${listed.toLocaleString('en-US')} accepted, ${(rows - listed).toLocaleString('en-US')} pending (left out of the file)`,
      );

      const url = `http://127.0.0.1:${ready.port}/rest-api/tx-puller/list?download=true`;
      // Warm-up: compiles the route, the statements and the encoder before anything is measured.
      const warm = await fetchAll(`${url}&client_code=${ready.busiestCode}`, ready.token);
      if (warm.status !== 200) throw new Error(`The warm-up download answered HTTP ${warm.status}`);

      progress(`${engine.name}: baseline, the keyset walk through the adapter`);
      server.ask({ kind: 'baseline' });
      const baseline = await server.next('baseline');
      if (baseline.rows !== listed) throw new Error(`The keyset walk read ${baseline.rows} rows; the table holds ${listed} accepted`);

      // The newest tenth of the rows, from a server whose heap has just been
      // collected in full: what a first download costs a cold server (V8 grows
      // its young generation to its working size for it, and keeps it).
      progress(`${engine.name}: a first download of the newest tenth, from a collected heap`);
      const tenth = new Date(Date.now() - (SPAN_DAYS / 10) * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
      server.ask({ kind: 'mark', collect: true });
      await server.next('marked');
      const first = await fetchAll(`${url}&from_date=${encodeURIComponent(tenth)}`, ready.token);
      server.ask({ kind: 'peak' });
      const { kind: _first, ...firstMemory } = await server.next('peak');
      if (first.status !== 200 || first.lines < listed / 20) throw new Error(`The first download answered HTTP ${first.status} with ${first.lines} lines`);

      // The measured export follows at once, with no forced collection: the
      // server stands as one that has been serving requests does.
      progress(`${engine.name}: the export over HTTP`);
      server.ask({ kind: 'mark', collect: false });
      await server.next('marked');
      const started = performance.now();
      const download = await fetchAll(url, ready.token);
      const exportMs = performance.now() - started;
      server.ask({ kind: 'peak' });
      const memory = await server.next('peak');

      const expectedHeader = `${TX_PULLER_CSV_HEADER.join(',')}\r\n`;
      if (download.status !== 200) throw new Error(`The download answered HTTP ${download.status}`);
      if (!download.head.startsWith(expectedHeader)) throw new Error(`The file starts ${JSON.stringify(download.head.slice(0, 120))}`);
      if (!/^attachment; filename="tx-puller-tx_submissions-report-\d{4}(-\d{2}){5}\.csv"$/.test(download.disposition ?? '')) throw new Error(`Content-Disposition: ${download.disposition}`);
      if (download.lines !== listed + 1) throw new Error(`The file holds ${download.lines - 1} rows; the table ${listed} accepted`);

      const rowsPerSecond = listed / (exportMs / 1000);
      const baselineRowsPerSecond = listed / (baseline.ms / 1000);
      const { kind: _peak, ...serverMemory } = memory;
      const result: CsvExportEngineResult = {
        engine: engine.name,
        serverVersion: ready.serverVersion,
        rows,
        exportedRows: listed,
        fill: { insertMs: round3(fill.insertMs), indexesMs: round3(fill.indexesMs), analyzeMs: round3(fill.analyzeMs), tableMb: round3(ready.tableBytes / MB) },
        baseline: { ms: round3(baseline.ms), rowsPerSecond: Math.round(baselineRowsPerSecond), rssPeakGrowthMb: baseline.rssPeakGrowthMb },
        export: {
          ms: round3(exportMs),
          rowsPerSecond: Math.round(rowsPerSecond),
          bytes: download.bytes,
          megabytesPerSecond: round3(download.bytes / MB / (exportMs / 1000)),
          firstByteMs: round3(download.firstByteMs),
          ...serverMemory,
          goalMet: serverMemory.rssPeakGrowthMb <= GOAL_RSS_GROWTH_MB,
        },
        firstDownload: { rows: first.lines - 1, ...firstMemory },
        ratioToBaseline: round3(rowsPerSecond / baselineRowsPerSecond),
      };
      results.push(result);
      const e = result.export;
      const b = result.baseline;
      out(
        `baseline: the same keyset walk in the server, through its database adapter, no HTTP or CSV: ${listed.toLocaleString('en-US')} rows in ${ms(b.ms)} = ${b.rowsPerSecond.toLocaleString('en-US')} rows/s; ` +
          `server resident memory +${b.rssPeakGrowthMb.toFixed(1)} MB${engine.name === 'pglite' ? " (mostly PGlite's own buffers filling: it runs in the server)" : ''}`,
      );
      out(
        `export:   ${listed.toLocaleString('en-US')} rows, ${(download.bytes / MB).toFixed(0)} MB of CSV in ${ms(e.ms)} = ${e.rowsPerSecond.toLocaleString('en-US')} rows/s, ${e.megabytesPerSecond.toFixed(1)} MB/s ` +
          `(first byte after ${ms(e.firstByteMs)}); ${ratio(result.ratioToBaseline)} of the baseline's rows/s`,
      );
      out(`event loop: the server's longest stall during the export ${ms(e.maxEventLoopStallMs)} (p99 ${ms(e.p99EventLoopStallMs)}): the longest any other request waited`);
      const f = result.firstDownload;
      out(
        `first:    the newest ${f.rows.toLocaleString('en-US')} rows from a fully collected heap: server resident +${f.rssPeakGrowthMb.toFixed(1)} MB at the peak, ` +
          `of which V8's young generation growing to its working size +${f.youngGenerationCommittedGrowthMb.toFixed(1)} MB`,
      );
      out(
        `memory:   server resident ${e.rssBeforeMb.toFixed(0)} MB before (young generation ${e.youngGenerationCommittedMb.toFixed(0)} MB); peak growth during the export ${e.rssPeakGrowthMb.toFixed(1)} MB (${e.rssGrowthSource === 'VmHWM' ? "the kernel's high-water mark" : 'sampled every 5 ms'}), ` +
          `V8 heap: used +${e.heapPeakGrowthMb.toFixed(1)} MB at its peak (garbage between collections), committed +${e.heapCommittedGrowthMb.toFixed(1)} MB ` +
          `(of which the young generation +${e.youngGenerationCommittedGrowthMb.toFixed(1)} MB); goal ≤ ${GOAL_RSS_GROWTH_MB} MB: ${verdict(e.goalMet)}`,
      );
      server.ask({ kind: 'close' });
      await server.next('closed');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Closed already, or the measurement failed: either way the server process goes.
        setTimeout(() => child.kill(), 10_000).unref();
        await exited;
      }
    }
  }

  const result: CsvExportBenchResult = { goalRssGrowthMb: GOAL_RSS_GROWTH_MB, engines: results, totalSeconds: round3((performance.now() - benchStarted) / 1000) };
  out();
  out(`csv export bench: ${result.totalSeconds.toFixed(1)} s`);
  out(JSON.stringify({ bench: 'csv-export', ...result }));
  return result;
}

if (import.meta.main) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const engine = arg('engine');
  const rows = arg('rows');
  if (process.argv.includes('--serve')) {
    await serve(engine as TestEngine['name'], Number(rows));
  } else {
    await runCsvExportBench({
      ...(rows === undefined ? {} : { rows: Number(rows) }),
      ...(engine === undefined ? {} : { engines: engine === 'all' ? ['pglite', 'postgres'] : [engine as TestEngine['name']] }),
    });
  }
}
