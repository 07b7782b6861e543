import { createServer } from 'node:net';
import path from 'node:path';
import { buildApp, type App } from './app.ts';
import { createAuditWriter } from './audit/audit-writer.ts';
import { loadAuthKey, sealPrivateJwk, unsealPrivateJwk, type AuthKey } from './auth/auth-key-secret.ts';
import { hashPassword, verifyPassword } from './auth/passwords.ts';
import { findAccount, saveAccount } from './auth/staff-accounts.repository.ts';
import { startStaffChannel, type StaffChannel } from './auth/staff-channel.ts';
import { createLocalIssuer, routeByIssuer } from './auth/local-issuer.ts';
import { createTokenVerifier, type TokenVerifier } from './auth/token-verifier.ts';
import { createRpcClient, RpcTransportError, type RpcClient } from './bitcoin/rpc-client.ts';
import { connectRedisCounters, type SharedCounters } from './http/rate-limit-store.ts';
import type { AppConfig, Network } from './config/config.ts';
import { openPglite, openPostgres, type Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { startEmbeddedVacuum } from './db/embedded-vacuum.ts';
import { lockPgliteDir } from './db/pglite-lock.ts';
import {
  EmbeddedDefaultUnavailableError,
  loadDevIdentityProvider,
  loadNodeLauncher,
  loadPolicyNode,
  PRODUCTION_REFUSAL,
  type EmbeddedIdentityProvider,
  type EmbeddedNode,
} from './embedded-defaults.ts';
import { systemClock } from './lib/clock.ts';
import { makePrivateDir } from './lib/private-dir.ts';
import type { Logger } from './lib/logger.ts';
import { instrumentRpc } from './metrics/instrument-rpc.ts';
import { createMetrics } from './metrics/metrics-registry.ts';
import { createMempoolEngine, type MempoolEngine, type MempoolEngineOptions } from '@slipstream/mempool-engine';
import { createEngineMarketSource } from './modules/pricing/market-rate.ts';
import { connectStandardPolicy, type StandardPolicyConnection } from './modules/policy/connect-policy.ts';
import { connectPublicMempool } from './modules/submission/public-mempool.ts';
import { poolRecogniser } from './modules/settings/pool-identity.ts';
import { createSettingsStore, type SettingsStore } from './modules/settings/settings.store.ts';
import { createRecordKeeper } from './modules/submission/record-keeper.ts';
import { createPortalTxidIndex, type PortalTxidIndex } from './modules/submission/portal-txid-index.ts';
import type { PortalJobs } from './jobs/portal-jobs.ts';
import { createSmtpSender } from './modules/notifications/mail-sender.ts';
import { createServices } from './services.ts';

/**
 * Wires the real adapters together from the parsed configuration: the
 * database, the Bitcoin node (ours on regtest, or the pool's), and the app.
 * Start-up failures propagate with their reason; the CLI exits non-zero.
 */

/** Where this portal's rate-limit counters live in a Redis it may share with other programs. */
const REDIS_KEY_PREFIX = 'slipstream:rate-limit:';

/** Bitcoin Core's chain names (getblockchaininfo.chain) to the product's network names. */
const CHAIN_TO_NETWORK: Record<string, Network> = {
  main: 'mainnet',
  test: 'testnet',
  testnet4: 'testnet4',
  signet: 'signet',
  regtest: 'regtest',
};

export interface Runtime {
  app: App;
  /** The embedded development identity provider, when no issuer is configured. */
  identityProvider: EmbeddedIdentityProvider | undefined;
  db: Database;
  rpc: RpcClient;
  node: EmbeddedNode | undefined;
  network: Network;
  mempool: MempoolEngine;
  stop(): Promise<void>;
}

export async function openDatabase(config: AppConfig): Promise<Database> {
  if (config.database.kind === 'postgres') {
    const db = await openPostgres(config.database.url);
    return migrated(db);
  }
  const unlock = await lockPgliteDir(config.database.dataDir);
  let db: Database;
  try {
    db = await openPglite(config.database.dataDir);
  } catch (error) {
    await unlock();
    throw error;
  }
  // Closing the database releases the directory for the next process.
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await unlock();
  };
  return migrated(db);
}

