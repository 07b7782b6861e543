import { createApiKeyService, type ApiKeyService } from './modules/clients/api-keys.service.ts';
import { createSlipstreamApiService, type SlipstreamApiService } from './modules/slipstream-api/slipstream-api.service.ts';
import type { FastifyRateLimitStoreCtor as RateLimitStoreCtor } from '@fastify/rate-limit';
import { sharedRateLimitStore, type SharedCounters } from './http/rate-limit-store.ts';
import type { AuditWriter } from './audit/audit-writer.ts';
import type { LocalIssuer } from './auth/local-issuer.ts';
import { createLocalLoginService, type LocalLoginService } from './auth/local-login.service.ts';
import { createMempoolViewAccess, type MempoolViewAccess } from './auth/mempool-view-access.ts';
import type { SignInConfig } from './auth/sign-in-config.routes.ts';
import type { TokenVerifier } from './auth/token-verifier.ts';
import type { RpcClient } from './bitcoin/rpc-client.ts';
import { DEFAULT_BYTES_PER_SIGOP } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import type { Database, Queryable } from './db/database.ts';
import { createPortalJobs, type PortalJobs, type PortalJobsDeps } from './jobs/portal-jobs.ts';
import type { FailureStorageBound } from './modules/failed-txs/failed-tx-storage.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import { createMetrics, type Metrics } from './metrics/metrics-registry.ts';
import { createMetricsService, type MetricsService } from './metrics/metrics.service.ts';
import { createAuditLogService, type AuditLogService } from './modules/audit-logs/audit-logs.service.ts';
import { createChangeLogService, type ChangeLogService } from './modules/change-logs/change-logs.service.ts';
import { createClientService, type ClientService } from './modules/clients/clients.service.ts';
import type { CodeGenerator } from './modules/discounts/discount-codes.ts';
import { createDiscountService, type DiscountService } from './modules/discounts/discounts.service.ts';
import { createFailedTxService, type FailedTxService } from './modules/failed-txs/failed-txs.service.ts';
import { createHealthService, type HealthService } from './modules/health/health.service.ts';
import type { MarketRateSource } from './modules/pricing/market-rate.ts';
import { createSettingsService, type SettingsService } from './modules/settings/settings.service.ts';
import type { SettingsStore } from './modules/settings/settings.store.ts';
import { createStatusService, type StatusService } from './modules/status/status.service.ts';
import type { RecordKeeper } from './modules/submission/record-keeper.ts';
import type { PolicyOracle } from './modules/policy/policy-oracle.ts';
import type { PolicyShares } from './modules/policy/policy-verdicts.ts';
import type { PublicMempool } from './modules/submission/public-mempool.ts';
import { createSubmissionService, type SubmissionService } from './modules/submission/submission.service.ts';
import { createTxPullerService, type TxPullerService } from './modules/tx-puller/tx-puller.service.ts';
import { createTxReportService, type TxReportService } from './modules/tx-reports/tx-reports.service.ts';
import { createClientWebhookService, type ClientWebhookService } from './modules/notifications/client-webhooks.service.ts';
import { createWebhookKeys } from './modules/notifications/webhook-secrets.ts';
import { createWebhookService, type WebhookService } from './modules/notifications/webhooks.service.ts';
import { DEFAULT_MAX_CALLBACKS_PER_ADDRESS_PER_DAY } from './modules/notifications/webhooks.repository.ts';
import { createEmailNotifyService, type EmailNotifyService } from './modules/notifications/email-notify.service.ts';
import type { MailSender } from './modules/notifications/mail-sender.ts';
import { createSynchroTableService, type SynchroTableService } from './modules/synchro-table/synchro-table.service.ts';
import { ASK_THE_DATABASE, type PortalTxidIndex } from './modules/submission/portal-txid-index.ts';
import { createNodeCallMeter, type NodeCallMeter, type NodeCallMeterOptions } from './http/node-call-budget.ts';
import type { AuthKey } from './auth/auth-key-secret.ts';
import { createQuoteSigner } from './modules/quotes/quote-token.ts';
import { createQuoteService, type QuoteService } from './modules/quotes/quotes.service.ts';
import { createReceiptKeys } from './modules/receipts/receipt-keys.ts';
import { createReceiptSigner } from './modules/receipts/receipt-token.ts';
import { createReceiptService, type ReceiptService } from './modules/receipts/receipts.service.ts';

