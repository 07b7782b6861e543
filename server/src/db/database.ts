// The database adapter: the only way the app touches data (docs/architecture.md, convention 3).
//
// Two engines run the same SQL with $1 placeholders: PGlite (Postgres compiled to
// WASM, in memory or in a directory) and a real Postgres server through a pg.Pool.
// Both are configured so that the same query returns the same JavaScript values:
//
//   int8 / bigint        -> number (throws RangeError beyond Number.MAX_SAFE_INTEGER)
//   int2, int4, float8   -> number
//   numeric              -> string (note: sum(bigint) and avg() return numeric; cast
//                           with ::bigint or ::double precision in the query)
//   timestamptz          -> Date (one parser, pg's, on both engines)
//   date                 -> 'YYYY-MM-DD' string (no time zone guessing)
//   timestamp            -> its text (use timestamptz for instants)
//   json / jsonb         -> parsed value
//   arrays               -> arrays of the element type above
//
// Every session runs with TimeZone=UTC and DateStyle=ISO, so date arithmetic and
// casts in SQL agree across engines and hosts.
//
// Parameters are restricted to scalars, Dates, Uint8Arrays and (nested) arrays of
// them: pg would send a plain object as JSON but a JS array as a Postgres array
// literal, while PGlite serializes by the parameter's type. Passing JSON as a string
// made with JSON.stringify sends identical text on both engines.

import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir } from 'node:fs/promises';
import { PGlite, type Results, type Transaction as PgliteTransaction } from '@electric-sql/pglite';
import pg from 'pg';
import { makePrivateDir } from '../lib/private-dir.ts';

export interface QueryResult<T> {
  rows: T[];
  /** Rows returned, inserted, updated or deleted, from the command tag; 0 for DDL. */
  rowCount: number;
}

export interface Queryable {
  /** One statement, extended protocol, `$1` placeholders. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /**
   * A script of one or more statements without parameters (simple query protocol).
   * Meant for migrations; the app's own queries go through `query`.
   */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  /**
   * Runs `fn` inside BEGIN/COMMIT; any throw rolls back and is rethrown. Inside `fn`
   * use only `tx`: calling the database itself from there throws, because it would
   * run outside the transaction (and on PGlite, which has one connection, wait for
   * the transaction forever).
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Follows NOTIFY on `channel` (LISTEN). `onListening` runs once the
   * subscription is in place, and again after every reconnection: anything
   * notified while the connection was down is lost, so a listener that keeps
   * state reloads it there. `onLost` runs when the connection drops (it is
   * retried until `stop()`). PGlite's single in-process connection never
   * drops. `stop` ends the subscription; close() ends every one.
   */
  listen(channel: string, handlers: NotifyHandlers): Promise<{ stop(): Promise<void> }>;
  close(): Promise<void>;
  readonly kind: 'pglite' | 'postgres';
}

export interface NotifyHandlers {
  onNotify(payload: string): void;
  onListening(): void;
  onLost(err: Error): void;
}

/** A LISTEN channel name: an identifier, quoted as such in the statement. */
function channelIdentifier(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new TypeError(`Not a channel name: ${channel}`);
  return `"${channel}"`;
}

/** The fields both engines put on an error raised by the server. */
export interface DatabaseErrorFields {
  /** SQLSTATE, e.g. '23505' unique_violation, '23503' foreign_key_violation. */
  code: string;
  constraint?: string;
  detail?: string;
  position?: string;
}

/** True for an error raised by Postgres itself (either engine), with its SQLSTATE. */
export function isDatabaseError(err: unknown): err is Error & DatabaseErrorFields {
  if (!(err instanceof Error)) return false;
  const { code } = err as Error & { code?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * True when the database could not be reached or stopped serving (as opposed
 * to refusing a statement): connection refused or lost, the server shutting
 * down or overloaded. Callers answer "temporarily unavailable" to those.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as Error & { code?: unknown };
  if (typeof code === 'string') {
    // Class 08: connection exception; 57P01-03: admin/crash shutdown, cannot connect now; 53300: too many connections.
    if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  }
  // node-postgres reports a dropped connection, a pool timeout or an unanswered statement (query_timeout) without a code.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|^Query read timeout$/i.test(err.message);
}

// ---------------------------------------------------------------------------
// Type parsers shared by both engines.

const OID = {
  INT8: 20,
  TEXT_ARRAY: 1009,
  INT8_ARRAY: 1016,
  DATE: 1082,
  DATE_ARRAY: 1182,
  TIMESTAMP: 1114,
  TIMESTAMP_ARRAY: 1115,
  TIMESTAMPTZ: 1184,
  TIMESTAMPTZ_ARRAY: 1185,
} as const;

type Parser = (text: string) => unknown;

/** int8 as a JS number; satoshi amounts (at most 2.1e15) are well inside 2^53. */
export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(
      `int8 value ${text} is outside JavaScript's safe integer range; cast it to text in the query`,
    );
  }
  return n;
}

