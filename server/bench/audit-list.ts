import { cpus } from 'node:os';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import type { Database } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import type { AuditLogListResponse } from '../src/modules/audit-logs/audit-logs.schemas.ts';
import { CODE_ALPHABET, CODE_LENGTH } from '../src/modules/discounts/discount-codes.ts';
import { startTestApp, type TestApp } from '../test/helpers/test-app.ts';
import { absentNodeRpc, ADMIN_GROUP, CLIENT_ID, staffToken, TEST_AUTH_KEY } from '../test/helpers/staff-app.ts';
import { testDatabases, type TestEngine } from '../test/helpers/test-db.ts';
import { max, median, ms, percentile, ratio, round3, verdict } from './stats.ts';
import { seededRandom } from '../src/lib/seeded-random.ts';

/**
 * The staff audit list at a million rows (docs/architecture.md#performance-budgets: "Lists stay fast on large
 * tables ... the audit list must answer in under 100 ms at one million rows").
 *
 * For each database engine (PGlite always, the Postgres server too when
 * TEST_DATABASE_URL is set): a fresh migrated database is filled with
 * 1,000,000 audit rows spread over 90 days by one INSERT ... SELECT from
 * generate_series, then GET /rest-api/audits/list goes through the real
 * app's request pipeline (app.inject: routing, staff token check, schema
 * validation, repository, serialization, audit hook) for a set of query
 * shapes, sequentially, rounds interleaved. Each shape's p50 and p95 are
 * reported against the goal (the verdict is on p95) and as ratios to two
 * baselines measured in the same run: a bare `SELECT 1` through the same
 * database adapter, and the same list request for a client code that
 * matches nothing (the pipeline and two index probes: the floor any list
 * answer pays). Every shape's answer is then checked against plain SQL over
 * audit_logs (total_records and the page's ids); a mismatch is a failed
 * measurement, not a missed goal.
 *
 * Two phases per engine: right after the fill and ANALYZE, with the
 * visibility map unset (a table PGlite keeps that way: it runs Postgres as a
 * single process, with no autovacuum worker, so counting through an index
 * still reads the heap page of every row counted), and after VACUUM (the steady state autovacuum keeps an
 * insert-only table at on a Postgres server, where the audit table is
 * vacuumed as it grows). Shapes that miss the goal get EXPLAIN ANALYZE of
 * the repository's statements printed under them.
 *
 * It reports; it does not fail when a goal is missed.
 */

export const GOAL_MS = 100;
/** Plans of faster statements are left out of the report. */
const EXPLAIN_FROM_MS = 10;

export type AuditBenchPhase = 'analyzed' | 'vacuumed';

export interface AuditListBenchOptions {
  /** Audit rows to fill (default 1,000,000). */
  rows?: number;
  /** Measured requests per shape and phase, after `warmup` unmeasured ones (default 25 and 3). */
  runs?: number;
  warmup?: number;
  /** Engines by name (default: every engine testDatabases() offers). */
  engines?: Array<TestEngine['name']>;
  /** Default both: after ANALYZE only, and after VACUUM. */
  phases?: AuditBenchPhase[];
  /** EXPLAIN ANALYZE the statements of shapes that miss the goal (default true). */
  explain?: boolean;
  /** Print the report (default true). */
  print?: boolean;
}

export interface ShapeResult {
  name: string;
  totalRecords: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** p50 over the list floor's p50. */
  ratioToFloor: number;
  /** p95 over the goal. */
  ratioToGoal: number;
  goalMet: boolean;
}

export interface EngineResult {
  engine: TestEngine['name'];
  serverVersion: string;
  rows: number;
  fill: { insertMs: number; chainMs: number; indexesMs: number; analyzeMs: number; totalMs: number; tableMb: number; heapMb: number; summaryMb: number };
  /** GET /rest-api/audits/verify over the whole trail, once, after the measurements (not a goal: reported). */
  verify: { ms: number; verified: number; ok: boolean };
  data: { failures: number; distinctIps: number; distinctEndpoints: number; withClientCode: number; days: number };
  phases: Array<{
    phase: AuditBenchPhase;
    vacuumMs?: number;
    baseline: { select1P50Ms: number; select1P95Ms: number; floorP50Ms: number; floorP95Ms: number };
    shapes: ShapeResult[];
    goalMet: boolean;
  }>;
  checked: number;
}

export interface AuditListBenchResult {
  goalMs: number;
  engines: EngineResult[];
  totalSeconds: number;
}

