import type { RpcBatchItem, RpcCall, RpcClient } from '../src/bitcoin/rpc-client.ts';
import type { Database, QueryResult } from '../src/db/database.ts';

/**
 * Timing wrappers around the app's adapters (docs/architecture.md, convention 3 makes
 * them injectable): they tell where a request's time goes without touching
 * the service code. Requests are sent one at a time, so totals divided by
 * the request count are per-request costs; calls a request makes in
 * parallel (Promise.all) overlap, so their sum can exceed the request.
 */

export class Recorder {
  readonly entries = new Map<string, { calls: number; totalMs: number }>();

  add(label: string, elapsedMs: number): void {
    const entry = this.entries.get(label) ?? { calls: 0, totalMs: 0 };
    entry.calls++;
    entry.totalMs += elapsedMs;
    this.entries.set(label, entry);
  }

  async time<T>(label: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(label, performance.now() - started);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries by total time, largest first. */
  sorted(): Array<{ label: string; calls: number; totalMs: number }> {
    return [...this.entries].map(([label, e]) => ({ label, ...e })).sort((a, b) => b.totalMs - a.totalMs);
  }
}

export function timedRpc(inner: RpcClient, recorder: Recorder): RpcClient {
  return {
    call: <T>(method: string, params?: unknown[]): Promise<T> => recorder.time(`rpc ${method}`, () => inner.call<T>(method, params)),
    batch: <T>(calls: RpcCall[]): Promise<RpcBatchItem<T>[]> =>
      recorder.time(`rpc batch[${[...new Set(calls.map((c) => c.method))].join(',')}]`, () => inner.batch<T>(calls)),
    wallet: (name: string) => timedRpc(inner.wallet(name), recorder),
  };
}

/** "INSERT INTO audit_logs (...) VALUES ..." -> "INSERT INTO audit_logs". */
export function sqlLabel(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  const cut = flat.search(/ (WHERE|VALUES|SET|ORDER|LIMIT|ON CONFLICT)\b| \(/i);
  return `db ${(cut > 0 ? flat.slice(0, cut) : flat).slice(0, 60)}`;
}

export function timedDb(inner: Database, recorder: Recorder): Database {
  return {
    kind: inner.kind,
    query: <T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>> =>
      recorder.time(sqlLabel(sql), () => inner.query<T>(sql, params)),
    exec: (sql: string) => recorder.time(sqlLabel(sql), () => inner.exec(sql)),
    transaction: <T>(fn: Parameters<Database['transaction']>[0]) => recorder.time('db transaction', () => inner.transaction(fn)) as Promise<T>,
    listen: (channel, handlers) => inner.listen(channel, handlers),
    close: () => inner.close(),
  };
}