const identity: Parser = (text) => text;

// pg's typings only name the built-in scalar type ids; look any oid up through this.
const builtinParser = pg.types.getTypeParser as (oid: number, format: 'text' | 'binary') => Parser;

// pg's own timestamptz parser (postgres-date) is used by both engines so that edge
// cases (infinity, BC dates, fractional offsets) come out identical.
const parseTimestamptz = builtinParser(OID.TIMESTAMPTZ, 'text');

/** Element parsers both engines use; PGlite derives its array parsers from these. */
const elementParsers: Record<number, Parser> = {
  [OID.INT8]: parseInt8,
  [OID.DATE]: identity,
  [OID.TIMESTAMP]: identity,
  [OID.TIMESTAMPTZ]: parseTimestamptz,
};

type Nested = string | null | Nested[];

function mapNested(value: Nested, parse: Parser): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((v) => mapNested(v, parse));
  return parse(value);
}

const parseTextArray = builtinParser(OID.TEXT_ARRAY, 'text') as (text: string) => Nested;
const arrayOf =
  (parse: Parser): Parser =>
  (text) =>
    mapNested(parseTextArray(text), parse);

const pgParsers: Record<number, Parser> = {
  ...elementParsers,
  [OID.INT8_ARRAY]: arrayOf(parseInt8),
  [OID.DATE_ARRAY]: arrayOf(identity),
  [OID.TIMESTAMP_ARRAY]: arrayOf(identity),
  [OID.TIMESTAMPTZ_ARRAY]: arrayOf(parseTimestamptz),
};

const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format: 'text' | 'binary' = 'text'): Parser =>
    (format === 'text' ? pgParsers[oid] : undefined) ??
    builtinParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

// ---------------------------------------------------------------------------
// Parameters.

function checkParam(value: unknown, where: string): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
      return value;
    default:
      break;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError(`Query parameter ${where} is an invalid Date`);
    return value;
  }
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map((v, i) => checkParam(v, `${where}[${i}]`));
  throw new TypeError(
    `Query parameter ${where} is ${value === null ? 'null' : typeof value === 'object' ? 'a plain object' : `a ${typeof value}`}; ` +
      'pass JSON as a string (JSON.stringify) so both engines send the same text',
  );
}

function checkParams(params: unknown[] | undefined): unknown[] {
  return (params ?? []).map((p, i) => checkParam(p, `$${i + 1}`));
}

// ---------------------------------------------------------------------------
// Transaction scope: catches use of the database itself inside its own transaction.

interface TxState {
  open: boolean;
}

class TxScope {
  readonly #als = new AsyncLocalStorage<TxState>();

  assertOutside(what: string): void {
    if (this.#als.getStore()?.open) {
      throw new Error(
        `Database.${what}() was called inside a transaction callback of the same database; ` +
          'use the tx argument (the call would run outside the transaction, and on PGlite wait for it forever)',
      );
    }
  }

  run<T>(state: TxState, fn: () => Promise<T>): Promise<T> {
    return this.#als.run(state, fn);
  }
}

function assertTxOpen(state: TxState): void {
  if (!state.open) throw new Error('Transaction is closed: tx used after its transaction() callback settled');
}

function abortedError(): Error {
  // Same SQLSTATE and message as PGlite's TransactionAbortedError.
  return Object.assign(new Error('Transaction was rolled back instead of committed'), { code: '25P02' });
}

// ---------------------------------------------------------------------------
// PGlite.

const SESSION_SETTINGS_SQL = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'";

