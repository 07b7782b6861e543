import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App, type AppOptions } from '../../src/app.ts';
import { createAuditWriter, type AuditWriter } from '../../src/audit/audit-writer.ts';
import { createRpcClient, type RpcClient } from '../../src/bitcoin/rpc-client.ts';
import type { AppConfig } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { until } from './until.ts';
import { createPortalTxidIndex } from '../../src/modules/submission/portal-txid-index.ts';
import { systemClock, type Clock } from '../../src/lib/clock.ts';
import type { Logger } from '../../src/lib/logger.ts';
import type { MempoolEngine, MempoolEngineOptions } from '@slipstream/mempool-engine';
import { instrumentRpc } from '../../src/metrics/instrument-rpc.ts';
import { createMetrics, type Metrics } from '../../src/metrics/metrics-registry.ts';
import { createEngineMarketSource } from '../../src/modules/pricing/market-rate.ts';
import { createPortalMempool } from '../../src/runtime.ts';
import { createSettingsStore, type SettingsStore } from '../../src/modules/settings/settings.store.ts';
import { createRecordKeeper, type RecordKeeper } from '../../src/modules/submission/record-keeper.ts';
import type { TestNode } from './regtest.ts';
import { countingRpc } from './call-trace.ts';
import type { PortalJobs } from '../../src/jobs/portal-jobs.ts';
import type { PolicyOracle } from '../../src/modules/policy/policy-oracle.ts';
import type { PublicMempool } from '../../src/modules/submission/public-mempool.ts';
import { createServices, type Adapters, type Services } from '../../src/services.ts';

/**
 * The real app on a real node and a real database, as integration tests use
 * it. Caches are off (ttl 0) so a test sees its own setting and mempool
 * changes at once.
 */

export const quietLog: Logger = { info() {}, warn() {}, error() {} };

