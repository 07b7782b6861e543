import net from 'node:net';
import type { RpcBatchItem, RpcCall, RpcClient } from '../../../src/bitcoin/rpc-client.ts';
import type { Queryable } from '../../../src/db/database.ts';

/**
 * What one request did besides answering: the node calls made for it and the
 * rows it changed. Requests are sent one at a time, so the calls made while
 * one is handled are its own, apart from the mempool engine's polling of the
 * same client, which is told apart by where the call comes from (mempool-engine/src/,
 * found in the caller's stack: AsyncLocalStorage does not survive Fastify's
 * inject, nor a body read from a socket).
 */

export interface CountingRpc {
  rpc: RpcClient;
  /** Every method called outside the mempool engine so far; a batch counts each of its calls. */
  readonly calls: readonly string[];
  /** Runs `work`; returns its result and the node calls made meanwhile. */
  probe<T>(work: () => Promise<T>): Promise<{ result: T; calls: string[] }>;
}

const FROM_MEMPOOL_ENGINE = /[\\/]mempool-engine[\\/]src[\\/]/;

export function countingRpc(inner: RpcClient): CountingRpc {
  const calls: string[] = [];
  const record = (methods: string[]) => {
    if (!FROM_MEMPOOL_ENGINE.test(new Error().stack ?? '')) calls.push(...methods);
  };
  const wrap = (client: RpcClient): RpcClient => ({
    call<T>(method: string, params?: unknown[]): Promise<T> {
      record([method]);
      return client.call<T>(method, params);
    },
    batch<T>(batch: RpcCall[]): Promise<RpcBatchItem<T>[]> {
      record(batch.map((c) => `batch:${c.method}`));
      return client.batch<T>(batch);
    },
    wallet: (name) => wrap(client.wallet(name)),
  });
  return {
    rpc: wrap(inner),
    calls,
    async probe(work) {
      const start = calls.length;
      const result = await work();
      return { result, calls: calls.slice(start) };
    },
  };
}

export interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

/**
 * Sends `request` as raw bytes (no client library in the way of malformed
 * requests) and reads the answer until the server closes the connection.
 */
export function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const match = /^HTTP\/1\.1 (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
      if (!match) return reject(new Error(`No HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status: Number(match[1]), headers: match[2]!.toLowerCase(), body: match[3]! });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', finish);
    // The server may answer and close before it has read a flood: a reset after the answer is the answer.
    socket.on('error', (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.write(request);
  });
}

/** The tables a request can change, apart from the audit trail it legitimately writes to (its rows, counts and hash chain's head). */
const AUDIT_TABLES = new Set(['audit_logs', 'audit_log_counts', 'audit_chain_head', 'audit_log_hashes']);

/**
 * Row count and a hash of every row of every other table: equal
 * fingerprints mean no insert, update or delete happened in between.
 */
export async function dbFingerprint(db: Queryable): Promise<Record<string, string>> {
  const { rows: tables } = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const names = tables.map((t) => t.name).filter((n) => !AUDIT_TABLES.has(n));
  if (names.length < 10) throw new Error(`Only ${names.length} tables found: ${names.join(', ')}`);
  const { rows } = await db.query<{ name: string; fingerprint: string }>(
    names
      .map((n) => `SELECT '${n}' AS name, count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS fingerprint FROM "${n}" t`)
      .join(' UNION ALL '),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.fingerprint]));
}

export async function auditRows(db: Queryable): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs')).rows[0]!.n;
}