async function migrated(db: Database): Promise<Database> {
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

export async function connectNode(config: AppConfig, log: (m: string) => void): Promise<{ rpc: RpcClient; node: EmbeddedNode | undefined; zmqUrl: string | undefined }> {
  if (config.node.kind === 'external') {
    const rpc = createRpcClient({ url: config.node.rpcUrl, auth: config.node.auth, timeoutMs: config.rpc.timeoutMs, maxConcurrency: config.rpc.concurrency });
    return { rpc, node: undefined, zmqUrl: config.node.zmqUrl };
  }
  // Development tooling (server/dev/), loaded only for this embedded default.
  const { launchRegtestNode } = await loadNodeLauncher();
  // The embedded standard-policy node follows this one over loopback P2P.
  const extraArgs = config.standardPolicy.kind === 'embedded' ? (await loadPolicyNode()).poolNodeP2pArgs(config.node.p2pPort) : [];
  const node = await launchRegtestNode({
    datadir: config.node.datadir,
    rpcPort: config.node.rpcPort,
    p2pPort: config.node.p2pPort,
    zmqPort: config.node.zmqPort,
    bitcoindPath: config.node.bitcoindPath,
    cacheDir: config.node.cacheDir,
    log,
    extraArgs,
  });
  const rpc = createRpcClient({ url: node.rpcUrl, auth: { kind: 'cookie', cookieFile: node.cookieFile }, timeoutMs: config.rpc.timeoutMs, maxConcurrency: config.rpc.concurrency });
  return { rpc, node, zmqUrl: node.zmqSequenceUrl };
}

/**
 * The mempool engine on this node: ZMQ notifications where the node
 * publishes them, polling otherwise; the pool's blocks recognised by the
 * settings staff edit.
 */
export function createPortalMempool(options: {
  rpc: RpcClient;
  network: string;
  zmqUrl: string | undefined;
  settings: Pick<SettingsStore, 'get'>;
  log: Logger;
  consistency?: 'latest' | 'synced';
  /** The node's block policy (config BLOCK_MAX_WEIGHT, BLOCK_MIN_TX_FEE); Core's defaults without it. */
  blockPolicy?: AppConfig['blockPolicy'];
  /** How often the node's block template is compared with the projection (the engine's default, 30 s, without it). */
  templateCheckEveryMs?: number;
  /** How the mirror follows the node (the engine's defaults without). */
  sync?: MempoolEngineOptions['sync'];
}): MempoolEngine {
  return createMempoolEngine({
    rpc: options.rpc,
    network: options.network,
    zmqUrl: options.zmqUrl,
    log: options.log,
    consistency: options.consistency ?? 'latest',
    ...(options.templateCheckEveryMs !== undefined ? { templateCheckEveryMs: options.templateCheckEveryMs } : {}),
    ...(options.sync ? { sync: options.sync } : {}),
    ...(options.blockPolicy ? { assembler: { maxBlockWeight: options.blockPolicy.maxBlockWeight, blockMinFeeRatePerKvB: options.blockPolicy.minFeeRatePerKvB } } : {}),
    poolRecogniser: async () => {
      const current = await options.settings.get();
      return poolRecogniser({ coinbaseTag: current.poolCoinbaseTag, payoutAddresses: current.poolPayoutAddresses, network: options.network });
    },
    unavailableError: (message) => new RpcTransportError('mempool', 'unreachable', message),
  });
}

/** The configured network must be the node's: a mainnet portal must never talk to a testnet node, or the reverse. */
export async function checkNetwork(rpc: RpcClient, configured: Network | undefined): Promise<Network> {
  const { chain } = await rpc.call<{ chain: string }>('getblockchaininfo');
  const actual = CHAIN_TO_NETWORK[chain];
  if (!actual) throw new Error(`The node reports an unknown chain '${chain}'`);
  if (configured && configured !== actual) {
    throw new Error(`BITCOIN_NETWORK is ${configured} but the node runs ${actual}`);
  }
  return actual;
}

/**
 * The configured provider, or the embedded one on loopback for development
 * (never in production). The embedded one keeps its demo accounts, keys and
 * sessions in DATA_DIR, its keys sealed with `authKey`: a restart neither
 * changes the printed passwords nor signs anybody out.
 */
export async function connectIdentity(config: AppConfig, authKey: AuthKey): Promise<{ verifier: TokenVerifier; issuer: string; provider: EmbeddedIdentityProvider | undefined }> {
  const { identity } = config;
  if (identity.kind === 'external') {
    const verifier = createTokenVerifier({ issuer: identity.issuer, clientId: identity.clientId, apiAudience: identity.apiAudience, adminGroup: identity.adminGroup });
    return { verifier, issuer: identity.issuer, provider: undefined };
  }
  if (config.production) throw new EmbeddedDefaultUnavailableError(PRODUCTION_REFUSAL);
  // Development tooling (server/dev/), loaded only for this embedded default.
  const { startDevIdentityProvider } = await loadDevIdentityProvider();
  const provider = await startDevIdentityProvider({
    port: identity.port,
    clientId: identity.clientId,
    ...devRedirects(config),
    production: config.production,
    persist: {
      dir: config.dataDir,
      sealer: { seal: (jwk, kid) => sealPrivateJwk(jwk as Parameters<typeof sealPrivateJwk>[0], `dev-identity:${kid}`, authKey), unseal: (sealed, kid) => unsealPrivateJwk(sealed, `dev-identity:${kid}`, authKey) },
    },
  });
  const verifier = createTokenVerifier({ issuer: provider.issuer, clientId: identity.clientId, adminGroup: identity.adminGroup });
  return { verifier, issuer: provider.issuer, provider };
}

/**
 * The embedded provider's demo accounts also sign in with their password at
 * /login?method=password (a local staff account: local-login.service.ts), so
 * the credentials printed at start work on both sign-in pages. An account is
 * made when none of that name exists; one that exists with another password
 * (made with `npm run staff`) is left alone, and said so. Development only:
 * the embedded provider never runs in production.
 */
export async function demoPasswordSignIn(db: Database, provider: EmbeddedIdentityProvider, adminGroup: string): Promise<Record<string, 'added' | 'same' | 'own password'>> {
  const outcome: Record<string, 'added' | 'same' | 'own password'> = {};
  for (const account of provider.staff) {
    const existing = await findAccount(db, account.username);
    if (!existing) {
      await saveAccount(db, { username: account.username, passwordHash: await hashPassword(account.password), isAdmin: account.groups.includes(adminGroup) });
      outcome[account.username] = 'added';
    } else {
      outcome[account.username] = (await verifyPassword(account.password, existing.password_hash)) ? 'same' : 'own password';
    }
  }
  return outcome;
}

/**
 * The addresses the web app may come back to after sign-in and sign-out. A
 * browser on this machine reaches the portal as 127.0.0.1 or localhost, and
 * the provider compares redirect URIs exactly (OAuth 2.0 Security BCP).
 */
export function devRedirects(config: Pick<AppConfig, 'host' | 'port'>): { redirectUris: string[]; postLogoutRedirectUris: string[] } {
  const hosts = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? ['127.0.0.1', 'localhost'] : [config.host];
  const origins = hosts.map((host) => `http://${host}:${config.port}`);
  return { redirectUris: origins.map((o) => `${o}/login/callback`), postLogoutRedirectUris: origins.map((o) => `${o}/`) };
}

/** A port the portal needs is taken (or not allowed): said in one line, naming the setting that moves it. */
export class PortUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PortUnavailableError';
  }
}

