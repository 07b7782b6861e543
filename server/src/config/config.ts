import { isIP } from 'node:net';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../http/http-timeouts.ts';
import { DEFAULT_FAILED_TX_RETENTION_DAYS, DEFAULT_FAILURE_STORAGE, type FailureStorageBound } from '../modules/failed-txs/failed-tx-storage.ts';
import { DEFAULT_MAX_EMAILS_PER_ADDRESS_PER_DAY } from '../modules/notifications/email-subscriptions.repository.ts';
import { DEFAULT_MAX_CALLBACKS_PER_ADDRESS_PER_DAY } from '../modules/notifications/webhooks.repository.ts';

/**
 * Configuration is parsed once at start-up from one schema (docs/architecture.md,
 * convention 2). Nothing else reads process.env. Every problem is reported at
 * once so an operator fixes them in one go instead of one restart per typo.
 */

export const NETWORKS = ['mainnet', 'testnet', 'testnet4', 'signet', 'regtest'] as const;
export type Network = (typeof NETWORKS)[number];

const Port = (fallback: number, description: string) =>
  Type.Integer({ minimum: 1, maximum: 65535, default: fallback, description });

const EnvSchema = Type.Object({
  PORT: Port(8080, 'HTTP port of the portal'),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Address the portal listens on' }),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1, description: 'Directory for the embedded database and the regtest node (default .data)' })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'A Postgres server instead of the embedded PGlite database' })),
  BITCOIN_RPC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'RPC URL of your own node; then no node is downloaded or started' })),
  BITCOIN_RPC_COOKIE_FILE: Type.Optional(Type.String({ minLength: 1 })),
  BITCOIN_RPC_USER: Type.Optional(Type.String({ minLength: 1 })),
  BITCOIN_RPC_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  BITCOIN_NETWORK: Type.Optional(
    Type.Union([Type.Literal('mainnet'), Type.Literal('testnet'), Type.Literal('testnet4'), Type.Literal('signet'), Type.Literal('regtest')]),
  ),
  BITCOIN_ZMQ_URL: Type.Optional(Type.String({ pattern: '^tcp://', description: "Your own node's -zmqpubsequence endpoint (tcp://host:port): the mempool mirror follows it instead of polling" })),
  BITCOIND: Type.Optional(Type.String({ minLength: 1, description: 'A local bitcoind binary to launch instead of the downloaded one' })),
  BITCOIN_RPC_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 30_000 }),
  BITCOIN_RPC_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
  BITCOIN_BYTES_PER_SIGOP: Type.Integer({ minimum: 1, maximum: 1000, default: 20, description: "The node's -bytespersigop: submissions are priced by the node's sigop-adjusted virtual size" }),
  BLOCK_MAX_WEIGHT: Type.Integer({ minimum: 100_000, maximum: 4_000_000, default: 4_000_000, description: "The node's -blockmaxweight: the weight of the blocks it builds, which the projected blocks follow" }),
  BLOCK_MIN_TX_FEE: Type.Integer({ minimum: 0, maximum: 100_000_000, default: 1, description: "The node's -blockmintxfee in sat/kvB: packages paying less are never mined, nor projected" }),
  PENDING_SETTLE_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 120_000, description: "A submission still 'pending' this long belongs to no live request (its server stopped mid-request): the block scan records it as accepted and tracks it" }),
  REGTEST_RPC_PORT: Port(18543, 'RPC port of the embedded regtest node'),
  REGTEST_P2P_PORT: Port(18544, 'P2P port of the embedded regtest node'),
  REGTEST_ZMQ_PORT: Port(18545, 'ZMQ port of the embedded regtest node'),
  STANDARD_POLICY_RPC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: "RPC URL of a node with Bitcoin Core's default policy that follows the pool node's chain: parse-tx asks it whether the public network would relay each transaction" })),
  STANDARD_POLICY_RPC_COOKIE_FILE: Type.Optional(Type.String({ minLength: 1 })),
  STANDARD_POLICY_RPC_USER: Type.Optional(Type.String({ minLength: 1 })),
  STANDARD_POLICY_RPC_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  STANDARD_POLICY_NODE: Type.Union([Type.Literal('embedded'), Type.Literal('off')], { default: 'embedded', description: "'off': no embedded standard-policy node beside the embedded regtest node (the verdicts are then 'unknown')" }),
  POLICY_NETWORK_SHARES: Type.Optional(Type.String({ pattern: '^\\s*(core|core-29|knots)\\s*=\\s*\\d{1,3}(\\.\\d+)?\\s*(,\\s*(core|core-29|knots)\\s*=\\s*\\d{1,3}(\\.\\d+)?\\s*)*$', description: "The share of the network's nodes (percent) each relay policy stands for, e.g. 'core=80,core-29=12,knots=8' (from a node survey you trust): shown beside each policy's verdict. Unset, no share is shown" })),
  REGTEST_POLICY_RPC_PORT: Port(18547, 'RPC port of the embedded standard-policy node'),
  KNOTS_POLICY_RPC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: "RPC URL of a Bitcoin Knots node with its default policy that follows the pool node's chain: the 'knots' verdict of parse-tx" })),
  KNOTS_POLICY_RPC_COOKIE_FILE: Type.Optional(Type.String({ minLength: 1 })),
  KNOTS_POLICY_RPC_USER: Type.Optional(Type.String({ minLength: 1 })),
  KNOTS_POLICY_RPC_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  REGTEST_KNOTS_POLICY_RPC_PORT: Port(18548, "RPC port of the embedded node with Knots' default policy"),
  PUBLIC_MEMPOOL_RPC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: "RPC URL of a node that sees the public network's mempool and none of the pool node's transactions (such as the pool's edge node): a child is priced with a parent that node holds (child pays for parent). Unset, only parents the portal took or the submitter gave count" })),
  PUBLIC_MEMPOOL_RPC_COOKIE_FILE: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_MEMPOOL_RPC_USER: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_MEMPOOL_RPC_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  RATE_LIMIT_MAX: Type.Integer({ minimum: 1, default: 120, description: 'Public requests per IP per window' }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
  STATUS_STREAM_MAX: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1_000, description: 'Status-page live streams (GET /rest-api/status-stream) open at once on this instance: each holds a socket; past it a new one is refused 503 and the page polls instead. A fee spike brings thousands of watchers: raise it with the file descriptor limit' }),
  STATUS_STREAM_MAX_PER_IP: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 4, description: 'Status-page live streams one address may hold (a visitor with a status page or two); behind a NAT or a shared proxy address, raise it' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'Redis (redis://[:password@]host:6379[/db], or rediss:// for TLS) where every per-address rate limit counts, shared by every instance; unset, each instance counts its own' })),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: DEFAULT_HTTP_TIMEOUTS.requestMs, description: "A request's headers and body must arrive within this; a slower one is answered 408 and closed" }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: DEFAULT_HTTP_TIMEOUTS.headersMs, description: "A request's headers must arrive within this (at most HTTP_REQUEST_TIMEOUT_MS)" }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: DEFAULT_HTTP_TIMEOUTS.keepAliveMs, description: "An idle kept-alive connection is closed after this: keep it above the proxy's own upstream idle timeout" }),
  HTTP_IDLE_TIMEOUT_MS: Type.Integer({ minimum: 20_000, maximum: 3_600_000, default: DEFAULT_HTTP_TIMEOUTS.idleMs, description: 'A connection with no traffic either way for this long is dropped' }),
  TRUST_PROXY: Type.String({ default: 'false', description: "'false', 'true', a number of proxy hops, or a comma-separated list of proxy addresses/CIDRs" }),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: Type.Union([Type.Literal('true'), Type.Literal('false')], {
    default: 'false',
    description: "'true' lets webhook callbacks reach private, loopback and link-local addresses (a pool's own receivers); leave 'false' when strangers give callback URLs",
  }),
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: Type.Integer({ minimum: 0, maximum: 100_000, default: DEFAULT_MAX_CALLBACKS_PER_ADDRESS_PER_DAY, description: "New callback_url subscriptions one client address (an IPv6 client by its /64) may start in any 24 hours; past it a submission still succeeds, without a callback. 0: callback URLs are never subscribed. Clients' webhooks are not counted" }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://', description: "SMTP server for 'email me when it is mined' (smtp://user:pass@host:587, or smtps:// for TLS from the start); unset, the status page offers no email" })),
  EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: Type.Integer({ minimum: 0, maximum: 100_000, default: DEFAULT_MAX_EMAILS_PER_ADDRESS_PER_DAY, description: "New 'email me when it is mined' requests one client address (an IPv6 client by its /64) may make in any 24 hours; past it a request is answered 429. 0: the status page offers no email. The same address again for the same transaction is not a new one" }),
  SMTP_FROM: Type.String({ minLength: 3, default: 'Slipstream portal <no-reply@localhost>', description: 'The From address of notification emails' }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: "The portal's public address (https://pool.example.com), for links in notification emails" })),
  CORS_ORIGINS: Type.Optional(Type.String({ description: 'Comma-separated origins (scheme://host[:port]) whose web pages may call the public API (/api/*, the public /rest-api/* routes) from a browser; unset, any origin may. Staff routes never answer another origin' })),
  LOG_LEVEL: Type.Union(
    [Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')],
    { default: 'info' },
  ),
  OIDC_ISSUER: Type.Optional(Type.String({ pattern: '^https?://', description: 'Issuer URL of your OpenID Connect provider; without it a local development provider is started' })),
  OIDC_CLIENT_ID: Type.String({ minLength: 1, default: 'slipstream-portal', description: "The portal's client id at the provider: the audience of the ID tokens staff send" }),
  OIDC_API_AUDIENCE: Type.Optional(Type.String({ minLength: 1, description: 'Accept access tokens for this audience instead of ID tokens' })),
  OIDC_ADMIN_GROUP: Type.String({ minLength: 1, default: 'app-slipstream-users', description: 'Members of this group may change data' }),
  DEV_IDP_PORT: Port(18546, 'Port of the local development identity provider'),
  NODE_ENV: Type.Optional(Type.String({ description: "'production' refuses the local development identity provider" })),
  AUDIT_PAYLOAD_MAX_CHARS: Type.Integer({ minimum: 256, maximum: 1_000_000, default: 4096 }),
  FAILED_TX_MAX_ROWS_PER_ADDRESS_PER_DAY: Type.Integer({ minimum: 0, maximum: 100_000, default: DEFAULT_FAILURE_STORAGE.maxRowsPerAddressPerDay, description: 'New failed-submission rows kept for retry per client address (an IPv6 client by its /64) in any 24 hours; past it a retryable failure is refused but not kept' }),
  FAILED_TX_MAX_BYTES_PER_ADDRESS_PER_DAY: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: DEFAULT_FAILURE_STORAGE.maxBytesPerAddressPerDay, description: 'Bytes of transaction hex those rows may hold per client address in any 24 hours (the default holds one transaction of the largest size)' }),
  FAILED_TX_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: DEFAULT_FAILED_TX_RETENTION_DAYS, description: 'Failed submissions untouched (no new failure, no retry) for this many days are deleted' }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'Bearer token GET /rest-api/metrics requires; unset, the Prometheus scrape is open' })),
  AUTH_KEY_SECRET: Type.Optional(Type.String({ minLength: 32, description: "Seals the private halves of the portal's signing keys for local staff tokens in the database (32+ characters, e.g. 32 random bytes in base64); unset, a secret made in DATA_DIR/auth-key.secret. Instances sharing a database must share it" })),
});