/**
 * The composition root: every service and the background jobs, built once
 * from the adapters the caller chose (runtime.ts: the real ones; the tests
 * and benches: theirs). buildApp (app.ts) takes the result and gives each
 * route the services it needs, never the adapters behind them.
 */

export interface Adapters {
  db: Database;
  rpc: RpcClient;
  clock: Clock;
  market: MarketRateSource;
  /**
   * The mempool engine: projected blocks, positions, odds and the /mempool/
   * dashboard's feed (`mempool.feed`). Started and stopped by whoever built
   * it (runtime.ts, the tests), never here.
   */
  mempool: MempoolReader;
  settings: SettingsStore;
  audit: AuditWriter;
  /** Keeps records of accepted submissions, spooling them to disk when the database is down. */
  records: RecordKeeper;
  /**
   * Which txids the portal accepted, in memory (portal-txid-index.ts), for
   * the public reads of txids it never recorded. Started and stopped by
   * whoever built it; without one every such read asks the database.
   */
  portalTxids?: PortalTxidIndex;
  /** Where the services say what went wrong outside a request's answer. */
  log: Logger;
  /** The node's network, already checked against its chain at start-up. */
  network: string;
  /**
   * Staff sign-in: the verifier for the provider's and the portal's own
   * tokens, the portal's own issuer (local accounts) and what the web app
   * needs to start a sign-in. Without it, no staff routes are served.
   * `accountsDb`: where sign-in reads the accounts, when not `db` (a test racing a password reset).
   */
  staff?: { verifier: TokenVerifier; issuer: LocalIssuer; signIn: SignInConfig; accountsDb?: Queryable };
  /**
   * The Prometheus registry, shared with whatever else is measured outside
   * the app (the RPC client wrapped by instrumentRpc). Without it the
   * services keep a registry of their own.
   */
  metrics?: Metrics;
  /** The node's -bytespersigop (default 20), for the sigop-adjusted virtual size submissions are priced by. */
  bytesPerSigop?: number;
  /** What one client address may make the portal store as failed submissions in a day (FAILED_TX_MAX_*_PER_ADDRESS_PER_DAY); the defaults without. */
  failureStorage?: FailureStorageBound;
  /** The standard-policy oracle (modules/policy/): without it parse-tx says "unknown" for whether the public network would relay a transaction. */
  policy?: PolicyOracle | undefined;
  /** A node with Knots' default policy (KNOTS_POLICY_RPC_URL, or embedded): the 'knots' verdict; "unknown" without. */
  knotsPolicy?: PolicyOracle | undefined;
  /** The share of the network each relay policy stands for (POLICY_NETWORK_SHARES); none unset. */
  policyShares?: PolicyShares | undefined;
  /** The public network's mempool (PUBLIC_MEMPOOL_RPC_URL): a child may be priced with a parent it holds (child pays for parent). None without. */
  publicMempool?: PublicMempool | undefined;
  /** Discount codes' generator (tests choose the codes); random without. */
  generateCode?: CodeGenerator;
  /** The background jobs' timings and their own logger (the services' without). */
  jobs?: Omit<PortalJobsDeps, 'db' | 'rpc' | 'mempool' | 'submission' | 'records' | 'log' | 'webhooks'> & { log?: Logger };
  /**
   * Webhook notifications (modules/notifications). `portalKey`: the key the
   * portal derives from AUTH_KEY_SECRET or DATA_DIR/auth-key.secret, from
   * which every signing secret is derived again when needed (never stored).
   */
  webhooks: WebhookAdapters;
  /**
   * Counters every instance shares (REDIS_URL: Redis), where the per-address
   * rate limits count (http/rate-limit-store.ts); without, each instance
   * counts in its own memory. Opened and closed by the caller.
   */
  sharedCounters?: SharedCounters | undefined;
  /** Told of each public read's node calls once it is answered (http/node-call-budget.ts): the tests count them. */
  observeNodeCalls?: NodeCallMeterOptions['observe'];
  /**
   * The portal's key secret (AUTH_KEY_SECRET or DATA_DIR/auth-key.secret):
   * it seals the receipt keys' private halves and signs quotes. Without it,
   * `webhooks.portalKey` (the same key in the runtime).
   */
  authKey?: AuthKey;
  /** How long an instance keeps what it read of the receipt keys (receipt-keys.ts RECEIPT_KEY_CACHE_MS without). */
  receiptKeyCacheMs?: number;
  /** "Email me when it is mined" (SMTP_URL): without it the status page offers no email box. */
  mail?: {
    sender: MailSender;
    publicUrl?: string | undefined;
    /** EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: new email subscriptions per client address group in any 24 hours (DEFAULT_MAX_EMAILS_PER_ADDRESS_PER_DAY without); 0 offers no email. */
    maxSubscriptionsPerAddressPerDay?: number | undefined;
    baseBackoffMs?: number;
    dispatchPollMs?: number;
  } | undefined;
}

