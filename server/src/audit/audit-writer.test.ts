import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isDatabaseError, type Database, type Queryable, type QueryResult } from '../db/database.ts';
import type { Logger } from '../lib/logger.ts';
import { testDatabases } from '../../test/helpers/test-db.ts';
import { createAuditWriter, type AuditRow } from './audit-writer.ts';

/**
 * The audit writer against real migrated databases (PGlite, and Postgres when
 * TEST_DATABASE_URL is set). Database faults are the real engine's own errors:
 * the wrapper sends the writer's INSERT to a table that does not exist, so the
 * engine raises a genuine 42P01; a slow database is the real one behind a gate.
 */

interface LogEntry {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj, msg }),
  };
}

const BASE_TIME = Date.parse('2025-03-01T12:00:00.000Z');

function row(i: number, overrides: Partial<AuditRow> = {}): AuditRow {
  return {
    ipAddress: `10.0.0.${i % 250}`,
    endpoint: `/rest-api/test/${i}`,
    httpMethod: 'POST',
    clientCode: i % 2 ? `CLIENT${i}` : null,
    requestAt: new Date(BASE_TIME + i * 1000),
    requestPayload: `{"i":${i}}`,
    responsePayload: null,
    responseTimeMs: i + 0.25,
    errorMessage: null,
    sourceType: i % 2 ? 'External' : 'Internal',
    isSuccess: true,
    ...overrides,
  };
}

/** Rows in audit_logs, by endpoint, with how many times each appears. */
async function endpoints(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ endpoint: string; n: number }>('SELECT endpoint, count(*)::int AS n FROM audit_logs GROUP BY endpoint');
  return new Map(rows.map((r) => [r.endpoint, r.n]));
}

async function countRows(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs');
  return rows[0]!.n;
}

const isInsert = (sql: string) => sql.startsWith('INSERT INTO audit_logs ');

type AuditDb = Parameters<typeof createAuditWriter>[0];
type Run = (sql: string, params?: unknown[]) => Promise<QueryResult<Record<string, unknown>>>;

/** The real database, each statement of the writer (those inside its transactions too) passed through `onQuery`. */
function intercepted(db: Database, onQuery: (sql: string, params: unknown[] | undefined, run: Run) => Promise<QueryResult<Record<string, unknown>>>): AuditDb {
  const wrap = (inner: Queryable): Queryable => ({
    query: <T,>(sql: string, params?: unknown[]) => onQuery(sql, params, (s, p) => inner.query(s, p)) as Promise<QueryResult<T>>,
    exec: (sql) => inner.exec(sql),
  });
  return { ...wrap(db), transaction: (fn) => db.transaction((tx) => fn(wrap(tx))) };
}

/** Runs the writer's INSERT against a table that does not exist: the engine's own error (42P01). */
const failInsert = (sql: string, params: unknown[] | undefined, run: Run) => run(sql.replace('INSERT INTO audit_logs ', 'INSERT INTO audit_logs_unavailable '), params);

/** The real database, recording the writer's INSERTs (rows per statement) and how many transactions it began. */
function recording(db: Database): AuditDb & { insertRows: number[]; transactions: number } {
  const insertRows: number[] = [];
  const state = { transactions: 0 };
  const inner = intercepted(db, (sql, params, run) => {
    if (isInsert(sql)) insertRows.push((JSON.parse(String(params?.[0])) as unknown[]).length);
    return run(sql, params);
  });
  return {
    insertRows,
    get transactions() {
      return state.transactions;
    },
    query: inner.query,
    transaction: (fn) => {
      state.transactions++;
      return inner.transaction(fn);
    },
  };
}

/** The real database whose first `failures` INSERTs fail with the engine's own error (undefined table). */
function failingFirst(db: Database, failures: number): AuditDb & { attempts: number } {
  const state = { attempts: 0, left: failures };
  return {
    get attempts() {
      return state.attempts;
    },
    ...intercepted(db, (sql, params, run) => {
      if (isInsert(sql)) {
        state.attempts++;
        if (state.left > 0) {
          state.left--;
          return failInsert(sql, params, run);
        }
      }
      return run(sql, params);
    }),
  };
}

/**
 * The real database; the writer's transactions wait until `open()` is called
 * (a slow or stalled server). With `failFirst`, the first INSERT then fails
 * with the engine's own error.
 */
