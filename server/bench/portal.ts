import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRecordKeeper } from '../src/modules/submission/record-keeper.ts';
import { createPortalTxidIndex } from '../src/modules/submission/portal-txid-index.ts';
import { quietLog } from '../test/helpers/test-app.ts';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, type App } from '../src/app.ts';
import type { AuditWriter } from '../src/audit/audit-writer.ts';
import type { RpcClient } from '../src/bitcoin/rpc-client.ts';
import type { Database } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createEngineMarketSource } from '../src/modules/pricing/market-rate.ts';
import { createPortalMempool } from '../src/runtime.ts';
import { createSettingsStore } from '../src/modules/settings/settings.store.ts';
import { createServices, type Adapters } from '../src/services.ts';
import type { Recorder } from './instrument.ts';

/**
 * The portal as production wires it (src/runtime.ts): production cache
 * lifetimes for settings, the mempool engine following the node (ZMQ when
 * given its endpoint) and serving its latest projection, the production
 * audit writer, listening on loopback. Differences, on purpose: no request logger (its
 * cost depends on where the log goes) and a rate limit nobody reaches.
 */

export interface Portal {
  app: App;
  baseUrl: string;
  audit: AuditWriter;
  /** Requests sent through post(): with audit on, the rows the trail must hold. */
  readonly requests: number;
  post(path: string, body: Uint8Array): Promise<{ status: number; text: string }>;
  /**
   * The same over node:http. For multi-megabyte bodies: fetch copies the body
   * on the event loop (webidl getCopyOfBytesHeldByBufferSource, ~6 ms for
   * 8 MB), which would count against the server in stall measurements.
   */
  postHttp(path: string, body: Buffer): Promise<{ status: number; text: string }>;
  /** What the block tracker's txid index holds (mempool-engine/src/queries/block-txids.ts). */
  txidIndex(): { txids: number; bytes: number };
  close(): Promise<void>;
}

/** An audit writer that keeps nothing: the "audit off" baseline. */
export const noopAuditWriter: AuditWriter = {
  push() {},
  flush: () => Promise.resolve(),
  close: () => Promise.resolve(),
  stats: () => ({ queued: 0, written: 0, dropped: 0, failedWrites: 0 }),
};

export interface PortalOptions {
  db: Database;
  rpc: RpcClient;
  audit: AuditWriter;
  /** Records server-side request time (onRequest to onResponse) as "server total". */
  recorder?: Recorder;
  /** The node's -zmqpubsequence endpoint for the mempool engine (polling without it). */
  zmqUrl?: string;
  /** The engine's own RPC client, e.g. an uninstrumented one, so its background calls stay out of a request breakdown. */
  engineRpc?: RpcClient;
  /** Staff sign-in, for the staff routes (none without it). */
  staff?: Adapters['staff'];
  /** The Prometheus registry `rpc` was instrumented with (src/runtime.ts shares one); the app keeps its own without it. */
  metrics?: Adapters['metrics'];
  /** Public requests per IP per window: default one nobody reaches. */
  rateLimit?: { max: number; windowMs: number };
}

export async function startPortal(options: PortalOptions): Promise<Portal> {
  const { db, rpc, audit, recorder } = options;
  const settings = createSettingsStore(db, systemClock);
  const mempool = createPortalMempool({ rpc: options.engineRpc ?? rpc, network: 'regtest', zmqUrl: options.zmqUrl, settings, log: quietLog });
  const market = createEngineMarketSource(mempool);
  // As production wires it (runtime.ts).
  const portalTxids = createPortalTxidIndex({ db, log: quietLog });
  await portalTxids.start();
  const services = createServices({
    db,
    rpc,
    webhooks: { portalKey: randomBytes(32), allowPrivate: true },
    clock: systemClock,
    market: recorder ? { snapshot: () => recorder.time('market.snapshot()', () => market.snapshot()) } : market,
    mempool,
    settings: recorder ? { get: () => recorder.time('settings.get()', () => settings.get()), invalidate: () => settings.invalidate() } : settings,
    audit,
    records: createRecordKeeper({ db, spoolFile: path.join(tmpdir(), `bench-spool-${process.pid}.jsonl`), log: quietLog, portalTxids }),
    portalTxids,
    log: quietLog,
    network: 'regtest',
    ...(options.staff ? { staff: options.staff } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const app = await buildApp(services, { rateLimit: options.rateLimit ?? { max: 1_000_000_000, windowMs: 60_000 }, trustProxy: false, auditPayloadMaxChars: 4096 });
  if (recorder) {
    const started = new WeakMap<object, number>();
    app.addHook('onRequest', async (request) => {
      started.set(request, performance.now());
    });
    app.addHook('onResponse', async (request) => {
      const at = started.get(request);
      if (at !== undefined) recorder.add('server total (onRequest..onResponse)', performance.now() - at);
    });
  }
  mempool.start();
  // The first projection, before anything is measured.
  await mempool.view();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  let requests = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let closing: Promise<void> | undefined;
  return {
    app,
    baseUrl,
    audit,
    get requests() {
      return requests;
    },
    async post(path, body) {
      requests++;
      // Global fetch (undici) keeps the connection alive, like the RPC client does.
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: response.status, text: await response.text() };
    },
    postHttp(path, body) {
      requests++;
      return new Promise((resolve, reject) => {
        const req = request(`${baseUrl}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    txidIndex: () => mempool.txidIndex(),
    close() {
      closing ??= (async () => {
        agent.destroy();
        await app.close();
        await mempool.stop();
        await portalTxids.stop();
      })();
      return closing;
    },
  };
}

/** A JSON body, encoded once up front so the client's own work stays out of the timings. */
export function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