function pgliteResult<T>(result: Results<T>): QueryResult<T> {
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

export interface PgliteDatabase extends Database {
  readonly kind: 'pglite';
  /**
   * A tarball of the data directory, loadable with `openPglite(dir, { loadDataDir })`.
   * It is taken without a checkpoint, so a sequence that has handed out values
   * resumes up to 32 values further on (Postgres WAL-logs sequences ahead).
   */
  dumpDataDir(): Promise<Blob>;
}

export interface PgliteOptions {
  /** Start from this dump (of dumpDataDir()) instead of an empty cluster; skips initdb. */
  loadDataDir?: Blob;
}

/**
 * PGlite (PostgreSQL 18 in WASM). `dataDir` undefined keeps the database in memory.
 * PGlite has a single connection: `query` outside a transaction waits for any
 * running transaction to finish (PGlite's transaction mutex), so statements never
 * interleave with a transaction; transactions run one at a time.
 */
export async function openPglite(dataDir: string | undefined, options: PgliteOptions = {}): Promise<PgliteDatabase> {
  // Private to the portal's user (lib/private-dir.ts). PGlite sets the modes of
  // the files it makes itself (0666 for a new cluster, whatever the umask), so
  // they are made private again once it is open, and when it closes.
  if (dataDir !== undefined) await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    parsers: elementParsers,
  });
  try {
    await db.exec(SESSION_SETTINGS_SQL);
    if (dataDir !== undefined) await makePrivateDir(dataDir);
  } catch (err) {
    await db.close();
    throw err;
  }
  const scope = new TxScope();

  const txQueryable = (tx: PgliteTransaction, state: TxState): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      assertTxOpen(state);
      return pgliteResult(await tx.query<T>(sql, checkParams(params)));
    },
    async exec(sql: string) {
      assertTxOpen(state);
      await tx.exec(sql);
    },
  });

  return {
    kind: 'pglite',
    async query<T>(sql: string, params?: unknown[]) {
      scope.assertOutside('query');
      return pgliteResult(await db.query<T>(sql, checkParams(params)));
    },
    async exec(sql: string) {
      scope.assertOutside('exec');
      await db.exec(sql);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      scope.assertOutside('transaction');
      // PGlite's transaction() runs BEGIN, then COMMIT, or ROLLBACK on a throw, and
      // throws TransactionAbortedError when COMMIT finds the transaction aborted.
      return db.transaction(async (tx) => {
        const state: TxState = { open: true };
        try {
          return await scope.run(state, () => fn(txQueryable(tx, state)));
        } finally {
          state.open = false;
        }
      });
    },
    async listen(channel: string, handlers: NotifyHandlers) {
      scope.assertOutside('listen');
      channelIdentifier(channel);
      const unlisten = await db.listen(channel, (payload) => handlers.onNotify(payload));
      handlers.onListening();
      return { stop: () => unlisten() };
    },
    async dumpDataDir() {
      scope.assertOutside('dumpDataDir');
      return db.dumpDataDir('none');
    },
    async close() {
      await db.close();
      if (dataDir !== undefined) await makePrivateDir(dataDir);
    },
  };
}

// ---------------------------------------------------------------------------
// Postgres server.

/** How long a query waits for a connection, new or from a busy pool, before failing (pg's own default waits forever). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long a statement outside a transaction waits for its answer before
 * failing (pg's own default waits forever). A server that stopped answering
 * without closing its connections (a frozen host, a network partition) would
 * otherwise hold every request that reaches an open pooled connection, for
 * good. Generous, as the RPC timeout is: staff lists over large tables still
 * answer.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

export interface PostgresOptions {
  /** Pool size; pg's default is 10. */
  max?: number;
  /**
   * How long to wait for a connection, new or from a busy pool, before failing
   * (default 10 s; pg's own default waits forever).
   */
  connectTimeoutMs?: number;
  /**
   * How long `query()` waits for the answer (default 30 s); the connection is
   * then discarded. Statements inside transaction() are not bounded: a
   * migration waits for another instance's lock as long as it takes.
   */
  queryTimeoutMs?: number;
  /**
   * Errors of idle pooled connections (e.g. the server restarted). The pool has
   * already discarded the connection; the default writes the error to stderr.
   */
  onIdleError?: (err: Error) => void;
}

/** The URL with its password hidden, for error messages. */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return '(unparseable database URL)';
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

// Forces the extended query protocol, as PGlite's query() uses: pg would otherwise
// use the simple protocol for parameterless queries, which accepts several
// statements in one string on pg but not on PGlite.
function extended(sql: string, params: unknown[] | undefined): pg.QueryConfig {
  const config: pg.QueryConfig & { queryMode: 'extended' } = {
    text: sql,
    values: checkParams(params),
    queryMode: 'extended',
  };
  return config;
}