export interface WebhookAdapters {
  portalKey: Buffer;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES. */
  allowPrivate: boolean;
  /** WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: new callback subscriptions per client address group in any 24 hours (DEFAULT_MAX_CALLBACKS_PER_ADDRESS_PER_DAY without). */
  maxSubscriptionsPerAddressPerDay?: number;
  /** Delivery timings (tests shorten them). */
  timeoutMs?: number;
  baseBackoffMs?: number;
  dispatchPollMs?: number;
}

export interface Services {
  network: string;
  settings: SettingsStore;
  audit: AuditWriter;
  records: RecordKeeper;
  metrics: Metrics;
  /** The mempool engine's read side: the dashboard's feed. */
  mempool: MempoolReader;
  submission: SubmissionService;
  status: StatusService;
  health: HealthService;
  metricsService: MetricsService;
  /** Who may see the private mempool's aggregates (the /mempool/ view, health details, an open scrape). */
  mempoolView: MempoolViewAccess;
  staff?: { verifier: TokenVerifier; login: LocalLoginService; signIn: SignInConfig };
  clients: ClientService;
  /** Clients' API keys (the Clients screen; the public API's dry run checks them through slipstreamApi). */
  apiKeys: ApiKeyService;
  /** What the Slipstream-compatible API reads beside submission and status: the best block, the portal's copies, API keys. */
  slipstreamApi: SlipstreamApiService;
  discounts: DiscountService;
  failedTxs: FailedTxService;
  settingsAdmin: SettingsService;
  auditLogs: AuditLogService;
  changeLogs: ChangeLogService;
  txPuller: TxPullerService;
  txReports: TxReportService;
  /** The synchro table: what the pool has synchronised from its node (mempool mirror, block tracker). */
  synchroTable: SynchroTableService;
  /** Callback URLs and clients' webhooks on submissions. */
  webhooks: WebhookService;
  /** A client's webhook and delivery log (the Clients screen). */
  clientWebhooks: ClientWebhookService;
  /** Addresses to email once a transaction settles. */
  emailNotify: EmailNotifyService;
  /** Tracking, retries and webhook deliveries: built here, started and stopped by the caller (never by buildApp). */
  jobs: PortalJobs;
  /** Where per-address rate limits count: shared by every instance, or undefined for this instance's memory. */
  rateLimitStore: RateLimitStoreCtor | undefined;
  /** What one public read may cost the node: the public scope runs its routes inside their budgets (http/node-call-budget.ts). */
  nodeCalls: NodeCallMeter;
  /** Fee quotes that hold (modules/quotes/): issued by the rate reads, honoured by every submission path. */
  quotes: QuoteService;
  /** Receipts of accepted submissions, their published keys, and the proof once mined (modules/receipts/). */
  receipts: ReceiptService;
}