type Env = Static<typeof EnvSchema>;

export type NodeConfig =
  | {
      kind: 'external';
      rpcUrl: string;
      auth: { kind: 'cookie'; cookieFile: string } | { kind: 'userpass'; user: string; password: string };
      /** The node's -zmqpubsequence endpoint, when it publishes one; otherwise the mempool mirror polls. */
      zmqUrl?: string;
    }
  | {
      kind: 'embedded';
      bitcoindPath: string | undefined;
      cacheDir: string;
      datadir: string;
      rpcPort: number;
      p2pPort: number;
      zmqPort: number;
    };

/** The node whose mempool is the public network's (PUBLIC_MEMPOOL_RPC_URL), or none. */
export type PublicMempoolConfig = { kind: 'external'; rpcUrl: string; auth: { kind: 'cookie'; cookieFile: string } | { kind: 'userpass'; user: string; password: string } } | { kind: 'off' };

/** Where the standard-policy oracle is (modules/policy/): the operator's node, one beside the embedded regtest node, or none. */
export type StandardPolicyConfig =
  | { kind: 'external'; rpcUrl: string; auth: { kind: 'cookie'; cookieFile: string } | { kind: 'userpass'; user: string; password: string } }
  | { kind: 'embedded'; datadir: string; rpcPort: number }
  | { kind: 'off' };