function pgResult<T>(result: pg.QueryResult): QueryResult<T> {
  return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    ...(opts.max === undefined ? {} : { max: opts.max }),
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    types: pgTypes,
    // Startup options; a URL with its own ?options= takes precedence.
    options: '-c TimeZone=UTC -c DateStyle=ISO,MDY -c IntervalStyle=postgres',
    application_name: 'slipstream-portal',
  });
  const onIdleError =
    opts.onIdleError ?? ((err: Error) => console.error('postgres: idle connection error:', err));
  pool.on('error', onIdleError);
  // pool.end() resolves once it has asked every connection to end, not when they
  // have; close() waits for the sockets too, so nothing arrives after it resolves.
  const connections = new Set<Promise<void>>();
  pool.on('connect', (client) => {
    const ended: Promise<void> = new Promise((resolve) =>
      client.once('end', () => {
        connections.delete(ended);
        resolve();
      }),
    );
    connections.add(ended);
  });

  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end();
    await Promise.all(connections);
    throw new Error(`Cannot connect to Postgres at ${redactUrl(url)}: ${(err as Error).message}`, { cause: err });
  }

  const scope = new TxScope();
  const queryTimeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const listeners = new Set<{ stop(): Promise<void> }>();

  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      scope.assertOutside('query');
      const config: pg.QueryConfig & { query_timeout: number } = { ...extended(sql, params), query_timeout: queryTimeoutMs };
      return pgResult<T>(await pool.query(config));
    },
    async exec(sql: string) {
      scope.assertOutside('exec');
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      scope.assertOutside('transaction');
      const client = await pool.connect();
      // The pool listens for a connection's errors only while it is idle: a checked-out connection that the server
      // drops (a shutdown, a restart, a network cut) between two statements emits 'error' with nobody listening,
      // which would end the process. Held here, and the connection is destroyed on release rather than reused.
      let connectionError: Error | undefined;
      const onConnectionError = (err: Error) => {
        connectionError ??= err;
      };
      client.on('error', onConnectionError);
      const release = (err?: Error) => {
        client.removeListener('error', onConnectionError);
        client.release(err ?? connectionError);
      };
      try {
        await client.query('BEGIN');
      } catch (err) {
        release(err as Error);
        throw err;
      }
      const state: TxState = { open: true };
      const tx: Queryable = {
        async query<R>(sql: string, params?: unknown[]) {
          assertTxOpen(state);
          return pgResult<R>(await client.query(extended(sql, params)));
        },
        async exec(sql: string) {
          assertTxOpen(state);
          await client.query(sql);
        },
      };
      try {
        let result: T;
        try {
          result = await scope.run(state, () => fn(tx));
        } finally {
          state.open = false;
        }
        const commit = await client.query('COMMIT');
        // COMMIT of a transaction that an earlier statement aborted succeeds with
        // the command tag ROLLBACK; PGlite throws in that case, and so do we.
        if (commit.command === 'ROLLBACK') throw abortedError();
        release();
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
          release();
        } catch (rollbackErr) {
          // The connection is unusable: destroy it rather than return it to the
          // pool. The caller gets the original error, which explains the failure.
          release(rollbackErr as Error);
        }
        throw err;
      }
    },
    listen(channel: string, handlers: NotifyHandlers) {
      return listenOnPostgres(url, channel, handlers, listeners);
    },
    async close() {
      await Promise.all([...listeners].map((l) => l.stop()));
      await pool.end();
      await Promise.all(connections);
    },
  };
}

/** How long a dropped LISTEN connection waits before it reconnects: doubling from the first to the last. */
const RELISTEN_FIRST_MS = 500;
const RELISTEN_LAST_MS = 30_000;

/**
 * LISTEN on a connection of its own, outside the pool (a pooled connection
 * would be handed to queries and lose its subscription on release). When it
 * drops, `onLost` is told and it reconnects with backoff; `onListening` runs
 * again once it listens, for the caller to reload what it may have missed.
 * It never throws: a server it cannot reach at first is retried the same way.
 */
async function listenOnPostgres(url: string, channel: string, handlers: NotifyHandlers, listeners: Set<{ stop(): Promise<void> }>): Promise<{ stop(): Promise<void> }> {
  const statement = `LISTEN ${channelIdentifier(channel)}`;
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = RELISTEN_FIRST_MS;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: DEFAULT_CONNECT_TIMEOUT_MS, application_name: 'slipstream-portal (listen)' });
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotify(message.payload ?? '');
    });
    let lost = false;
    const onDown = (err: Error) => {
      if (lost || stopped) return;
      lost = true;
      handlers.onLost(err);
      void next.end().catch(() => {});
      scheduleRetry();
    };
    next.on('error', onDown);
    next.on('end', () => onDown(new Error('The LISTEN connection ended')));
    try {
      await next.connect();
      await next.query(statement);
    } catch (err) {
      lost = true;
      void next.end().catch(() => {});
      throw err;
    }
    client = next;
    delay = RELISTEN_FIRST_MS;
    handlers.onListening();
  }

  function scheduleRetry(): void {
    if (stopped) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: unknown) => {
        if (stopped) return;
        handlers.onLost(err as Error);
        delay = Math.min(delay * 2, RELISTEN_LAST_MS);
        scheduleRetry();
      });
    }, delay);
    retry.unref();
  }

  const subscription = {
    async stop() {
      if (stopped) return;
      stopped = true;
      listeners.delete(subscription);
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
  listeners.add(subscription);
  // A server that cannot be reached now is retried as a dropped connection is: the caller works without notifications meanwhile.
  await connect().catch((err: unknown) => {
    handlers.onLost(err as Error);
    scheduleRetry();
  });
  return subscription;
}