const DAY_MS = 86_400_000;
const SPAN_DAYS = 90;
const CLIENTS = 50;
const CODES = 200;

const MB = 1024 * 1024;

/**
 * One statement makes all the rows, so the fill costs what the database
 * spends, not round trips. random() after setseed() in the same transaction
 * makes the same rows on every run and engine (the draws sit in a subquery
 * the planner cannot flatten, because they are volatile, so each row draws
 * each value once). The mix follows the portal's traffic: status checks
 * most, then submissions (with a client code on a quarter of them, mostly a
 * real discount code, a few codes nobody issued), the dashboard's own calls
 * from a few office addresses, and scanners probing paths that do not exist.
 * Clients are skewed: address n of 3,000 is drawn with density ~ n^(-2/3),
 * so a few addresses send most requests. Ids grow with request_at, as the
 * audit writer's inserts do. About 3.9% of the requests fail: node rejections
 * of submissions, scanners' 404s, and a few others.
 */
const FILL_SQL = `
INSERT INTO audit_logs (ip_address, endpoint, http_method, client_code, request_at, request_payload,
                        response_payload, response_time_ms, error_message, source_type, is_success)
SELECT ip, endpoint, method, code, at,
       CASE kind WHEN 'status' THEN '{"txid":"' || txid || '"}'
                 WHEN 'submit' THEN '{"tx_hex":"02000000000101' || left(repeat(txid, 8), 200 + (u_size * 300)::int) || '"'
                                    || coalesce(',"client_code":"' || code || '"', '') || '}'
                 WHEN 'staff-get' THEN '{"page":"1","limit":"10"}'
                 WHEN 'staff-post' THEN '{"name":"Client ' || (g % ${CLIENTS}) || '","description":"updated"}'
       END,
       CASE WHEN ok AND kind = 'submit' THEN '{"status":"success","txid":"' || txid || '"}'
            WHEN ok AND kind = 'status' THEN '{"status":"success","data":{"txid":"' || txid || '","state":"mempool","fee_rate":3.1}}'
            WHEN ok THEN '{"status":"success"}'
            ELSE '{"status":"error","message":"' || err || '"}'
       END,
       round((CASE kind WHEN 'submit' THEN 4 + 180 * u_size * u_size WHEN 'status' THEN 0.6 + 12 * u_size ELSE 1 + 30 * u_size END)::numeric, 3)::float8,
       CASE WHEN ok THEN NULL ELSE err END,
       source, ok
FROM (
  SELECT g, u_size, txid, kind, endpoint, method,
         $2::timestamptz - make_interval(secs => $3::float8 * ($1 - g + u_time) / $1) AS at,
         CASE WHEN kind IN ('staff-get', 'staff-post') THEN '10.20.0.' || (1 + floor(u_ip * 6))
              WHEN ipn % 17 = 16 THEN '2001:db8::' || to_hex(ipn) || ':' || to_hex(1 + ipn * 7 % 65535)
              ELSE CASE WHEN ipn % 5 = 3 THEN '::ffff:' ELSE '' END
                   || (1 + ipn * 7919 % 223) || '.' || (ipn * 104729 % 256) || '.' || (ipn % 256) || '.' || (1 + ipn * 31 % 254)
         END AS ip,
         CASE WHEN kind IN ('submit', 'status') AND u_code < 0.25
              THEN CASE WHEN u_code < 0.21 THEN codes[1 + floor(array_length(codes, 1) * power(u_code / 0.21, 2))::int]
                        ELSE 'PROMO' || (1 + floor((u_code - 0.21) * 10000)::int) END
         END AS code,
         CASE WHEN kind IN ('staff-get', 'staff-post') OR u_src < 0.62 THEN 'Internal' ELSE 'External' END AS source,
         NOT (kind = 'junk' OR (kind = 'submit' AND u_fail < 0.065) OR u_fail < 0.003) AS ok,
         CASE WHEN kind = 'junk' THEN 'Not Found'
              ELSE (ARRAY['min relay fee not met, 110 < 141', 'bad-txns-inputs-missingorspent', 'txn-mempool-conflict',
                          'TX decode failed', 'insufficient fee, rejecting replacement', 'HTTP 429', 'HTTP 400'])[1 + floor(u_size * 7)::int]
         END AS err
  FROM (
    SELECT g, random() AS u_time, random() AS u_size, random() AS u_end, random() AS u_ip, random() AS u_code,
           random() AS u_src, random() AS u_fail,
           floor(3000 * power(random(), 3))::int AS ipn,
           md5(g::text) || md5((-g)::text) AS txid
    FROM generate_series(1, $1) AS g
  ) AS r
  CROSS JOIN LATERAL (
    SELECT CASE WHEN u_end < 0.38 THEN '/rest-api/status-check'
                WHEN u_end < 0.58 THEN '/rest-api/submit-tx'
                WHEN u_end < 0.72 THEN '/rest-api/parse-tx'
                WHEN u_end < 0.80 THEN '/rest-api/submit-package'
                WHEN u_end < 0.88 THEN '/rest-api/getinfo'
                WHEN u_end < 0.93 THEN '/rest-api/site-info'
                WHEN u_end < 0.95 THEN '/rest-api/audits/list'
                WHEN u_end < 0.96 THEN '/rest-api/client-code/view'
                WHEN u_end < 0.97 THEN '/rest-api/client/view'
                WHEN u_end < 0.975 THEN '/rest-api/settings/view'
                WHEN u_end < 0.98 THEN '/rest-api/client-code/add'
                WHEN u_end < 0.985 THEN '/rest-api/client/update/' || (1 + g % ${CLIENTS})
                WHEN u_end < 0.99 THEN '/rest-api/settings/update'
                WHEN u_end < 0.995 THEN (ARRAY['/rest-api/.env', '/rest-api/wp-login.php', '/rest-api/v1/status', '/rest-api/admin', '/rest-api/graphql'])[1 + g % 5]
                ELSE '/rest-api/submit-tx/' || (g % 997)
           END AS endpoint,
           CASE WHEN u_end < 0.38 THEN 'status'
                WHEN u_end < 0.80 THEN 'submit'
                WHEN u_end < 0.93 THEN 'info'
                WHEN u_end < 0.975 THEN 'staff-get'
                WHEN u_end < 0.99 THEN 'staff-post'
                ELSE 'junk'
           END AS kind,
           CASE WHEN u_end >= 0.38 AND u_end < 0.80 OR u_end >= 0.975 AND u_end < 0.99 THEN 'POST'
                WHEN u_end >= 0.99 AND u_fail < 0.2 THEN (ARRAY['POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'])[1 + g % 5]
                ELSE 'GET'
           END AS method
  ) AS e
  CROSS JOIN (SELECT array_agg(code ORDER BY id) AS codes FROM discount_codes) AS c
) AS row`;