/**
 * Whether `port` can be listened on at `host`, tried by listening and closing
 * at once. The start checks its own ports this way before it launches
 * anything: a busy port otherwise shows as a stack trace only after the
 * nodes have started and mined their first blocks. Another process may still
 * take the port in between; the listen then fails with the same message.
 */
export async function checkPortFree(host: string, port: number, setting: string): Promise<void> {
  if (port === 0) return; // any free port: nothing to check
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(portError(error, port, setting) ?? error));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The one-line message for a listen error on `port`, or undefined when it is another kind of error. */
export function portError(error: unknown, port: number, setting: string): PortUnavailableError | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') return new PortUnavailableError(`port ${port} is in use: set ${setting}`, { cause: error });
  if (code === 'EACCES') return new PortUnavailableError(`port ${port} needs privileges this user does not have: set ${setting}`, { cause: error });
  if (code === 'EADDRNOTAVAIL') return new PortUnavailableError(`the address to listen on port ${port} is not one of this machine's: set HOST`, { cause: error });
  return undefined;
}

/** The portal's own ports, checked before anything starts (checkPortFree). */
export async function checkPorts(config: AppConfig): Promise<void> {
  await checkPortFree(config.host, config.port, 'PORT');
  // The embedded identity provider listens on loopback only (dev-identity-provider.ts).
  if (config.identity.kind === 'embedded') await checkPortFree('127.0.0.1', config.identity.port, 'DEV_IDP_PORT');
}