export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  database: { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };
  node: NodeConfig;
  standardPolicy: StandardPolicyConfig;
  /** The node with Bitcoin Knots' default policy (the 'knots' verdict): the operator's, one beside the embedded regtest node, or none. */
  knotsPolicy: StandardPolicyConfig;
  /** POLICY_NETWORK_SHARES: each relay policy's share of the network's nodes, percent; empty unset. */
  policyShares: Partial<Record<'core' | 'core-29' | 'knots', number>>;
  publicMempool: PublicMempoolConfig;
  network: Network | undefined;
  rpc: { timeoutMs: number; concurrency: number };
  bytesPerSigop: number;
  /** The node's block-building policy (-blockmaxweight, -blockmintxfee in sat/kvB): its RPC does not report them. */
  blockPolicy: { maxBlockWeight: number; minFeeRatePerKvB: number };
  /** After this long a 'pending' submission row is settled by the block scan (its request's server died). */
  pendingSettleMs: number;
  rateLimit: { max: number; windowMs: number };
  statusStreams: { maxStreams: number; maxStreamsPerIp: number };
  /** Redis, where the per-address rate limits of every instance count (http/rate-limit-store.ts); undefined: each instance its own. */
  redisUrl: string | undefined;
  /** The HTTP server's timeouts (http/http-timeouts.ts). */
  httpTimeouts: HttpTimeouts;
  trustProxy: boolean | number | string[];
  /** Webhook deliveries (modules/notifications): whether private destinations are allowed, and new callback subscriptions per client address a day. */
  webhooks: { allowPrivate: boolean; maxSubscriptionsPerAddressPerDay: number };
  /** Notification emails: the SMTP server and From address; undefined, none are sent. */
  smtp: { url: string; from: string } | undefined;
  /** "Email me when it is mined": new requests per client address a day (0: not offered). */
  email: { maxSubscriptionsPerAddressPerDay: number };
  /** The portal's public address, for links in emails. */
  publicUrl: string | undefined;
  /** Origins allowed to call the API cross-origin (CORS); empty: same-origin only. */
  corsOrigins: string[];
  logLevel: string;
  auditPayloadMaxChars: number;
  /** Failed submissions kept for retry: what one client address may store in a day, and how long rows are kept. */
  failedTxStorage: FailureStorageBound & { retentionDays: number };
  /** Bearer token of the Prometheus scrape; undefined leaves it open. */
  metricsToken: string | undefined;
  /** Seals the local sign-in signing keys (AUTH_KEY_SECRET); undefined: the secret in DATA_DIR/auth-key.secret. */
  authKeySecret: string | undefined;
  webDistDir: string;
  identity:
    | { kind: 'external'; issuer: string; clientId: string; apiAudience: string | undefined; adminGroup: string }
    | { kind: 'embedded'; port: number; clientId: string; adminGroup: string };
  production: boolean;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface ConfigContext {
  /** Repository root: defaults for data and cache directories live under it. */
  repoRoot: string;
}