function gated(db: Database, failFirst = false): AuditDb & { open(): void; waiting: number } {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const state = { waiting: 0, fail: failFirst };
  const inner = intercepted(db, (sql, params, run) => {
    if (isInsert(sql) && state.fail) {
      state.fail = false;
      return failInsert(sql, params, run);
    }
    return run(sql, params);
  });
  return {
    open: () => open(),
    get waiting() {
      return state.waiting;
    },
    query: inner.query,
    transaction: async (fn) => {
      state.waiting++;
      await gate;
      state.waiting--;
      return inner.transaction(fn);
    },
  };
}

/** Waits until `condition` holds; fails the test if it does not within 10 s (a bound, not a measurement). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(condition(), what);
}

/** No timer flushes during a test unless the test says so. */
const NO_TIMER = 3_600_000;

for (const engine of testDatabases()) {
  describe(`audit writer (${engine.name})`, () => {
    test('rows are stored with every column as pushed', async () => {
      const db = await engine.open();
      try {
        const writer = createAuditWriter(db, recordingLogger(), { flushIntervalMs: NO_TIMER });
        const failed = row(1, { isSuccess: false, errorMessage: 'min relay fee not met', responsePayload: '{"status":"error"}', httpMethod: 'GET' });
        writer.push(failed);
        await writer.flush();
        const { rows } = await db.query<Record<string, unknown>>(
          `SELECT ip_address, endpoint, http_method, client_code, request_at, request_payload, response_payload,
                  response_time_ms, error_message, source_type, is_success FROM audit_logs`,
        );
        assert.deepEqual(rows, [
          {
            ip_address: failed.ipAddress,
            endpoint: failed.endpoint,
            http_method: 'GET',
            client_code: 'CLIENT1',
            request_at: failed.requestAt,
            request_payload: failed.requestPayload,
            response_payload: '{"status":"error"}',
            response_time_ms: 1.25,
            error_message: 'min relay fee not met',
            source_type: 'External',
            is_success: false,
          },
        ]);
        await writer.close();
      } finally {
        await db.close();
      }
    });

    test('a full batch is written without waiting for the timer, in batches of batchSize', async () => {
      const db = await engine.open();
      try {
        const recorded = recording(db);
        const writer = createAuditWriter(recorded, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 3 });
        for (let i = 0; i < 7; i++) writer.push(row(i));
        // Reaching batchSize started a write by itself; flush() waits for it and writes the rest.
        assert.ok(recorded.transactions >= 1, 'a full batch starts a write');
        await writer.flush();
        assert.equal(await countRows(db), 7);
        assert.deepEqual(recorded.insertRows, [3, 3, 1]);
        assert.deepEqual(writer.stats(), { queued: 0, written: 7, dropped: 0, failedWrites: 0 });
        await writer.close();
      } finally {
        await db.close();
      }
    });

    test('flush() writes everything queued; the timer flushes too', async () => {
      const db = await engine.open();
      try {
        const writer = createAuditWriter(db, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 100 });
        for (let i = 0; i < 5; i++) writer.push(row(i));
        assert.equal(await countRows(db), 0, 'below batchSize nothing is written before a flush');
        assert.equal(writer.stats().queued, 5);
        await writer.flush();
        assert.equal(await countRows(db), 5);
        assert.deepEqual(writer.stats(), { queued: 0, written: 5, dropped: 0, failedWrites: 0 });
        await writer.flush(); // nothing queued: no duplicate rows
        assert.equal(await countRows(db), 5);
        await writer.close();

        const recorded = recording(db);
        const timed = createAuditWriter(recorded, recordingLogger(), { flushIntervalMs: 10, batchSize: 100 });
        timed.push(row(100));
        // Only the interval can write this row (no flush(), no full batch).
        await eventually(() => timed.stats().written === 1, 'the timer wrote the queued row');
        assert.deepEqual(recorded.insertRows, [1]);
        assert.equal(await countRows(db), 6);
        await timed.close();
      } finally {
        await db.close();
      }
    });

    test('close() drains the queue', async () => {
      const db = await engine.open();
      try {
        const writer = createAuditWriter(db, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 4 });
        for (let i = 0; i < 10; i++) writer.push(row(i));
        await writer.close();
        assert.equal(await countRows(db), 10);
        assert.deepEqual(writer.stats(), { queued: 0, written: 10, dropped: 0, failedWrites: 0 });
      } finally {
        await db.close();
      }
    });

    test('a row pushed after close() is still written', async () => {
      const db = await engine.open();
      try {
        const log = recordingLogger();
        const writer = createAuditWriter(db, log, { flushIntervalMs: NO_TIMER, batchSize: 100 });
        await writer.close();
        writer.push(row(1));
        assert.ok(log.entries.some((e) => e.level === 'warn' && /after close/.test(e.msg ?? '')));
        // Nothing else will ever flush this writer: the push itself must start the write.
        await eventually(() => writer.stats().written === 1, 'the row pushed after close() was written');
        assert.equal(await countRows(db), 1);
      } finally {
        await db.close();
      }
    });

    test('a failing database keeps the rows queued and writes them later, without loss or duplication', async () => {
      const db = await engine.open();
      try {
        const log = recordingLogger();
        const flaky = failingFirst(db, 2);
        const writer = createAuditWriter(flaky, log, { flushIntervalMs: NO_TIMER, batchSize: 100 });
        for (let i = 0; i < 5; i++) writer.push(row(i));

        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 5, written: 0, dropped: 0, failedWrites: 1 });
        assert.equal(await countRows(db), 0);
        const warning = log.entries.find((e) => e.level === 'warn');
        assert.ok(warning, 'a failed write is logged');
        const err = (warning.obj as { err?: unknown }).err;
        assert.ok(isDatabaseError(err) && err.code === '42P01', `the engine's own error is logged, got ${String(err)}`);

        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 5, written: 0, dropped: 0, failedWrites: 2 });

        writer.push(row(5));
        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 0, written: 6, dropped: 0, failedWrites: 2 });
        assert.deepEqual(await endpoints(db), new Map(Array.from({ length: 6 }, (_, i) => [`/rest-api/test/${i}`, 1])));
        assert.equal(flaky.attempts, 3);
        await writer.close();
      } finally {
        await db.close();
      }
    });

    test('a failure after a written batch resumes where it stopped, without duplicating the written rows', async () => {
      const db = await engine.open();
      try {
        let inserts = 0;
        // The second INSERT fails with the engine's own error; the others go through.
        const flaky = intercepted(db, (sql, params, run) => (isInsert(sql) && ++inserts === 2 ? failInsert(sql, params, run) : run(sql, params)));
        const writer = createAuditWriter(flaky, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 2 });
        // Rows 0-1 are written, the batch of rows 2-3 fails: 2, 3 and 4 stay queued.
        const rows = Array.from({ length: 5 }, (_, i) => row(i));
        for (const r of rows) writer.push(r);
        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 3, written: 2, dropped: 0, failedWrites: 1 });
        assert.deepEqual(await endpoints(db), new Map(rows.slice(0, 2).map((r) => [r.endpoint, 1])));
        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 0, written: 5, dropped: 0, failedWrites: 1 });
        assert.deepEqual(await endpoints(db), new Map(rows.map((r) => [r.endpoint, 1])));
        await writer.close();
      } finally {
        await db.close();
      }
    });

    test('close() keeps retrying a failing database until the rows are written', async () => {
      const db = await engine.open();
      try {
        const flaky = failingFirst(db, 2);
        const writer = createAuditWriter(flaky, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 100 });
        for (let i = 0; i < 3; i++) writer.push(row(i));
        await writer.close(30_000);
        assert.deepEqual(writer.stats(), { queued: 0, written: 3, dropped: 0, failedWrites: 2 });
        assert.equal(await countRows(db), 3);
      } finally {
        await db.close();
      }
    });

    test('close() gives up after its timeout on a database that keeps failing, and says how many rows are lost', async () => {
      const db = await engine.open();
      try {
        const log = recordingLogger();
        const writer = createAuditWriter(failingFirst(db, Number.POSITIVE_INFINITY), log, { flushIntervalMs: NO_TIMER, batchSize: 100 });
        for (let i = 0; i < 3; i++) writer.push(row(i));
        await writer.close(1);
        assert.equal(writer.stats().queued, 3);
        assert.equal(writer.stats().written, 0);
        assert.ok(writer.stats().failedWrites >= 1);
        const lost = log.entries.find((e) => e.level === 'error');
        assert.deepEqual(lost?.obj, { lost: 3 });
        assert.equal(await countRows(db), 0);
      } finally {
        await db.close();
      }
    });

    test('beyond maxQueued the oldest rows are dropped and counted', async () => {
      const db = await engine.open();
      try {
        const log = recordingLogger();
        const writer = createAuditWriter(db, log, { flushIntervalMs: NO_TIMER, batchSize: 100, maxQueued: 5 });
        for (let i = 0; i < 8; i++) writer.push(row(i));
        assert.deepEqual(writer.stats(), { queued: 5, written: 0, dropped: 3, failedWrites: 0 });
        assert.equal(log.entries.filter((e) => e.level === 'error').length, 3);
        await writer.flush();
        assert.deepEqual(await endpoints(db), new Map([3, 4, 5, 6, 7].map((i) => [`/rest-api/test/${i}`, 1])));
        assert.deepEqual(writer.stats(), { queued: 0, written: 5, dropped: 3, failedWrites: 0 });
        await writer.close();
      } finally {
        await db.close();
      }
    });

    test('beyond maxQueuedChars of payload the oldest rows are dropped too', async () => {
      const db = await engine.open();
      try {
        const writer = createAuditWriter(db, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 100, maxQueuedChars: 3 * (10_000 + 256) });
        for (let i = 0; i < 6; i++) writer.push(row(i, { requestPayload: 'x'.repeat(10_000), responsePayload: null }));
        assert.deepEqual(writer.stats(), { queued: 3, written: 0, dropped: 3, failedWrites: 0 });
        await writer.flush();
        assert.deepEqual(await endpoints(db), new Map([3, 4, 5].map((i) => [`/rest-api/test/${i}`, 1])));
        await writer.close();
      } finally {
        await db.close();
      }
    });

    test('overflow while a batch is being written drops only queued rows and loses none of the newest', async () => {
      const db = await engine.open();
      try {
        const slow = gated(db);
        const writer = createAuditWriter(slow, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 3, maxQueued: 3 });
        for (let i = 0; i < 3; i++) writer.push(row(i)); // a full batch: its write starts and stalls
        assert.equal(slow.waiting, 1);
        for (let i = 3; i < 6; i++) writer.push(row(i)); // arrive while rows 0-2 are being written
        slow.open();
        await writer.flush();
        await writer.close();
        const stored = await endpoints(db);
        const stats = writer.stats();
        assert.equal(stats.queued, 0);
        assert.equal(stats.written, await countRows(db), 'written counts exactly the stored rows');
        assert.equal(stats.written + stats.dropped, 6, 'every row is either stored or counted as dropped');
        for (const [endpoint, n] of stored) assert.equal(n, 1, `${endpoint} stored once`);
        // The newest rows are never the ones dropped.
        for (let i = 3; i < 6; i++) assert.ok(stored.has(`/rest-api/test/${i}`), `row ${i} stored`);
      } finally {
        await db.close();
      }
    });

    test('a batch that fails while newer rows overflow the queue goes back in front and the oldest are dropped', async () => {
      const db = await engine.open();
      try {
        const slow = gated(db, true);
        const writer = createAuditWriter(slow, recordingLogger(), { flushIntervalMs: NO_TIMER, batchSize: 3, maxQueued: 4 });
        for (let i = 0; i < 3; i++) writer.push(row(i)); // rows 0-2: a write that stalls, then fails
        assert.equal(slow.waiting, 1);
        for (let i = 3; i < 7; i++) writer.push(row(i)); // rows 3-6 fill the queue meanwhile
        assert.deepEqual(writer.stats(), { queued: 7, written: 0, dropped: 0, failedWrites: 0 });
        slow.open();
        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 4, written: 0, dropped: 3, failedWrites: 1 });
        await writer.flush();
        assert.deepEqual(writer.stats(), { queued: 0, written: 4, dropped: 3, failedWrites: 1 });
        assert.deepEqual(await endpoints(db), new Map([3, 4, 5, 6].map((i) => [`/rest-api/test/${i}`, 1])));
        await writer.close();
      } finally {
        await db.close();
      }
    });
  });
}