/** DATA_DIR made, or made private, before anything is written in it (lib/private-dir.ts). */
export async function prepareDataDir(dataDir: string, log: (m: string) => void): Promise<void> {
  const { changed, failed } = await makePrivateDir(dataDir);
  if (changed > 0) log(`DATA_DIR ${dataDir}: group and other access removed from ${changed} entries`);
  if (failed.length > 0) log(`DATA_DIR ${dataDir}: could not make private (owned by another user?): ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ` and ${failed.length - 5} more` : ''}`);
}

export async function startRuntime(config: AppConfig, log: (m: string) => void): Promise<Runtime> {
  await checkPorts(config);
  await prepareDataDir(config.dataDir, log);
  // Read (or made) before anything starts: a bad secret file stops the start at once.
  const authKey = await loadAuthKey({ secret: config.authKeySecret, dataDir: config.dataDir });
  const db = await openDatabase(config);
  // A Postgres server vacuums itself; the embedded database does not.
  const stopVacuum = config.database.kind === 'pglite' ? startEmbeddedVacuum(db, log) : () => {};
  let node: EmbeddedNode | undefined;
  let policy: StandardPolicyConnection | undefined;
  let identityProvider: EmbeddedIdentityProvider | undefined;
  let mempool: MempoolEngine | undefined;
  let jobs: PortalJobs | undefined;
  let sharedCounters: SharedCounters | undefined;
  let portalTxids: PortalTxidIndex | undefined;
  let staffChannel: StaffChannel | undefined;
  try {
    const localIssuer = createLocalIssuer({ db, clock: systemClock, clientId: config.identity.clientId, adminGroup: config.identity.adminGroup, authKey });
    // A signing key sealed with another secret stops the start here, before a node is launched, saying what to do.
    await localIssuer.ready();
    // The standard-policy node starts beside the pool node, not after it (it connects once the pool node listens).
    const policyStart = connectStandardPolicy(config, log);
    const connected = await connectNode(config, log).catch(async (error: unknown) => {
      await (await policyStart).stop();
      throw error;
    });
    node = connected.node;
    policy = await policyStart;
    // Every node call, the mempool engine's included, is timed and its failures counted.
    const metrics = createMetrics();
    const rpc = instrumentRpc(connected.rpc, metrics);
    const { zmqUrl } = connected;
    const network = await checkNetwork(rpc, config.network);
    const identity = await connectIdentity(config, authKey);
    identityProvider = identity.provider;
    if (identityProvider) identityProvider.passwordSignIn = await demoPasswordSignIn(db, identityProvider, config.identity.adminGroup);
    // Start-up and background messages share the CLI's plain log lines.
    const line = (o: object, m?: string) => log(`${m ?? ''} ${JSON.stringify(o)}`);
    const logger: Logger = { info: line, warn: line, error: line };
    // Per-address rate limits shared by every instance (REDIS_URL): a Redis that does not answer now stops the start.
    if (config.redisUrl) sharedCounters = await connectRedisCounters(config.redisUrl, { keyPrefix: REDIS_KEY_PREFIX, log: logger });
    const audit = createAuditWriter(db, { ...logger, info: () => {} });
    // Which txids are the portal's, in memory: loaded before the first request, so that a status check of a txid it never recorded asks no one.
    portalTxids = createPortalTxidIndex({ db, log: logger });
    await portalTxids.start();
    const records = createRecordKeeper({ db, spoolFile: path.join(config.dataDir, 'pending-records.jsonl'), log: logger, portalTxids });
    // Records spooled while the database was down before the last stop go in first.
    const replayed = await records.drain();
    if (replayed.written > 0 || replayed.remaining > 0) log(`spooled submission records: ${replayed.written} written, ${replayed.remaining} still pending`);
    const settings = createSettingsStore(db, systemClock);
    mempool = createPortalMempool({ rpc, network, zmqUrl, settings, log: logger, blockPolicy: config.blockPolicy });
    const services = createServices({
      db,
      rpc,
      clock: systemClock,
      market: createEngineMarketSource(mempool),
      mempool,
      settings,
      audit,
      records,
      portalTxids,
      log: logger,
      network,
      staff: { verifier: routeByIssuer(localIssuer, identity.verifier), issuer: localIssuer, signIn: { issuer: identity.issuer, clientId: config.identity.clientId } },
      metrics,
      bytesPerSigop: config.bytesPerSigop,
      failureStorage: config.failedTxStorage,
      policy: policy.oracle,
      knotsPolicy: policy.knotsOracle,
      policyShares: config.policyShares,
      publicMempool: config.publicMempool.kind === 'external'
        ? connectPublicMempool({ url: config.publicMempool.rpcUrl, auth: config.publicMempool.auth }, (error) => logger.warn({ err: error }, 'The public mempool node did not answer: no parent counts as public meanwhile'))
        : undefined,
      jobs: { pendingAfterMs: config.pendingSettleMs, failedTxRetention: { retentionDays: config.failedTxStorage.retentionDays } },
      authKey,
      webhooks: { portalKey: authKey.key, allowPrivate: config.webhooks.allowPrivate, maxSubscriptionsPerAddressPerDay: config.webhooks.maxSubscriptionsPerAddressPerDay },
      mail: config.smtp ? { sender: createSmtpSender(config.smtp), publicUrl: config.publicUrl, maxSubscriptionsPerAddressPerDay: config.email.maxSubscriptionsPerAddressPerDay } : undefined,
      sharedCounters,
    });
    // The receipt key opened (or made) before the first request: one sealed with another secret stops the start here, saying what to do.
    await services.receipts.ready();
    const app = await buildApp(services, {
      rateLimit: config.rateLimit,
      statusStreams: config.statusStreams,
      httpTimeouts: config.httpTimeouts,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      auditPayloadMaxChars: config.auditPayloadMaxChars,
      webDistDir: config.webDistDir,
      metricsToken: config.metricsToken,
      logger: { level: config.logLevel },
    });
    // `npm run staff` reaches the embedded database through this process (auth/staff-channel.ts).
    if (config.database.kind === 'pglite') staffChannel = await startStaffChannel({ dataDir: config.dataDir, db, authKey, log });
    const channel = staffChannel;
    // Started once the app is built: it follows the node from now on, in the background.
    mempool.start();
    const engine = mempool;
    // Tracking and retries submit through the API's submission service, outside any request.
    jobs = services.jobs;
    await jobs.start();
    const background = jobs;
    const standardPolicy = policy;
    const counters = sharedCounters;
    const index = portalTxids;
    const stop = async () => {
      await channel?.close();
      await background.stop();
      await app.close(); // drains the audit queue
      await counters?.close();
      await engine.stop();
      await index.stop();
      await identityProvider?.close();
      stopVacuum();
      await db.close();
      await standardPolicy.stop();
      await node?.stop();
    };
    return { app, identityProvider, db, rpc, node, network, mempool: engine, stop };
  } catch (error) {
    await staffChannel?.close().catch(() => {});
    await jobs?.stop().catch(() => {});
    await sharedCounters?.close().catch(() => {});
    await mempool?.stop().catch(() => {});
    await portalTxids?.stop().catch(() => {});
    await identityProvider?.close().catch(() => {});
    await policy?.stop().catch(() => {});
    await node?.stop().catch(() => {});
    stopVacuum();
    await db.close().catch(() => {});
    throw error;
  }
}