export function parseConfig(rawEnv: Record<string, string | undefined>, context: ConfigContext): AppConfig {
  // Only our own keys are read, and an empty string counts as unset.
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = rawEnv[key];
    if (value !== undefined && value.trim() !== '') picked[key] = value.trim();
  }
  const withDefaults = Value.Convert(EnvSchema, Value.Default(EnvSchema, { ...picked })) as Record<string, unknown>;
  // TypeBox's Convert reads '1.5' as 1, 'true' as 1 and '0x10' as 16 for an
  // integer; only plain decimal digits are a number here, anything else stays
  // text so that validation reports it.
  for (const [key, text] of Object.entries(picked)) {
    const schema = (EnvSchema.properties as Record<string, { type?: unknown }>)[key];
    if (schema?.type === 'integer' && !/^[+-]?\d+$/.test(text)) withDefaults[key] = text;
  }
  // Cross-field rules below read only presence and equality, so they run on
  // the raw values too: every problem is reported in one go.
  const problems = schemaProblems(withDefaults);
  const env = withDefaults as Env;

  const hasUser = env.BITCOIN_RPC_USER !== undefined || env.BITCOIN_RPC_PASSWORD !== undefined;
  if (env.BITCOIN_RPC_URL) {
    if (env.BITCOIN_RPC_COOKIE_FILE && hasUser) problems.push('Set BITCOIN_RPC_COOKIE_FILE or BITCOIN_RPC_USER/BITCOIN_RPC_PASSWORD, not both');
    if (!env.BITCOIN_RPC_COOKIE_FILE && !(env.BITCOIN_RPC_USER && env.BITCOIN_RPC_PASSWORD)) {
      problems.push('BITCOIN_RPC_URL needs BITCOIN_RPC_COOKIE_FILE, or both BITCOIN_RPC_USER and BITCOIN_RPC_PASSWORD');
    }
    if (env.BITCOIND) problems.push('BITCOIND launches a local node and cannot be combined with BITCOIN_RPC_URL');
  } else {
    if (env.BITCOIN_RPC_COOKIE_FILE || hasUser) problems.push('BITCOIN_RPC_COOKIE_FILE/USER/PASSWORD need BITCOIN_RPC_URL');
    if (env.BITCOIN_ZMQ_URL) problems.push('BITCOIN_ZMQ_URL needs BITCOIN_RPC_URL: the embedded node publishes on REGTEST_ZMQ_PORT');
    // An invalid network name is already reported above; this is about a valid one.
    if (env.BITCOIN_NETWORK && NETWORKS.includes(env.BITCOIN_NETWORK) && env.BITCOIN_NETWORK !== 'regtest') {
      problems.push(`BITCOIN_NETWORK=${env.BITCOIN_NETWORK} needs BITCOIN_RPC_URL: the embedded node only runs regtest`);
    }
  }
  problems.push(...rpcCredentialProblems('STANDARD_POLICY', env), ...rpcCredentialProblems('KNOTS_POLICY', env), ...rpcCredentialProblems('PUBLIC_MEMPOOL', env));
  if (typeof env.POLICY_NETWORK_SHARES === 'string') {
    const names = env.POLICY_NETWORK_SHARES.split(',').map((pair) => pair.split('=')[0]!.trim());
    if (new Set(names).size < names.length) problems.push('POLICY_NETWORK_SHARES names each policy once');
    const shares = Object.values(parsePolicyShares(env.POLICY_NETWORK_SHARES));
    if (shares.some((share) => share > 100) || shares.reduce((sum, share) => sum + share, 0) > 100) problems.push('POLICY_NETWORK_SHARES are percentages of the network: each and their sum at most 100');
  }
  // The embedded standard-policy node follows the embedded regtest node; beside an operator's node, the operator runs their own.
  const embeddedPolicy = !env.BITCOIN_RPC_URL && !env.STANDARD_POLICY_RPC_URL && env.STANDARD_POLICY_NODE !== 'off';
  const embeddedKnotsPolicy = !env.BITCOIN_RPC_URL && !env.KNOTS_POLICY_RPC_URL && env.STANDARD_POLICY_NODE !== 'off';
  const ports = [
    env.PORT,
    ...(env.BITCOIN_RPC_URL ? [] : [env.REGTEST_RPC_PORT, env.REGTEST_P2P_PORT, env.REGTEST_ZMQ_PORT]),
    ...(embeddedPolicy ? [env.REGTEST_POLICY_RPC_PORT] : []),
    ...(embeddedKnotsPolicy ? [env.REGTEST_KNOTS_POLICY_RPC_PORT] : []),
    ...(env.OIDC_ISSUER ? [] : [env.DEV_IDP_PORT]),
  ];
  if (new Set(ports).size !== ports.length) {
    problems.push('PORT and the ports of the embedded nodes (REGTEST_RPC_PORT, REGTEST_P2P_PORT, REGTEST_ZMQ_PORT, REGTEST_POLICY_RPC_PORT, REGTEST_KNOTS_POLICY_RPC_PORT) and identity provider (DEV_IDP_PORT) must all differ');
  }
  // A live request keeps its row pending while it waits for the node, at most twice (sendrawtransaction, then getmempoolentry).
  if (Number.isInteger(env.PENDING_SETTLE_MS) && Number.isInteger(env.BITCOIN_RPC_TIMEOUT_MS) && env.PENDING_SETTLE_MS < 2 * env.BITCOIN_RPC_TIMEOUT_MS) {
    problems.push(`PENDING_SETTLE_MS must be at least twice BITCOIN_RPC_TIMEOUT_MS (${2 * env.BITCOIN_RPC_TIMEOUT_MS}), or a request still waiting for the node could see its row settled under it`);
  }
  if (Number.isInteger(env.HTTP_HEADERS_TIMEOUT_MS) && Number.isInteger(env.HTTP_REQUEST_TIMEOUT_MS) && env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push(`HTTP_HEADERS_TIMEOUT_MS (${env.HTTP_HEADERS_TIMEOUT_MS}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${env.HTTP_REQUEST_TIMEOUT_MS})`);
  }
  // A submission may wait for two node calls before its first byte of answer: its connection must not be dropped as idle meanwhile.
  if (Number.isInteger(env.HTTP_IDLE_TIMEOUT_MS) && Number.isInteger(env.BITCOIN_RPC_TIMEOUT_MS) && env.HTTP_IDLE_TIMEOUT_MS <= 2 * env.BITCOIN_RPC_TIMEOUT_MS) {
    problems.push(`HTTP_IDLE_TIMEOUT_MS (${env.HTTP_IDLE_TIMEOUT_MS}) must be more than twice BITCOIN_RPC_TIMEOUT_MS (${2 * env.BITCOIN_RPC_TIMEOUT_MS}), or a request still waiting for the node could lose its connection`);
  }
  if (typeof env.TRUST_PROXY === 'string') problems.push(...trustProxyProblems(env.TRUST_PROXY));
  if (typeof env.CORS_ORIGINS === 'string') problems.push(...corsOriginProblems(env.CORS_ORIGINS));
  const production = env.NODE_ENV === 'production';
  if (production && !env.OIDC_ISSUER) {
    problems.push('NODE_ENV=production needs OIDC_ISSUER: the local development identity provider does not run in production');
  }
  if (production && typeof env.OIDC_ISSUER === 'string' && !isHttpsUrl(env.OIDC_ISSUER)) {
    // The discovery document and the JWKS are fetched from the issuer: over plain http anyone on the path could
    // answer with their own keys and sign any staff token (OpenID Connect Discovery 1.0 section 4: issuers use https).
    problems.push(`OIDC_ISSUER must be an https:// URL with NODE_ENV=production (got '${env.OIDC_ISSUER}'): the portal trusts whatever keys that address serves`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = path.resolve(context.repoRoot, env.DATA_DIR ?? '.data');
  const node: NodeConfig = env.BITCOIN_RPC_URL
    ? {
        kind: 'external',
        rpcUrl: env.BITCOIN_RPC_URL,
        auth: env.BITCOIN_RPC_COOKIE_FILE
          ? { kind: 'cookie', cookieFile: env.BITCOIN_RPC_COOKIE_FILE }
          : { kind: 'userpass', user: env.BITCOIN_RPC_USER!, password: env.BITCOIN_RPC_PASSWORD! },
        ...(env.BITCOIN_ZMQ_URL ? { zmqUrl: env.BITCOIN_ZMQ_URL } : {}),
      }
    : {
        kind: 'embedded',
        bitcoindPath: env.BITCOIND,
        cacheDir: path.resolve(context.repoRoot, '.cache/bitcoin-knots'),
        datadir: path.join(dataDir, 'bitcoind'),
        rpcPort: env.REGTEST_RPC_PORT,
        p2pPort: env.REGTEST_P2P_PORT,
        zmqPort: env.REGTEST_ZMQ_PORT,
      };

  const standardPolicy = policyNodeConfig('STANDARD_POLICY', env, embeddedPolicy ? { kind: 'embedded', datadir: path.join(dataDir, 'bitcoind-policy'), rpcPort: env.REGTEST_POLICY_RPC_PORT } : { kind: 'off' });
  const knotsPolicy = policyNodeConfig('KNOTS_POLICY', env, embeddedKnotsPolicy ? { kind: 'embedded', datadir: path.join(dataDir, 'bitcoind-knots-policy'), rpcPort: env.REGTEST_KNOTS_POLICY_RPC_PORT } : { kind: 'off' });

  const publicMempool: PublicMempoolConfig = env.PUBLIC_MEMPOOL_RPC_URL
    ? {
        kind: 'external',
        rpcUrl: env.PUBLIC_MEMPOOL_RPC_URL,
        auth: env.PUBLIC_MEMPOOL_RPC_COOKIE_FILE
          ? { kind: 'cookie', cookieFile: env.PUBLIC_MEMPOOL_RPC_COOKIE_FILE }
          : { kind: 'userpass', user: env.PUBLIC_MEMPOOL_RPC_USER!, password: env.PUBLIC_MEMPOOL_RPC_PASSWORD! },
      }
    : { kind: 'off' };

  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    database: env.DATABASE_URL ? { kind: 'postgres', url: env.DATABASE_URL } : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    node,
    standardPolicy,
    knotsPolicy,
    policyShares: parsePolicyShares(env.POLICY_NETWORK_SHARES),
    publicMempool,
    network: env.BITCOIN_NETWORK ?? (node.kind === 'embedded' ? 'regtest' : undefined),
    rpc: { timeoutMs: env.BITCOIN_RPC_TIMEOUT_MS, concurrency: env.BITCOIN_RPC_CONCURRENCY },
    bytesPerSigop: env.BITCOIN_BYTES_PER_SIGOP,
    blockPolicy: { maxBlockWeight: env.BLOCK_MAX_WEIGHT, minFeeRatePerKvB: env.BLOCK_MIN_TX_FEE },
    pendingSettleMs: env.PENDING_SETTLE_MS,
    rateLimit: { max: env.RATE_LIMIT_MAX, windowMs: env.RATE_LIMIT_WINDOW_MS },
    statusStreams: { maxStreams: env.STATUS_STREAM_MAX, maxStreamsPerIp: env.STATUS_STREAM_MAX_PER_IP },
    redisUrl: env.REDIS_URL,
    httpTimeouts: { requestMs: env.HTTP_REQUEST_TIMEOUT_MS, headersMs: env.HTTP_HEADERS_TIMEOUT_MS, keepAliveMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS, idleMs: env.HTTP_IDLE_TIMEOUT_MS },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    webhooks: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES === 'true', maxSubscriptionsPerAddressPerDay: env.WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY },
    smtp: env.SMTP_URL === undefined ? undefined : { url: env.SMTP_URL, from: env.SMTP_FROM },
    email: { maxSubscriptionsPerAddressPerDay: env.EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY },
    publicUrl: env.PUBLIC_URL,
    corsOrigins: env.CORS_ORIGINS === undefined ? [] : commaList(env.CORS_ORIGINS),
    logLevel: env.LOG_LEVEL,
    auditPayloadMaxChars: env.AUDIT_PAYLOAD_MAX_CHARS,
    failedTxStorage: {
      maxRowsPerAddressPerDay: env.FAILED_TX_MAX_ROWS_PER_ADDRESS_PER_DAY,
      maxBytesPerAddressPerDay: env.FAILED_TX_MAX_BYTES_PER_ADDRESS_PER_DAY,
      retentionDays: env.FAILED_TX_RETENTION_DAYS,
    },
    metricsToken: env.METRICS_TOKEN,
    authKeySecret: env.AUTH_KEY_SECRET,
    webDistDir: path.resolve(context.repoRoot, 'web/dist'),
    identity: env.OIDC_ISSUER
      ? { kind: 'external', issuer: env.OIDC_ISSUER, clientId: env.OIDC_CLIENT_ID, apiAudience: env.OIDC_API_AUDIENCE, adminGroup: env.OIDC_ADMIN_GROUP }
      : { kind: 'embedded', port: env.DEV_IDP_PORT, clientId: env.OIDC_CLIENT_ID, adminGroup: env.OIDC_ADMIN_GROUP },
    production,
  };
}