export interface TestApp {
  app: App;
  db: Database;
  /** The app's RPC client: instrumented, so its calls show in `metrics`. */
  rpc: RpcClient;
  /** The app's own Prometheus registry and metrics. */
  metrics: Metrics;
  settings: SettingsStore;
  audit: AuditWriter;
  records: RecordKeeper;
  /** The app's mempool engine (started; stopped by close()). */
  mempool: MempoolEngine;
  /** The app's services, as createServices built them. */
  services: Services;
  /** The background jobs, when `options.jobs` asked for them. */
  jobs: PortalJobs | undefined;
  /** Sets a setting row directly (the staff API comes later) and drops the cache. */
  setSetting(item: string, value: string): Promise<void>;
  /**
   * Waits until this instance's txid index has heard of rows a test wrote
   * straight into the database, as it hears of another instance's: by the
   * database's notification, within milliseconds, longer on a busy machine.
   * Until then a status check answers 404, as the index documents.
   */
  heard(txids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Another RPC client, e.g. one pointing at a stopped node. */
  rpc?: RpcClient;
  clock?: Clock;
  rateLimitMax?: number;
  /** The public rate limit's window (default one minute). */
  rateLimitWindowMs?: number;
  /** The audit writer's timer; large values leave draining to close(). */
  auditFlushIntervalMs?: number;
  /** Where accepted submissions are recorded, e.g. a database that fails on purpose. */
  recordsDb?: Database;
  /** Staff sign-in (verifier, the portal's own issuer); without it no staff routes exist. */
  staff?: Adapters['staff'];
  /** Serve the built web app from here (browser tests). */
  webDistDir?: string;
  /**
   * Run the background jobs (tracking, retries) as the runtime does; off by
   * default so tests that look at raw rows see only what their requests did.
   */
  jobs?: boolean | Adapters['jobs'];
  /** Webhook delivery settings (default: private destinations allowed, a random portal key). */
  webhooks?: Partial<Adapters['webhooks']>;
  /** Notification emails (none without). */
  mail?: Adapters['mail'];
  /** Counters shared with other instances (REDIS_URL), where per-address rate limits count; this instance's memory without. */
  sharedCounters?: Adapters['sharedCounters'];
  /** The scrape token GET /rest-api/metrics requires (METRICS_TOKEN); open without. */
  metricsToken?: string;
  /** What one client address may store as failed submissions per day; the production defaults without. */
  failureStorage?: Adapters['failureStorage'];
  /** The standard-policy oracle parse-tx asks (modules/policy/); none by default (verdicts "unknown"). */
  policy?: PolicyOracle;
  /** The public network's mempool a child may be priced with a parent from (PUBLIC_MEMPOOL_RPC_URL); none by default. */
  publicMempool?: PublicMempool;
  /** Fastify's trustProxy (TRUST_PROXY); default false. */
  trustProxy?: AppOptions['trustProxy'];
  /** Origins allowed to call the API cross-origin (CORS_ORIGINS); default none. */
  corsOrigins?: string[];
  /** Fastify's logger options, e.g. a level and a stream to read the request log from; default no log. */
  logger?: AppOptions['logger'];
  /** The HTTP server's timeouts (HTTP_REQUEST_TIMEOUT_MS and the others); the production defaults without. */
  httpTimeouts?: AppOptions['httpTimeouts'];
  /**
   * The mempool engine: `synced` by default (every read catches up with the
   * node first, so a test sees its own mempool changes at once), following
   * the node's ZMQ notifications unless `zmq` is false or `rpc` points
   * elsewhere.
   */
  mempool?: { consistency?: MempoolEngineOptions['consistency']; zmq?: boolean; templateCheckEveryMs?: number; sync?: MempoolEngineOptions['sync'] };
  /** The block the projection fills (BLOCK_MAX_WEIGHT, BLOCK_MIN_TX_FEE); Core's defaults without. */
  blockPolicy?: AppConfig['blockPolicy'];
  /**
   * Every node call the services make (not the mempool engine's, which
   * follows the node for all requests at once), written here as the
   * node-call meter names it (call-trace.ts countingRpc): what a request
   * costs the node.
   */
  serviceRpcCalls?: string[];
  /** Told of each public read's node calls as the app's own meter counted them (http/node-call-budget.ts). */
  observeNodeCalls?: Adapters['observeNodeCalls'];
  /** The portal's key secret (seals the receipt keys, signs quotes); derived from the random webhook key without. */
  authKey?: Adapters['authKey'];
}

/**
 * The production default, except where a test gives the portal a block
 * policy its node does not have (a small block, to spread a few transactions
 * over several): the node's template would differ by design, and block 0
 * would follow it.
 */
function templateCheckEveryMs(options: TestAppOptions): number | undefined {
  return options.mempool?.templateCheckEveryMs ?? (options.blockPolicy ? 0 : undefined);
}

export function nodeRpc(node: TestNode, timeoutMs = 30_000): RpcClient {
  return createRpcClient({ url: node.rpcUrl, auth: { kind: 'cookie', cookieFile: node.cookieFile }, timeoutMs, maxConcurrency: 8 });
}

/** `node` may be undefined when `options.rpc` says where the node is. */
export async function startTestApp(node: TestNode | undefined, db: Database, options: TestAppOptions = {}): Promise<TestApp> {
  const plainRpc = options.rpc ?? (node ? nodeRpc(node) : undefined);
  if (!plainRpc) throw new Error('startTestApp needs a node or an rpc client');
  const metrics = createMetrics();
  const rpc = instrumentRpc(plainRpc, metrics);
  const clock = options.clock ?? systemClock;
  const settings = createSettingsStore(db, clock, { ttlMs: 0 });
  const audit = createAuditWriter(db, quietLog, { flushIntervalMs: options.auditFlushIntervalMs ?? 20 });
  const spoolDir = await mkdtemp(path.join(tmpdir(), 'portal-spool-'));
  // As production runs it (runtime.ts): loaded before the first request, told of this instance's records before they are written.
  const portalTxids = createPortalTxidIndex({ db, log: quietLog });
  await portalTxids.start();
  const records = createRecordKeeper({ db: options.recordsDb ?? db, spoolFile: path.join(spoolDir, 'pending-records.jsonl'), log: quietLog, retryMs: 50, portalTxids });
  const zmqUrl = node && !options.rpc && options.mempool?.zmq !== false ? node.zmqSequenceUrl : undefined;
  const mempool = createPortalMempool({ rpc, network: 'regtest', zmqUrl, settings, log: quietLog, consistency: options.mempool?.consistency ?? 'synced', templateCheckEveryMs: templateCheckEveryMs(options), ...(options.mempool?.sync ? { sync: options.mempool.sync } : {}), ...(options.blockPolicy ? { blockPolicy: options.blockPolicy } : {}) });
  const services = createServices({
    db,
    rpc: options.serviceRpcCalls ? countingRpc(rpc, options.serviceRpcCalls) : rpc,
    clock,
    market: createEngineMarketSource(mempool),
    mempool,
    settings,
    audit,
    records,
    portalTxids,
    log: quietLog,
    network: 'regtest',
    ...(options.staff ? { staff: options.staff } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.failureStorage ? { failureStorage: options.failureStorage } : {}),
    ...(options.publicMempool ? { publicMempool: options.publicMempool } : {}),
    metrics,
    ...(typeof options.jobs === 'object' ? { jobs: options.jobs } : {}),
    // Receivers in tests listen on loopback, so private destinations are allowed unless a test says otherwise.
    webhooks: { portalKey: randomBytes(32), allowPrivate: true, ...options.webhooks },
    ...(options.mail ? { mail: options.mail } : {}),
    ...(options.sharedCounters ? { sharedCounters: options.sharedCounters } : {}),
    ...(options.observeNodeCalls ? { observeNodeCalls: options.observeNodeCalls } : {}),
    ...(options.authKey ? { authKey: options.authKey } : {}),
    // As the settings: a rotation of the receipt keys is seen at once.
    receiptKeyCacheMs: 0,
  });
  const app = await buildApp(services, {
    rateLimit: { max: options.rateLimitMax ?? 100_000, windowMs: options.rateLimitWindowMs ?? 60_000 },
    trustProxy: options.trustProxy ?? false,
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    auditPayloadMaxChars: 4096,
    ...(options.webDistDir ? { webDistDir: options.webDistDir } : {}),
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.httpTimeouts ? { httpTimeouts: options.httpTimeouts } : {}),
  });
  await app.ready();
  mempool.start();
  const jobs = options.jobs ? services.jobs : undefined;
  await jobs?.start();
  return {
    app,
    db,
    rpc,
    metrics,
    settings,
    audit,
    records,
    mempool,
    services,
    jobs,
    async setSetting(item, value) {
      const { rowCount } = await db.query('UPDATE settings SET value = $2 WHERE item = $1', [item, value]);
      if (rowCount !== 1) throw new Error(`No setting ${item}`);
      settings.invalidate();
    },
    async heard(txids) {
      await until(
        async () => portalTxids.ready && txids.every((txid) => portalTxids.mayHold(txid)),
        async () => `the txid index has not heard of ${txids.filter((txid) => !portalTxids.mayHold(txid)).join(', ')}`,
      );
    },
    async close() {
      await jobs?.stop();
      await app.close();
      await mempool.stop();
      await portalTxids.stop();
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
}

/** POST JSON through the app's own request pipeline (schemas, hooks, audit). */
export async function post<T = Record<string, unknown>>(app: App, url: string, body: unknown): Promise<{ statusCode: number; body: T; headers: Record<string, unknown> }> {
  const res = await app.inject({ method: 'POST', url, payload: body as object });
  return { statusCode: res.statusCode, body: res.json<T>(), headers: res.headers };
}

/** A submission's answer without its receipt (a signature, new every time), for comparing the rest; the receipt must be there. */
export function withoutReceipt<T extends object>(body: T): Omit<T, 'receipt'> {
  const { receipt, ...rest } = body as T & { receipt?: unknown };
  if (typeof receipt !== 'string') throw new Error(`no receipt in ${JSON.stringify(body)}`);
  return rest;
}

export async function get<T = Record<string, unknown>>(app: App, url: string): Promise<{ statusCode: number; body: T; headers: Record<string, unknown> }> {
  const res = await app.inject({ method: 'GET', url });
  return { statusCode: res.statusCode, body: res.json<T>(), headers: res.headers };
}