export function createServices(adapters: Adapters): Services {
  const { db, rpc, clock, mempool, settings, audit, records, log } = adapters;
  const metrics = adapters.metrics ?? createMetrics();
  const { log: jobsLog, ...jobTimings } = adapters.jobs ?? {};
  const webhookKeys = createWebhookKeys(adapters.webhooks.portalKey);
  const webhookPolicy = { allowPrivate: adapters.webhooks.allowPrivate };
  // The services the public reads use ask the node through the meter, which holds each request to its route's budget.
  const nodeCalls = createNodeCallMeter({ log, ...(adapters.observeNodeCalls ? { observe: adapters.observeNodeCalls } : {}) });
  const meteredRpc = nodeCalls.wrap(rpc);
  const authKey = adapters.authKey ?? { key: adapters.webhooks.portalKey, source: 'the portal key' };
  const quotes = createQuoteService({ signer: createQuoteSigner(authKey.key), settings, clock });
  const receiptKeys = createReceiptKeys({ db, clock, authKey, ...(adapters.receiptKeyCacheMs !== undefined ? { cacheMs: adapters.receiptKeyCacheMs } : {}) });
  const receipts = createReceiptService({ db, rpc: meteredRpc, mempool, settings, signer: createReceiptSigner(receiptKeys), keys: receiptKeys, network: adapters.network, log });
  // One submission service: the API and the jobs (tracking, retries) submit through the same path; quotes judged and receipts signed on it.
  const submission = createSubmissionService({ db, rpc, market: adapters.market, settings, records, clock, log, bytesPerSigop: adapters.bytesPerSigop ?? DEFAULT_BYTES_PER_SIGOP, policy: adapters.policy, knotsPolicy: adapters.knotsPolicy, policyShares: adapters.policyShares, failureStorage: adapters.failureStorage, publicMempool: adapters.publicMempool, quotes, receipts });
  return {
    network: adapters.network,
    settings,
    audit,
    records,
    metrics,
    mempool,
    submission,
    status: createStatusService({ db, rpc: meteredRpc, mempool, log, nodeCalls, portalTxids: adapters.portalTxids ?? ASK_THE_DATABASE }),
    health: createHealthService({ db, mempool, clock, log }),
    metricsService: createMetricsService({ metrics, db, mempool, audit, clock, log }),
    mempoolView: createMempoolViewAccess({ settings, verifier: adapters.staff?.verifier, log }),
    ...(adapters.staff
      ? {
          staff: {
            verifier: adapters.staff.verifier,
            login: createLocalLoginService({ db: adapters.staff.accountsDb ?? db, issuer: adapters.staff.issuer, clock, metrics, log }),
            signIn: adapters.staff.signIn,
          },
        }
      : {}),
    clients: createClientService(db),
    apiKeys: createApiKeyService(db),
    slipstreamApi: createSlipstreamApiService({ db, rpc: meteredRpc }),
    discounts: createDiscountService(db, adapters.generateCode ? { generateCode: adapters.generateCode } : {}),
    failedTxs: createFailedTxService(db),
    settingsAdmin: createSettingsService({ db, settings, network: adapters.network }),
    auditLogs: createAuditLogService(db),
    changeLogs: createChangeLogService(db),
    txPuller: createTxPullerService({ db, clock }),
    txReports: createTxReportService({ db, clock }),
    synchroTable: createSynchroTableService({ mempool, clock }),
    webhooks: createWebhookService({ db, keys: webhookKeys, policy: webhookPolicy, log, maxCallbacksPerAddressPerDay: adapters.webhooks.maxSubscriptionsPerAddressPerDay ?? DEFAULT_MAX_CALLBACKS_PER_ADDRESS_PER_DAY }),
    clientWebhooks: createClientWebhookService({ db, keys: webhookKeys, policy: webhookPolicy }),
    emailNotify: createEmailNotifyService({ db, smtp: adapters.mail !== undefined, maxPerAddressPerDay: adapters.mail?.maxSubscriptionsPerAddressPerDay }),
    rateLimitStore: adapters.sharedCounters ? sharedRateLimitStore(adapters.sharedCounters) : undefined,
    jobs: createPortalJobs({
      db, rpc, mempool, submission, records, log: jobsLog ?? log, ...jobTimings,
      webhooks: { keys: webhookKeys, policy: webhookPolicy, clock, metrics, ...adapters.webhooks },
      ...(adapters.mail ? { email: { mail: adapters.mail.sender, clock, ...adapters.mail } } : {}),
    }),
    nodeCalls,
    quotes,
    receipts,
  };
}
