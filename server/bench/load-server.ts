import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { createAuditWriter } from '../src/audit/audit-writer.ts';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { parseConfig } from '../src/config/config.ts';
import type { Database } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import { instrumentRpc } from '../src/metrics/instrument-rpc.ts';
import { createMetrics } from '../src/metrics/metrics-registry.ts';
import { ADMIN_GROUP, CLIENT_ID, staffToken, TEST_AUTH_KEY } from '../test/helpers/staff-app.ts';
import { quietLog } from '../test/helpers/test-app.ts';
import { testDatabases } from '../test/helpers/test-db.ts';
import { fillAuditLogs, seedClientsAndCodes } from './audit-list.ts';
import { noopAuditWriter, startPortal } from './portal.ts';

/**
 * One server of the load benchmark (bench/load.ts), in a process of its own
 * so that the load generator's CPU is not the server's: either a bare
 * Fastify hello-world (the baseline) or the portal as production wires it
 * (bench/portal.ts, plus staff sign-in, the product's default RPC client
 * settings and the RPC instrumentation src/runtime.ts adds). Both are started
 * the same way (fork, --expose-gc, IPC) so the comparison is fair.
 *
 * Started by fork() with one JSON argument (ServerSpec); answers the parent's
 * IPC messages (ToServer) with ServerReply messages.
 */

export type ServerSpec =
  | { kind: 'hello' }
  | {
      kind: 'portal';
      rpcUrl: string;
      cookieFile: string;
      zmqUrl: string;
      /** Audit rows to fill before the portal starts (0: none). */
      auditRows: number;
      /** Public requests per IP per window (default: one nobody reaches). */
      rateLimitMax?: number;
      /** false: no audit trail (a writer that keeps nothing), to show what the trail costs a request. */
      audit?: boolean;
    };

export type ToServer =
  /** A full GC after `settleMs` of quiet (the audit writer's flushes land meanwhile), then memoryUsage(). */
  | { type: 'memory'; settleMs: number }
  | { type: 'cpu' }
  /** What the portal recorded: tx_submissions by status, and the audit writer's counters. */
  | { type: 'records' }
  /** Node calls the portal has made so far (its own and its mempool engine's), by method, from its RPC metrics. */
  | { type: 'rpc' }
  | { type: 'close' };

export type ServerReply =
  | { type: 'ready'; baseUrl: string; adminToken?: string; fillMs?: number; database: string }
  | { type: 'memory'; rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number }
  | { type: 'cpu'; userUs: number; systemUs: number; atMs: number }
  | { type: 'records'; submissions: Record<string, number>; audit: Record<string, number>; txidIndex: { txids: number; bytes: number } }
  | { type: 'rpc'; calls: Record<string, { count: number; seconds: number }> }
  | { type: 'closed' }
  | { type: 'failed'; message: string };

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

const send = (reply: ServerReply) =>
  new Promise<void>((resolve, reject) => {
    process.send!(reply, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });

interface Running {
  baseUrl: string;
  adminToken?: string;
  fillMs?: number;
  database: string;
  records(): Promise<Extract<ServerReply, { type: 'records' }>>;
  rpcCalls(): Promise<Extract<ServerReply, { type: 'rpc' }>>;
  close(): Promise<void>;
}

async function startHello(): Promise<Running> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    database: 'none',
    records: () => Promise.resolve({ type: 'records', submissions: {}, audit: {}, txidIndex: { txids: 0, bytes: 0 } }),
    rpcCalls: () => Promise.resolve({ type: 'rpc', calls: {} }),
    close: () => app.close(),
  };
}

async function startPortalServer(spec: Extract<ServerSpec, { kind: 'portal' }>): Promise<Running> {
  // The Postgres server when TEST_DATABASE_URL is set (as in production), else PGlite in this process.
  const engine = testDatabases().at(-1)!;
  const db: Database = await engine.open();
  let fillMs: number | undefined;
  if (spec.auditRows > 0) {
    const started = performance.now();
    await seedClientsAndCodes(db);
    await fillAuditLogs(db, spec.auditRows, new Date());
    fillMs = performance.now() - started;
  }
  // The product's defaults for the node connection (BITCOIN_RPC_CONCURRENCY, BITCOIN_RPC_TIMEOUT_MS).
  const defaults = parseConfig({}, { repoRoot: REPO_ROOT });
  const metrics = createMetrics();
  const rpc = instrumentRpc(
    createRpcClient({ url: spec.rpcUrl, auth: { kind: 'cookie', cookieFile: spec.cookieFile }, timeoutMs: defaults.rpc.timeoutMs, maxConcurrency: defaults.rpc.concurrency }),
    metrics,
  );
  const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
  const audit = spec.audit === false ? noopAuditWriter : createAuditWriter(db, quietLog);
  const portal = await startPortal({
    db,
    rpc,
    audit,
    metrics,
    zmqUrl: spec.zmqUrl,
    staff: { verifier: issuer, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
    ...(spec.rateLimitMax === undefined ? {} : { rateLimit: { max: spec.rateLimitMax, windowMs: 60_000 } }),
  });
  return {
    baseUrl: portal.baseUrl,
    adminToken: await staffToken(db, issuer, 'root', true),
    ...(fillMs === undefined ? {} : { fillMs }),
    database: engine.name,
    async records() {
      await audit.flush();
      const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM tx_submissions GROUP BY status');
      return { type: 'records', submissions: Object.fromEntries(rows.map((r) => [r.status, r.n])), audit: { ...audit.stats() }, txidIndex: portal.txidIndex() };
    },
    async rpcCalls() {
      const calls: Record<string, { count: number; seconds: number }> = {};
      for (const v of (await metrics.rpcDuration.get()).values) {
        const method = String(v.labels.method);
        const entry = (calls[method] ??= { count: 0, seconds: 0 });
        if (v.metricName?.endsWith('_count')) entry.count = v.value;
        if (v.metricName?.endsWith('_sum')) entry.seconds = v.value;
      }
      return { type: 'rpc', calls };
    },
    async close() {
      await portal.close();
      await audit.close();
      await db.close();
    },
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ServerSpec;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('load-server needs --expose-gc');
  let running: Running;
  try {
    running = spec.kind === 'hello' ? await startHello() : await startPortalServer(spec);
  } catch (error) {
    await send({ type: 'failed', message: (error as Error).stack ?? String(error) });
    process.exit(1);
  }
  // The benchmark's end, or its crash: this server goes with it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToServer) => {
    const answer = async (): Promise<ServerReply> => {
      switch (message.type) {
        case 'memory': {
          await sleep(message.settleMs);
          gc();
          await sleep(50);
          gc();
          const m = process.memoryUsage();
          return { type: 'memory', rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
        }
        case 'cpu': {
          const c = process.cpuUsage();
          return { type: 'cpu', userUs: c.user, systemUs: c.system, atMs: performance.timeOrigin + performance.now() };
        }
        case 'records':
          return running.records();
        case 'rpc':
          return running.rpcCalls();
        case 'close':
          await running.close();
          return { type: 'closed' };
      }
    };
    answer().then(send, (error: unknown) => send({ type: 'failed', message: (error as Error).stack ?? String(error) })).then(
      () => {
        if (message.type === 'close') process.disconnect();
      },
      (error: unknown) => {
        process.stderr.write(`load-server: cannot answer the benchmark: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
  await send({ type: 'ready', baseUrl: running.baseUrl, database: running.database, ...(running.adminToken ? { adminToken: running.adminToken } : {}), ...(running.fillMs === undefined ? {} : { fillMs: running.fillMs }) });
}

await main();