const commaList = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

/**
 * Fastify's trustProxy (proxy-addr): with a hop count or a list of proxies the
 * client address is the right-most one not trusted, so an X-Forwarded-For a
 * client made up before the proxy's own entry changes nothing; with 'true'
 * every hop is trusted and the left-most entry, which anyone can write, wins.
 */
function parseTrustProxy(value: string): boolean | number | string[] {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return commaList(value);
}

/** proxy-addr's names for address ranges, besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isHttpsUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && url.protocol === 'https:' && url.hostname !== '';
}

function trustProxyProblems(value: string): string[] {
  if (value === 'false' || value === 'true' || /^\d+$/.test(value)) return [];
  const bad = commaList(value).filter((entry) => {
    if (PROXY_RANGE_NAMES.has(entry)) return false;
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || rest.length > 0) return true;
    // A prefix length, or for IPv4 a netmask (10.0.0.0/255.0.0.0).
    return bits !== undefined && !((/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)) || (family === 4 && isIP(bits) === 4));
  });
  return bad.length > 0
    ? [`TRUST_PROXY must be 'false', 'true', a number of hops, or addresses/CIDRs (or loopback, linklocal, uniquelocal); not ${bad.map((b) => `'${b}'`).join(', ')}`]
    : [];
}

/** Each entry must be exactly an origin as a browser sends it in the Origin header: no path, no trailing slash. */
function corsOriginProblems(value: string): string[] {
  const bad = commaList(value).filter((entry) => {
    if (!URL.canParse(entry)) return true;
    const url = new URL(entry);
    return (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== entry;
  });
  return bad.length > 0 ? [`CORS_ORIGINS entries must be origins such as https://portal.example.com (scheme, host, optional port; no path); not ${bad.map((b) => `'${b}'`).join(', ')}`] : [];
}

/** Values are echoed to help, but never a password, in a setting or inside a URL. */
function redactValue(key: string, value: unknown): string {
  if (/PASSWORD|SECRET|TOKEN/.test(key)) return '***';
  const text = String(value);
  // A Redis URL's password often comes without a user name (redis://:secret@host).
  return text.replace(/\/\/([^:/@\s]*):([^@/\s]+)@/, '//$1:***@');
}

/** One readable line per offending variable, rather than TypeBox's per-branch noise. */
function schemaProblems(value: unknown): string[] {
  const byKey = new Map<string, string>();
  for (const error of Value.Errors(EnvSchema, value)) {
    const key = error.instancePath.replace(/^\//, '');
    if (byKey.has(key)) continue;
    const schema = (EnvSchema.properties as Record<string, unknown>)[key] as { anyOf?: Array<{ const: string }> } | undefined;
    const allowed = schema?.anyOf?.map((s) => s.const);
    const got = (value as Record<string, unknown>)[key];
    const shown = redactValue(key, got);
    byKey.set(key, allowed ? `${key} must be one of ${allowed.join(', ')} (got '${shown}')` : `${key} ${error.message} (got '${shown}')`);
  }
  return [...byKey.values()];
}

/** Every setting's name, for the test that keeps the README's configuration reference complete. */
export function settingNames(): string[] {
  return Object.keys(EnvSchema.properties);
}

/**
 * The problems with one optional node's `${prefix}_RPC_URL` and its
 * credentials: a cookie file, or a user and password, not both, and none
 * without the URL.
 */
function rpcCredentialProblems(prefix: 'STANDARD_POLICY' | 'KNOTS_POLICY' | 'PUBLIC_MEMPOOL', env: Partial<Record<string, unknown>>): string[] {
  const [url, cookie, user, password] = ['URL', 'COOKIE_FILE', 'USER', 'PASSWORD'].map((name) => env[`${prefix}_RPC_${name}`] as string | undefined);
  const hasUser = user !== undefined || password !== undefined;
  if (!url) return cookie || hasUser ? [`${prefix}_RPC_COOKIE_FILE/USER/PASSWORD need ${prefix}_RPC_URL`] : [];
  const problems: string[] = [];
  if (cookie && hasUser) problems.push(`Set ${prefix}_RPC_COOKIE_FILE or ${prefix}_RPC_USER/${prefix}_RPC_PASSWORD, not both`);
  if (!cookie && !(user && password)) problems.push(`${prefix}_RPC_URL needs ${prefix}_RPC_COOKIE_FILE, or both ${prefix}_RPC_USER and ${prefix}_RPC_PASSWORD`);
  return problems;
}

/** A policy node's configuration: the operator's at <prefix>_RPC_URL with its credentials, else `otherwise`. */
function policyNodeConfig(prefix: 'STANDARD_POLICY' | 'KNOTS_POLICY', env: Partial<Record<string, unknown>>, otherwise: StandardPolicyConfig): StandardPolicyConfig {
  const [url, cookie, user, password] = ['URL', 'COOKIE_FILE', 'USER', 'PASSWORD'].map((name) => env[`${prefix}_RPC_${name}`] as string | undefined);
  if (!url) return otherwise;
  return { kind: 'external', rpcUrl: url, auth: cookie ? { kind: 'cookie', cookieFile: cookie } : { kind: 'userpass', user: user!, password: password! } };
}

/** 'core=80,core-29=12,knots=8' → { core: 80, 'core-29': 12, knots: 8 } (the pattern has checked its shape). */
function parsePolicyShares(text: string | undefined): AppConfig['policyShares'] {
  const shares: AppConfig['policyShares'] = {};
  for (const pair of text?.split(',') ?? []) {
    const [name, value] = pair.split('=').map((part) => part.trim()) as ['core' | 'core-29' | 'knots', string];
    shares[name] = Number(value);
  }
  return shares;
}