export async function seedClientsAndCodes(db: Database): Promise<void> {
  const random = seededRandom(6);
  const codes = Array.from({ length: CODES }, () => Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[Math.floor(random() * CODE_ALPHABET.length)]).join(''));
  await db.query(`INSERT INTO clients (name, organization_name) SELECT 'Client ' || lpad(i::text, 2, '0'), 'Pool customer ' || i FROM generate_series(1, ${CLIENTS}) AS i`);
  await db.query(
    `INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until)
     SELECT code, (SELECT min(id) FROM clients) + (n - 1) % ${CLIENTS}, 5 + (n * 7) % 45, now() - interval '200 days', now() + interval '200 days'
       FROM unnest($1::text[]) WITH ORDINALITY AS c (code, n)`,
    [codes],
  );
}

export interface Fill {
  insertMs: number;
  /** Chaining the rows into the audit trail's hash chain (migration 012), as the migration chains rows already there. */
  chainMs: number;
  indexesMs: number;
  analyzeMs: number;
}

/**
 * The filled rows' hashes, in audit_log_hashes beside them, exactly as
 * migration 012_audit_hash_chain.sql chains the rows it finds, and the
 * chain's head moved to the newest: the filled trail verifies
 * (GET /rest-api/audits/verify), and the app's audit writer chains its own
 * rows on after it. audit_logs itself is not rewritten.
 */
const CHAIN_SQL = `
INSERT INTO audit_log_hashes (id, prev_hash, row_hash)
SELECT id, coalesce(lag(row_hash) OVER (ORDER BY id), '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea), row_hash
  FROM (SELECT id, audit_chain(audit_log_encoding(l)) OVER (ORDER BY id) AS row_hash FROM audit_logs l) AS chained`;

/**
 * The rows go in with audit_logs' secondary indexes dropped and are indexed
 * after (a sorted build, about twice as fast as maintaining eight indexes
 * row by row). The indexes come back from their own definitions in
 * pg_indexes, so whatever the migrations declare is what gets measured.
 * Triggers stay: whatever they maintain is filled as the audit writer's
 * inserts would fill it.
 */
export async function fillAuditLogs(db: Database, rows: number, endAt: Date): Promise<Fill> {
  const { rows: indexes } = await db.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition
       FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = 'audit_logs'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  for (const index of indexes) await db.exec(`DROP INDEX ${index.name}`);
  const { rows: [head] } = await db.query<{ last_id: number | null }>('SELECT last_id FROM audit_chain_head');
  if (head?.last_id !== null) throw new Error('fillAuditLogs fills an empty audit trail: its hash chain starts at the first row');
  let started = performance.now();
  await db.transaction(async (tx) => {
    await tx.query('SELECT setseed(0.42)');
    await tx.query(FILL_SQL, [rows, endAt, SPAN_DAYS * 86_400]);
  });
  const insertMs = performance.now() - started;
  started = performance.now();
  await db.transaction(async (tx) => {
    await tx.query(CHAIN_SQL);
    await tx.query('UPDATE audit_chain_head SET (last_id, last_hash) = (SELECT id, row_hash FROM audit_log_hashes ORDER BY id DESC LIMIT 1) WHERE EXISTS (SELECT 1 FROM audit_log_hashes)');
  });
  const chainMs = performance.now() - started;
  started = performance.now();
  for (const index of indexes) await db.exec(index.definition);
  const indexesMs = performance.now() - started;
  started = performance.now();
  await db.exec('ANALYZE');
  const analyzeMs = performance.now() - started;
  // The fill dirtied the whole table: written out now rather than by the
  // checkpointer in the middle of the measurements.
  await db.exec('CHECKPOINT');
  return { insertMs, chainMs, indexesMs, analyzeMs };
}

interface Shape {
  name: string;
  query: Record<string, string>;
  /** The same filter in plain SQL over audit_logs, for the check. */
  where: string;
  params: unknown[];
}

interface Picked {
  topIp: string;
  typicalIp: string;
  topCode: string;
  day: string;
  /** Pages of 100: the middle one (5,000 at a million rows) and the last. */
  middlePage: number;
  lastPage: number;
  /** A deep page of 100 of the endpoint text 'submit' (2,000 at a million rows). */
  deepSubmitPage: number;
}

const dateOnly = (date: Date) => date.toISOString().slice(0, 10);
const utcDay = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const plusDays = (day: string, days: number) => dateOnly(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
const sqlTime = (day: string, time: string) => `${day}T${time}Z`;

function shapes(p: Picked): Shape[] {
  const ipWhere = (ip: string) => ({ where: 'ip_address IN ($1, $2)', params: [ip, `::ffff:${ip}`] });
  const week = plusDays(p.day, -6);
  const month = plusDays(p.day, -29);
  return [
    { name: 'page 1 (10), no filters', query: {}, where: 'true', params: [] },
    { name: 'page 1 of 100, no filters', query: { limit: '100' }, where: 'true', params: [] },
    { name: `page ${p.middlePage.toLocaleString('en-US')} of 100 (offset ${((p.middlePage - 1) * 100).toLocaleString('en-US')})`, query: { page: String(p.middlePage), limit: '100' }, where: 'true', params: [] },
    { name: `last page of 100 (page ${p.lastPage.toLocaleString('en-US')})`, query: { page: String(p.lastPage), limit: '100' }, where: 'true', params: [] },
    { name: 'client code (the busiest discount code)', query: { client_code: p.topCode }, where: 'client_code = $1', params: [p.topCode] },
    { name: 'IP, the busiest client (~6.5% of rows)', query: { ip_or_endpoint: p.topIp }, ...ipWhere(p.topIp) },
    { name: 'IP, a typical client', query: { ip_or_endpoint: p.typicalIp }, ...ipWhere(p.typicalIp) },
    { name: "endpoint text 'submit' (~43% of rows)", query: { ip_or_endpoint: 'submit' }, where: "endpoint ILIKE '%submit%'", params: [] },
    { name: "endpoint text 'Settings/Update' (~0.5%)", query: { ip_or_endpoint: 'Settings/Update' }, where: "endpoint ILIKE '%settings/update%'", params: [] },
    { name: `endpoint text 'submit', page ${p.deepSubmitPage.toLocaleString('en-US')} of 100`, query: { ip_or_endpoint: 'submit', page: String(p.deepSubmitPage), limit: '100' }, where: "endpoint ILIKE '%submit%'", params: [] },
    { name: 'failures only', query: { is_success: 'false' }, where: 'NOT is_success', params: [] },
    { name: 'one day', query: { from_date: `${p.day} 00:00:00`, to_date: `${p.day} 23:59:59` }, where: 'request_at >= $1 AND request_at < $2', params: [sqlTime(p.day, '00:00:00'), sqlTime(plusDays(p.day, 1), '00:00:00')] },
    { name: 'a range in hours (06:30 to 18:00 two days later)', query: { from_date: `${p.day} 06:30:00`, to_date: `${plusDays(p.day, 2)} 17:59:59` }, where: 'request_at >= $1 AND request_at < $2', params: [sqlTime(p.day, '06:30:00'), sqlTime(plusDays(p.day, 2), '18:00:00')] },
    {
      name: "combined: 'submit-tx', POST, External, failures, 7 days",
      query: { ip_or_endpoint: 'submit-tx', method: 'POST', source_type: 'External', is_success: 'false', from_date: `${week} 00:00:00`, to_date: `${p.day} 23:59:59`, limit: '50' },
      where: "endpoint ILIKE '%submit-tx%' AND http_method = 'POST' AND source_type = 'External' AND NOT is_success AND request_at >= $1 AND request_at < $2",
      params: [sqlTime(week, '00:00:00'), sqlTime(plusDays(p.day, 1), '00:00:00')],
    },
    {
      name: 'combined: client code, successes, GET, 30 days, page 3',
      query: { client_code: p.topCode, is_success: 'true', method: 'GET', from_date: `${month} 00:00:00`, to_date: `${p.day} 23: 59: 59`, page: '3', limit: '20' },
      where: "client_code = $1 AND is_success AND http_method = 'GET' AND request_at >= $2 AND request_at < $3",
      params: [p.topCode, sqlTime(month, '00:00:00'), sqlTime(plusDays(p.day, 1), '00:00:00')],
    },
  ];
}

/** The database as the app sees it, recording the statements a request sends while `capture` runs. */
function capturingDb(inner: Database): { db: Database; capture: (work: () => Promise<unknown>) => Promise<Array<{ sql: string; params: unknown[] }>> } {
  let sink: Array<{ sql: string; params: unknown[] }> | undefined;
  const db: Database = {
    kind: inner.kind,
    query: <T = Record<string, unknown>>(sql: string, params?: unknown[]) => {
      sink?.push({ sql, params: params ?? [] });
      return inner.query<T>(sql, params);
    },
    exec: (sql: string) => inner.exec(sql),
    transaction: <T>(fn: Parameters<Database['transaction']>[0]) => inner.transaction(fn) as Promise<T>,
    listen: (channel, handlers) => inner.listen(channel, handlers),
    close: () => inner.close(),
  };
  return {
    db,
    capture: async (work) => {
      sink = [];
      try {
        await work();
        return sink;
      } finally {
        sink = undefined;
      }
    },
  };
}

async function startStaffApp(db: Database): Promise<{ t: TestApp; token: string }> {
  const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
  const t = await startTestApp(undefined, db, {
    rpc: await absentNodeRpc(),
    // The app audits the bench's own requests. Its writer flushes between
    // rounds, outside the measured requests, so that every shape meets the
    // same table and the check compares like with like.
    auditFlushIntervalMs: 3_600_000,
    staff: { verifier: issuer, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
  });
  return { t, token: await staffToken(db, issuer, 'watcher', false) };
}

export async function runAuditListBench(options: AuditListBenchOptions = {}): Promise<AuditListBenchResult> {
  const rows = options.rows ?? 1_000_000;
  const runs = options.runs ?? 25;
  const warmup = options.warmup ?? 3;
  const phases = options.phases ?? ['analyzed', 'vacuumed'];
  const explain = options.explain ?? true;
  const print = options.print ?? true;
  const out = (line = '') => {
    if (print) process.stdout.write(`${line}\n`);
  };
  const progress = (message: string) => {
    if (print) process.stderr.write(`[bench audit-list] ${message}\n`);
  };
  const benchStarted = performance.now();
  const engines = testDatabases().filter((e) => !options.engines || options.engines.includes(e.name));
  const results: EngineResult[] = [];

  out(`== Audit list at ${rows.toLocaleString('en-US')} rows: GET /rest-api/audits/list through app.inject (Node ${process.version}, ${cpus().length} CPU); goal p95 < ${GOAL_MS} ms ==`);
  if (!engines.some((e) => e.name === 'postgres')) out('(PGlite only: set TEST_DATABASE_URL to measure a Postgres server too)');

  for (const engine of engines) {
    progress(`${engine.name}: opening a fresh database`);
    const raw = await engine.open();
    const { db, capture } = capturingDb(raw);
    let app: { t: TestApp; token: string } | undefined;
    try {
      const serverVersion = (await db.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
      await seedClientsAndCodes(db);
      progress(`${engine.name}: filling ${rows.toLocaleString('en-US')} rows`);
      const endAt = new Date();
      const fill = await fillAuditLogs(db, rows, endAt);
      const { rows: sizes } = await db.query<{ name: string; total: number; heap: number }>(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS total, pg_relation_size(c.oid) AS heap
           FROM pg_class c WHERE c.relkind = 'r' AND c.relname LIKE 'audit_log%' AND c.relnamespace = current_schema()::regnamespace`,
      );
      const size = (name: string) => sizes.find((s) => s.name === name);
      const summaryBytes = sizes.filter((s) => s.name !== 'audit_logs').reduce((n, s) => n + s.total, 0);
      const { rows: [data] } = await db.query<EngineResult['data']>(
        `SELECT count(*) FILTER (WHERE NOT is_success)::int AS failures, count(DISTINCT ip_address)::int AS "distinctIps",
                count(DISTINCT endpoint)::int AS "distinctEndpoints", count(client_code)::int AS "withClientCode",
                count(DISTINCT (request_at AT TIME ZONE 'UTC')::date)::int AS days
           FROM audit_logs`,
      );
      const { rows: ips } = await db.query<{ ip: string }>(
        "SELECT ip_address AS ip FROM audit_logs WHERE ip_address NOT LIKE '::ffff:%' GROUP BY ip_address ORDER BY count(*) DESC, ip_address LIMIT 1 OFFSET 0",
      );
      const { rows: typical } = await db.query<{ ip: string }>(
        "SELECT ip_address AS ip FROM audit_logs WHERE ip_address NOT LIKE '%:%' GROUP BY ip_address ORDER BY count(*) DESC, ip_address LIMIT 1 OFFSET 150",
      );
      const { rows: codes } = await db.query<{ code: string }>(
        'SELECT a.client_code AS code FROM audit_logs a JOIN discount_codes d ON d.code = a.client_code GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1',
      );
      const picked: Picked = {
        topIp: ips[0]!.ip,
        typicalIp: typical[0]!.ip,
        topCode: codes[0]!.code,
        day: dateOnly(new Date(utcDay(endAt).getTime() - 45 * DAY_MS)),
        middlePage: Math.max(1, Math.floor(rows / 200)),
        lastPage: Math.ceil(rows / 100),
        deepSubmitPage: Math.max(1, Math.floor(rows / 500)),
      };
      const fillTotal = fill.insertMs + fill.chainMs + fill.indexesMs + fill.analyzeMs;
      const heading = engine.name === 'postgres' ? `Postgres server ${serverVersion} (TEST_DATABASE_URL)` : `PGlite in memory (PostgreSQL ${serverVersion} in WASM)`;
      out();
      out(`-- ${heading}`);
      out(
        `fill: ${rows.toLocaleString('en-US')} rows in ${(fillTotal / 1000).toFixed(1)} s = INSERT ... SELECT ${(fill.insertMs / 1000).toFixed(1)} s + hash chain ${(fill.chainMs / 1000).toFixed(1)} s + indexes ${(fill.indexesMs / 1000).toFixed(1)} s + ANALYZE ${(fill.analyzeMs / 1000).toFixed(1)} s; ` +
          `audit_logs ${((size('audit_logs')?.total ?? 0) / MB).toFixed(0)} MB (heap ${((size('audit_logs')?.heap ?? 0) / MB).toFixed(0)} MB)${summaryBytes > 0 ? `, its summary tables ${(summaryBytes / MB).toFixed(1)} MB` : ''}`,
      );
      out(
        `data: ${data!.days} days, ${(data!.failures / rows * 100).toFixed(1)}% failures, ${data!.distinctIps.toLocaleString('en-US')} addresses, ${data!.distinctEndpoints.toLocaleString('en-US')} endpoints, ` +
          `${(data!.withClientCode / rows * 100).toFixed(1)}% with a client code; busiest address ${picked.topIp}, busiest discount code ${picked.topCode}, the day ${picked.day}`,
      );

      app = await startStaffApp(db);
      const { t, token } = app;
      const list = async (query: Record<string, string>) => {
        const res = await t.app.inject({ method: 'GET', url: `/rest-api/audits/list?${new URLSearchParams(query).toString()}`, headers: { authorization: `Bearer ${token}` } });
        if (res.statusCode !== 200) throw new Error(`GET /rest-api/audits/list ${JSON.stringify(query)} answered HTTP ${res.statusCode}: ${res.body.slice(0, 300)}`);
        return res.json<AuditLogListResponse>();
      };
      const floorQuery: Record<string, string> = { client_code: 'NO-SUCH-CODE' };
      const all = shapes(picked);
      const engineResult: EngineResult = {
        engine: engine.name,
        serverVersion,
        rows,
        fill: {
          insertMs: round3(fill.insertMs), chainMs: round3(fill.chainMs), indexesMs: round3(fill.indexesMs), analyzeMs: round3(fill.analyzeMs), totalMs: round3(fillTotal),
          tableMb: round3((size('audit_logs')?.total ?? 0) / MB), heapMb: round3((size('audit_logs')?.heap ?? 0) / MB), summaryMb: round3(summaryBytes / MB),
        },
        data: data!,
        verify: { ms: 0, verified: 0, ok: false },
        phases: [],
        checked: 0,
      };

      for (const phase of phases) {
        let vacuumMs: number | undefined;
        if (phase === 'vacuumed') {
          await t.audit.flush();
          const started = performance.now();
          await db.exec('VACUUM (ANALYZE)');
          vacuumMs = performance.now() - started;
        }
        progress(`${engine.name}, ${phase}: measuring ${all.length} shapes × ${runs}`);
        const select1: number[] = [];
        const floor: number[] = [];
        const samples = all.map(() => [] as number[]);
        const totals = all.map(() => 0);
        for (let round = -warmup; round < runs; round++) {
          const order = all.map((_, i) => (i + Math.abs(round)) % all.length);
          let started = performance.now();
          await db.query('SELECT 1');
          if (round >= 0) select1.push(performance.now() - started);
          started = performance.now();
          await list(floorQuery);
          if (round >= 0) floor.push(performance.now() - started);
          for (const i of order) {
            started = performance.now();
            const body = await list(all[i]!.query);
            const elapsed = performance.now() - started;
            totals[i] = body.total_records;
            if (round >= 0) samples[i]!.push(elapsed);
          }
          // The audit rows of this round's requests, written between rounds.
          await t.audit.flush();
        }
        const floorP50 = median(floor);
        const shapeResults: ShapeResult[] = all.map((shape, i) => {
          const p95 = percentile(samples[i]!, 95);
          return {
            name: shape.name,
            totalRecords: totals[i]!,
            p50Ms: round3(median(samples[i]!)),
            p95Ms: round3(p95),
            maxMs: round3(max(samples[i]!)),
            ratioToFloor: round3(median(samples[i]!) / floorP50),
            ratioToGoal: round3(p95 / GOAL_MS),
            goalMet: p95 < GOAL_MS,
          };
        });
        const phaseResult = {
          phase,
          ...(vacuumMs === undefined ? {} : { vacuumMs: round3(vacuumMs) }),
          baseline: { select1P50Ms: round3(median(select1)), select1P95Ms: round3(percentile(select1, 95)), floorP50Ms: round3(floorP50), floorP95Ms: round3(percentile(floor, 95)) },
          shapes: shapeResults,
          goalMet: shapeResults.every((s) => s.goalMet),
        };
        engineResult.phases.push(phaseResult);

        out();
        out(phase === 'analyzed'
          ? `after ANALYZE, visibility map unset (${engine.name === 'pglite' ? 'PGlite runs no autovacuum worker: its audit table stays this way unless vacuumed' : 'a freshly filled table, before autovacuum has been through it'}):`
          : `after VACUUM (ANALYZE) (${ms(vacuumMs!)}): the steady state autovacuum keeps on a Postgres server:`);
        out(`baseline: SELECT 1 through the adapter p50 ${ms(median(select1))}, p95 ${ms(percentile(select1, 95))}; list floor (a client code matching nothing) p50 ${ms(floorP50)}, p95 ${ms(percentile(floor, 95))}`);
        out(`${'shape'.padEnd(58)} ${'total'.padStart(9)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'×floor'.padStart(8)} ${'p95/goal'.padStart(8)}  verdict`);
        for (const s of shapeResults) {
          out(`${s.name.padEnd(58)} ${s.totalRecords.toLocaleString('en-US').padStart(9)} ${ms(s.p50Ms).padStart(9)} ${ms(s.p95Ms).padStart(9)} ${ratio(s.ratioToFloor).padStart(8)} ${ratio(s.ratioToGoal).padStart(8)}  ${verdict(s.goalMet)}`);
        }
        out(`${phase}: ${shapeResults.filter((s) => s.goalMet).length} of ${shapeResults.length} shapes under ${GOAL_MS} ms at p95 (goal: ${verdict(phaseResult.goalMet)})`);

        if (explain) {
          for (const [i, s] of shapeResults.entries()) {
            if (s.goalMet) continue;
            const statements = (await capture(() => list(all[i]!.query))).filter((st) => /audit_log/.test(st.sql));
            out(`   EXPLAIN ANALYZE of '${s.name}' (statements that took ${EXPLAIN_FROM_MS} ms or more):`);
            for (const statement of statements) {
              const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
              const plan = rows.map((row) => row['QUERY PLAN']);
              const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan.at(-1) ?? '')?.[1] ?? Number.NaN);
              if (executionMs < EXPLAIN_FROM_MS) continue;
              out(`     ${statement.sql.replace(/\s+/g, ' ').trim().slice(0, 200)}`);
              for (const line of plan) out(`       ${line}`);
            }
          }
        }
      }

      // ---- every shape's answer against plain SQL over the same table
      progress(`${engine.name}: checking the answers`);
      await t.audit.flush();
      const pastTheEnd: string[] = [];
      for (const shape of [...all, { name: 'floor', query: floorQuery, where: 'client_code = $1', params: ['NO-SUCH-CODE'] } satisfies Shape]) {
        const body = await list(shape.query);
        const limit = Number(shape.query.limit ?? 10);
        const offset = (Number(shape.query.page ?? 1) - 1) * limit;
        const { rows: [expected] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_logs WHERE ${shape.where}`, shape.params);
        const n = shape.params.length;
        const { rows: ids } = await db.query<{ id: number }>(
          `SELECT id FROM audit_logs WHERE ${shape.where} ORDER BY request_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...shape.params, limit, offset],
        );
        const got = body.result.map((r) => r.id);
        if (body.total_records !== expected!.n || body.total_pages !== Math.ceil(expected!.n / limit) || got.join() !== ids.map((r) => r.id).join()) {
          throw new Error(`'${shape.name}': the list answered total_records ${body.total_records}, total_pages ${body.total_pages}, ids ${got.slice(0, 5).join()}...; plain SQL says ${expected!.n} rows, ids ${ids.slice(0, 5).map((r) => r.id).join()}...`);
        }
        if (shape.name !== 'floor' && body.total_records === 0) throw new Error(`'${shape.name}' selected nothing: the shape measures nothing`);
        // Only with fewer rows than the default: the page lies past the end.
        if (shape.name !== 'floor' && got.length === 0) pastTheEnd.push(shape.name);
        engineResult.checked++;
      }
      const joined = (await list({ client_code: picked.topCode })).result[0]?.client_code_info;
      if (!joined) throw new Error('The busiest discount code came back without client_code_info');
      out(`checked: ${engineResult.checked} answers (total_records, total_pages and the page's ids) equal plain SQL over audit_logs; client_code_info joined (${joined.client_name}, ${joined.discount_percentage}%)${pastTheEnd.length > 0 ? `; empty pages at this size: ${pastTheEnd.join('; ')}` : ''}`);
      // The trail's hash chain, walked whole through the admin endpoint (the fill chained its rows, the writer the bench's own).
      progress(`${engine.name}: verifying the audit hash chain`);
      const admin = await staffToken(db, createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY }), 'bench-admin', true);
      await t.audit.flush();
      const verifyStarted = performance.now();
      const verified = await t.app.inject({ method: 'GET', url: '/rest-api/audits/verify', headers: { authorization: `Bearer ${admin}` } });
      const verifyMs = performance.now() - verifyStarted;
      const chain = verified.json<{ ok: boolean; verified: number; message?: string }>();
      if (verified.statusCode !== 200 || !chain.ok) throw new Error(`GET /rest-api/audits/verify answered HTTP ${verified.statusCode}: ${verified.body.slice(0, 300)}`);
      engineResult.verify = { ms: round3(verifyMs), verified: chain.verified, ok: chain.ok };
      out(`verify: GET /rest-api/audits/verify walked ${chain.verified.toLocaleString('en-US')} rows of the hash chain in ${(verifyMs / 1000).toFixed(1)} s: intact`);
      results.push(engineResult);
    } finally {
      await app?.t.close();
      await raw.close();
    }
  }

  const result: AuditListBenchResult = { goalMs: GOAL_MS, engines: results, totalSeconds: round3((performance.now() - benchStarted) / 1000) };
  out();
  out(`audit list bench: ${result.totalSeconds.toFixed(1)} s`);
  out(JSON.stringify({ bench: 'audit-list', ...result }));
  return result;
}
