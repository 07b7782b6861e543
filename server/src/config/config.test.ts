import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, parseConfig, settingNames } from './config.ts';

const repoRoot = path.resolve('/srv/portal');
const parse = (env: Record<string, string | undefined>) => parseConfig(env, { repoRoot });

/** The ConfigError `env` raises (the test fails if it raises nothing or something else). */
function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    parse(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    // The message lists every problem too, for the operator reading the start-up log.
    for (const problem of error.problems) assert.ok(error.message.includes(problem), `message lists "${problem}"`);
    return error.problems;
  }
  assert.fail(`expected a ConfigError for ${JSON.stringify(env)}`);
}

test('defaults: embedded regtest node, PGlite under <repo>/.data, port 8080', () => {
  const config = parse({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.network, 'regtest');
  assert.equal(config.dataDir, path.join(repoRoot, '.data'));
  assert.deepEqual(config.database, { kind: 'pglite', dataDir: path.join(repoRoot, '.data', 'pglite') });
  assert.deepEqual(config.node, {
    kind: 'embedded',
    bitcoindPath: undefined,
    cacheDir: path.join(repoRoot, '.cache', 'bitcoin-knots'),
    datadir: path.join(repoRoot, '.data', 'bitcoind'),
    rpcPort: 18543,
    p2pPort: 18544,
    zmqPort: 18545,
  });
  assert.deepEqual(config.rpc, { timeoutMs: 30_000, concurrency: 8 });
  assert.deepEqual(config.rateLimit, { max: 120, windowMs: 60_000 });
  assert.equal(config.trustProxy, false);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.auditPayloadMaxChars, 4096);
  assert.equal(config.webDistDir, path.join(repoRoot, 'web', 'dist'));
});

test('numbers are converted from their environment text; DATA_DIR is resolved against the repo', () => {
  const config = parse({ PORT: '9090', BITCOIN_RPC_CONCURRENCY: '3', DATA_DIR: 'var/data', BITCOIND: '/opt/core/bitcoind' });
  assert.equal(config.port, 9090);
  assert.equal(config.rpc.concurrency, 3);
  assert.equal(config.dataDir, path.join(repoRoot, 'var', 'data'));
  assert.deepEqual(config.database, { kind: 'pglite', dataDir: path.join(repoRoot, 'var', 'data', 'pglite') });
  assert.equal(config.node.kind === 'embedded' && config.node.bitcoindPath, '/opt/core/bitcoind');
  assert.equal(config.node.kind === 'embedded' && config.node.datadir, path.join(repoRoot, 'var', 'data', 'bitcoind'));
});

test('DATABASE_URL selects Postgres', () => {
  const url = 'postgres://portal:secret@db.internal:5432/portal';
  assert.deepEqual(parse({ DATABASE_URL: url }).database, { kind: 'postgres', url });
  assert.deepEqual(parse({ DATABASE_URL: 'postgresql://db/portal' }).database, { kind: 'postgres', url: 'postgresql://db/portal' });
  assert.equal(problemsOf({ DATABASE_URL: 'mysql://db/portal' }).length, 1);
});

test('BITCOIN_RPC_URL with a cookie file is an external node', () => {
  const config = parse({ BITCOIN_RPC_URL: 'http://10.0.0.5:8332', BITCOIN_RPC_COOKIE_FILE: '/var/lib/bitcoind/.cookie', BITCOIN_NETWORK: 'mainnet' });
  assert.deepEqual(config.node, { kind: 'external', rpcUrl: 'http://10.0.0.5:8332', auth: { kind: 'cookie', cookieFile: '/var/lib/bitcoind/.cookie' } });
  assert.equal(config.network, 'mainnet');
});

test('BITCOIN_RPC_URL with user and password is an external node', () => {
  const config = parse({ BITCOIN_RPC_URL: 'https://node.pool.example/rpc', BITCOIN_RPC_USER: 'portal', BITCOIN_RPC_PASSWORD: 'pa ss' });
  assert.deepEqual(config.node, { kind: 'external', rpcUrl: 'https://node.pool.example/rpc', auth: { kind: 'userpass', user: 'portal', password: 'pa ss' } });
  // An external node's network is whatever the node says, unless configured.
  assert.equal(config.network, undefined);
});

test('BITCOIN_ZMQ_URL gives an external node\'s ZMQ sequence endpoint, and means nothing without BITCOIN_RPC_URL', () => {
  const config = parse({ BITCOIN_RPC_URL: 'http://10.0.0.5:8332', BITCOIN_RPC_COOKIE_FILE: '/c', BITCOIN_ZMQ_URL: 'tcp://10.0.0.5:28332' });
  assert.equal(config.node.kind === 'external' && config.node.zmqUrl, 'tcp://10.0.0.5:28332');
  assert.match(problemsOf({ BITCOIN_ZMQ_URL: 'tcp://127.0.0.1:28332' })[0]!, /BITCOIN_ZMQ_URL needs BITCOIN_RPC_URL/);
  assert.match(problemsOf({ BITCOIN_RPC_URL: 'http://10.0.0.5:8332', BITCOIN_RPC_COOKIE_FILE: '/c', BITCOIN_ZMQ_URL: 'ipc:///tmp/zmq' })[0]!, /^BITCOIN_ZMQ_URL/);
});

test('BITCOIN_RPC_URL without credentials is refused, naming what is missing', () => {
  const problems = problemsOf({ BITCOIN_RPC_URL: 'http://10.0.0.5:8332' });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /BITCOIN_RPC_URL needs BITCOIN_RPC_COOKIE_FILE, or both BITCOIN_RPC_USER and BITCOIN_RPC_PASSWORD/);
  // A user without a password is not enough either.
  assert.match(problemsOf({ BITCOIN_RPC_URL: 'http://10.0.0.5:8332', BITCOIN_RPC_USER: 'portal' }).join('\n'), /both BITCOIN_RPC_USER and BITCOIN_RPC_PASSWORD/);
});

test('contradictory node settings are refused', () => {
  const both = problemsOf({ BITCOIN_RPC_URL: 'http://n:8332', BITCOIN_RPC_COOKIE_FILE: '/c', BITCOIN_RPC_USER: 'u', BITCOIN_RPC_PASSWORD: 'p' });
  assert.match(both.join('\n'), /not both/);
  assert.match(problemsOf({ BITCOIN_RPC_URL: 'http://n:8332', BITCOIN_RPC_COOKIE_FILE: '/c', BITCOIND: '/usr/bin/bitcoind' }).join('\n'), /BITCOIND/);
  assert.match(problemsOf({ BITCOIN_RPC_COOKIE_FILE: '/c' }).join('\n'), /need BITCOIN_RPC_URL/);
  assert.match(problemsOf({ PORT: '18543' }).join('\n'), /must all differ/);
});

test('several bad values are reported together in one ConfigError', () => {
  const problems = problemsOf({ PORT: 'abc', LOG_LEVEL: 'loud', BITCOIN_NETWORK: 'moon' });
  assert.equal(problems.length, 3, problems.join('\n'));
  const find = (name: string) => problems.find((p) => p.startsWith(`${name} `));
  assert.match(find('PORT') ?? '', /'abc'/);
  assert.match(find('LOG_LEVEL') ?? '', /one of fatal, error, warn, info, debug, trace, silent \(got 'loud'\)/);
  assert.match(find('BITCOIN_NETWORK') ?? '', /one of mainnet, testnet, testnet4, signet, regtest \(got 'moon'\)/);
});

test('numbers out of range, or not plain decimal integers, are refused rather than rounded', () => {
  assert.match(problemsOf({ PORT: '70000' }).join('\n'), /^PORT .*'70000'/);
  assert.match(problemsOf({ BITCOIN_RPC_CONCURRENCY: '0' }).join('\n'), /^BITCOIN_RPC_CONCURRENCY /);
  for (const text of ['1.5', 'true', '0x50', '1e3', '80abc']) {
    assert.deepEqual(problemsOf({ RATE_LIMIT_MAX: text }), [`RATE_LIMIT_MAX must be integer (got '${text}')`]);
  }
  assert.equal(parse({ RATE_LIMIT_MAX: ' 42 ' }).rateLimit.max, 42);
});

test('status-page streams: 1,000 at once and 4 an address by default; both can be raised for a fee spike', () => {
  assert.deepEqual(parse({}).statusStreams, { maxStreams: 1_000, maxStreamsPerIp: 4 });
  assert.deepEqual(parse({ STATUS_STREAM_MAX: '6000', STATUS_STREAM_MAX_PER_IP: '20' }).statusStreams, { maxStreams: 6_000, maxStreamsPerIp: 20 });
  assert.match(problemsOf({ STATUS_STREAM_MAX: '0' }).join('\n'), /^STATUS_STREAM_MAX /);
});

test('BITCOIN_NETWORK other than regtest needs an RPC URL: the embedded node only runs regtest', () => {
  assert.match(problemsOf({ BITCOIN_NETWORK: 'mainnet' }).join('\n'), /BITCOIN_NETWORK=mainnet needs BITCOIN_RPC_URL/);
  assert.match(problemsOf({ BITCOIN_NETWORK: 'signet' }).join('\n'), /BITCOIN_NETWORK=signet needs BITCOIN_RPC_URL/);
  assert.equal(parse({ BITCOIN_NETWORK: 'regtest' }).network, 'regtest');
});

test('empty and blank values count as unset', () => {
  const config = parse({
    PORT: '',
    LOG_LEVEL: '   ',
    DATABASE_URL: '',
    BITCOIN_RPC_URL: '',
    BITCOIN_RPC_USER: '',
    BITCOIN_RPC_PASSWORD: '',
    BITCOIN_NETWORK: '',
    TRUST_PROXY: '',
  });
  assert.deepEqual(config, parse({}));
});

test('variables that are not settings are ignored', () => {
  assert.deepEqual(parse({ HOME: '/root', PATH: '/usr/bin', npm_config_port: 'x' }), parse({}));
});

test('TRUST_PROXY: false, true, or a list of proxies', () => {
  assert.equal(parse({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(parse({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.deepEqual(parse({ TRUST_PROXY: '10.0.0.1' }).trustProxy, ['10.0.0.1']);
  assert.deepEqual(parse({ TRUST_PROXY: ' 10.0.0.1, 192.168.0.0/16 ,,::1 ' }).trustProxy, ['10.0.0.1', '192.168.0.0/16', '::1']);
  assert.deepEqual(parse({ TRUST_PROXY: 'loopback, 10.0.0.0/255.0.0.0, fd00::/8' }).trustProxy, ['loopback', '10.0.0.0/255.0.0.0', 'fd00::/8']);
});

test('TRUST_PROXY: a number of hops; entries that are not addresses are refused at start-up, not when the first request comes', () => {
  assert.equal(parse({ TRUST_PROXY: '1' }).trustProxy, 1);
  assert.equal(parse({ TRUST_PROXY: '2' }).trustProxy, 2);
  for (const bad of ['proxy.internal', '10.0.0.1/33', '::1/129', '10.0.0.1/8/8', 'yes', '-1']) {
    assert.deepEqual(problemsOf({ TRUST_PROXY: bad }), [`TRUST_PROXY must be 'false', 'true', a number of hops, or addresses/CIDRs (or loopback, linklocal, uniquelocal); not '${bad}'`], bad);
  }
});

test('CORS_ORIGINS: none by default (same-origin only), or a list of exact origins', () => {
  assert.deepEqual(parse({}).corsOrigins, []);
  assert.deepEqual(parse({ CORS_ORIGINS: 'https://ops.example.com, http://localhost:5173 ,' }).corsOrigins, ['https://ops.example.com', 'http://localhost:5173']);
  for (const bad of ['*', 'ops.example.com', 'https://ops.example.com/', 'https://ops.example.com/path', 'ftp://ops.example.com', 'https://OPS.example.com', 'null']) {
    const problems = problemsOf({ CORS_ORIGINS: `https://fine.example, ${bad}` });
    assert.equal(problems.length, 1, bad);
    assert.match(problems[0]!, /^CORS_ORIGINS entries must be origins such as https:\/\/portal\.example\.com/, bad);
    assert.ok(problems[0]!.endsWith(`not '${bad}'`), `${bad}: ${problems[0]}`);
  }
});

test('the README documents every setting', async () => {
  const { readFile } = await import('node:fs/promises');
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const missing = settingNames().filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});

test('schema and cross-field problems are reported together, and passwords are never echoed', () => {
  let error: ConfigError | undefined;
  try {
    parseConfig({ PORT: 'abc', BITCOIN_RPC_URL: 'http://127.0.0.1:8332', DATABASE_URL: 'mysql://user:hunter2@db/portal' }, { repoRoot: '/repo' });
  } catch (e) {
    error = e as ConfigError;
  }
  assert.ok(error instanceof ConfigError);
  assert.ok(error.problems.some((p) => p.startsWith('PORT')));
  assert.ok(error.problems.some((p) => p.startsWith('BITCOIN_RPC_URL needs')), 'the cross-field problem is there too');
  assert.ok(error.problems.some((p) => p.startsWith('DATABASE_URL')));
  assert.doesNotMatch(error.message, /hunter2/);
});

test('PENDING_SETTLE_MS: two minutes by default, and never under twice the RPC timeout', () => {
  assert.equal(parse({}).pendingSettleMs, 120_000);
  assert.equal(parse({ BITCOIN_RPC_TIMEOUT_MS: '2500', PENDING_SETTLE_MS: '5000' }).pendingSettleMs, 5_000);
  const problems = problemsOf({ PENDING_SETTLE_MS: '30000' });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /PENDING_SETTLE_MS must be at least twice BITCOIN_RPC_TIMEOUT_MS \(60000\)/);
});

test('HTTP timeouts: a request within 30 s, its headers within 15 s, idle keep-alive 72 s, a silent connection 120 s; contradictions refused', () => {
  assert.deepEqual(parse({}).httpTimeouts, { requestMs: 30_000, headersMs: 15_000, keepAliveMs: 72_000, idleMs: 120_000 });
  assert.deepEqual(
    parse({ HTTP_REQUEST_TIMEOUT_MS: '10000', HTTP_HEADERS_TIMEOUT_MS: '10000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000', HTTP_IDLE_TIMEOUT_MS: '90000' }).httpTimeouts,
    { requestMs: 10_000, headersMs: 10_000, keepAliveMs: 65_000, idleMs: 90_000 },
  );
  // Node refuses headers given longer than the whole request.
  assert.deepEqual(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '10000' }), ['HTTP_HEADERS_TIMEOUT_MS (15000) must not exceed HTTP_REQUEST_TIMEOUT_MS (10000)']);
  // A request may wait in silence for two node calls; a connection must not be dropped under it.
  const problems = problemsOf({ BITCOIN_RPC_TIMEOUT_MS: '70000', PENDING_SETTLE_MS: '140000' });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /HTTP_IDLE_TIMEOUT_MS \(120000\) must be more than twice BITCOIN_RPC_TIMEOUT_MS \(140000\)/);
  // Under the /mempool/ stream's 15 s heartbeat, an open stream would be dropped.
  assert.match(problemsOf({ HTTP_IDLE_TIMEOUT_MS: '10000', BITCOIN_RPC_TIMEOUT_MS: '1000', PENDING_SETTLE_MS: '2000' })[0]!, /^HTTP_IDLE_TIMEOUT_MS /);
});

test("BLOCK_MAX_WEIGHT and BLOCK_MIN_TX_FEE: Core's block policy by default, or the node's own", () => {
  assert.deepEqual(parse({}).blockPolicy, { maxBlockWeight: 4_000_000, minFeeRatePerKvB: 1 });
  assert.deepEqual(parse({ BLOCK_MAX_WEIGHT: '1000000', BLOCK_MIN_TX_FEE: '5000' }).blockPolicy, { maxBlockWeight: 1_000_000, minFeeRatePerKvB: 5000 });
  // Consensus caps a block at 4,000,000 WU; a fee rate is whole sat/kvB, as the node counts it.
  const problems = problemsOf({ BLOCK_MAX_WEIGHT: '4000001', BLOCK_MIN_TX_FEE: '0.5' });
  assert.ok(problems.some((p) => p.includes('BLOCK_MAX_WEIGHT')), problems.join('; '));
  assert.ok(problems.some((p) => p.includes('BLOCK_MIN_TX_FEE')), problems.join('; '));
});

test('OIDC_ISSUER: https in production; plain http only outside it (the local development provider, tests)', () => {
  const issuer = 'https://login.pool.example/oauth2/default';
  const production = { NODE_ENV: 'production', OIDC_ISSUER: issuer };
  const config = parse(production);
  assert.equal(config.identity.kind === 'external' && config.identity.issuer, issuer);
  // Over http anyone on the path could serve their own discovery document and keys, and sign any token.
  const problems = problemsOf({ ...production, OIDC_ISSUER: 'http://login.pool.example/oauth2/default' });
  assert.deepEqual(problems, ["OIDC_ISSUER must be an https:// URL with NODE_ENV=production (got 'http://login.pool.example/oauth2/default'): the portal trusts whatever keys that address serves"]);
  assert.match(problemsOf({ NODE_ENV: 'production', OIDC_ISSUER: 'https://' }).join('\n'), /^OIDC_ISSUER /);
  const dev = parse({ OIDC_ISSUER: 'http://127.0.0.1:9999' });
  assert.equal(dev.identity.kind === 'external' && dev.identity.issuer, 'http://127.0.0.1:9999');
});

test('AUTH_KEY_SECRET: unset by default (a secret file in DATA_DIR), or 32+ characters, never echoed', () => {
  assert.equal(parse({}).authKeySecret, undefined);
  const secret = 'q'.repeat(12) + Buffer.alloc(32, 7).toString('base64');
  assert.equal(parse({ AUTH_KEY_SECRET: secret }).authKeySecret, secret);
  const problems = problemsOf({ AUTH_KEY_SECRET: 'short-but-secret' });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /^AUTH_KEY_SECRET /);
  assert.doesNotMatch(problems.join('\n'), /short-but-secret/);
});

test('standard-policy oracle: a node beside the embedded one by default, off on request, or the operator\'s own with its credentials', () => {
  assert.deepEqual(parse({}).standardPolicy, { kind: 'embedded', datadir: path.join(repoRoot, '.data', 'bitcoind-policy'), rpcPort: 18547 });
  assert.deepEqual(parse({ STANDARD_POLICY_NODE: 'off' }).standardPolicy, { kind: 'off' });
  // Beside an operator's pool node nothing is embedded: the operator runs their own policy node, or there is none.
  assert.deepEqual(parse({ BITCOIN_RPC_URL: 'http://node:8332', BITCOIN_RPC_COOKIE_FILE: '/c' }).standardPolicy, { kind: 'off' });
  assert.deepEqual(parse({ STANDARD_POLICY_RPC_URL: 'http://policy:8332', STANDARD_POLICY_RPC_COOKIE_FILE: '/p/.cookie' }).standardPolicy, {
    kind: 'external',
    rpcUrl: 'http://policy:8332',
    auth: { kind: 'cookie', cookieFile: '/p/.cookie' },
  });
  assert.deepEqual(parse({ STANDARD_POLICY_RPC_URL: 'http://policy:8332', STANDARD_POLICY_RPC_USER: 'u', STANDARD_POLICY_RPC_PASSWORD: 'pw-secret' }).standardPolicy.kind, 'external');
  assert.match(problemsOf({ STANDARD_POLICY_RPC_URL: 'http://policy:8332' }).join('\n'), /STANDARD_POLICY_RPC_URL needs STANDARD_POLICY_RPC_COOKIE_FILE/);
  assert.match(problemsOf({ STANDARD_POLICY_RPC_USER: 'u', STANDARD_POLICY_RPC_PASSWORD: 'p' }).join('\n'), /need STANDARD_POLICY_RPC_URL/);
  assert.match(problemsOf({ STANDARD_POLICY_RPC_URL: 'http://p:1', STANDARD_POLICY_RPC_COOKIE_FILE: '/c', STANDARD_POLICY_RPC_USER: 'u' }).join('\n'), /not both/);
  assert.match(problemsOf({ STANDARD_POLICY_NODE: 'maybe' }).join('\n'), /STANDARD_POLICY_NODE/);
  assert.match(problemsOf({ REGTEST_POLICY_RPC_PORT: '18543' }).join('\n'), /must all differ/);
  assert.equal(parse({ REGTEST_POLICY_RPC_PORT: '18543', STANDARD_POLICY_NODE: 'off' }).standardPolicy.kind, 'off');
});

test('Knots-policy node: one beside the embedded node by default, off with the standard-policy node, or the operator\'s own', () => {
  assert.deepEqual(parse({}).knotsPolicy, { kind: 'embedded', datadir: path.join(repoRoot, '.data', 'bitcoind-knots-policy'), rpcPort: 18548 });
  assert.deepEqual(parse({ STANDARD_POLICY_NODE: 'off' }).knotsPolicy, { kind: 'off' });
  assert.deepEqual(parse({ BITCOIN_RPC_URL: 'http://node:8332', BITCOIN_RPC_COOKIE_FILE: '/c' }).knotsPolicy, { kind: 'off' });
  assert.deepEqual(parse({ KNOTS_POLICY_RPC_URL: 'http://knots:8332', KNOTS_POLICY_RPC_USER: 'u', KNOTS_POLICY_RPC_PASSWORD: 'pw' }).knotsPolicy, { kind: 'external', rpcUrl: 'http://knots:8332', auth: { kind: 'userpass', user: 'u', password: 'pw' } });
  assert.match(problemsOf({ KNOTS_POLICY_RPC_URL: 'http://knots:8332' }).join('\n'), /KNOTS_POLICY_RPC_URL needs KNOTS_POLICY_RPC_COOKIE_FILE/);
  assert.match(problemsOf({ REGTEST_KNOTS_POLICY_RPC_PORT: '18547' }).join('\n'), /must all differ/);
});

test('failed submissions: 25 rows and 8 MiB of hex per address a day, kept 30 days, by default; each settable, a retention under a day refused', () => {
  assert.deepEqual(parse({}).failedTxStorage, { maxRowsPerAddressPerDay: 25, maxBytesPerAddressPerDay: 8_388_608, retentionDays: 30 });
  assert.deepEqual(
    parse({ FAILED_TX_MAX_ROWS_PER_ADDRESS_PER_DAY: '0', FAILED_TX_MAX_BYTES_PER_ADDRESS_PER_DAY: '1000000', FAILED_TX_RETENTION_DAYS: '7' }).failedTxStorage,
    { maxRowsPerAddressPerDay: 0, maxBytesPerAddressPerDay: 1_000_000, retentionDays: 7 },
  );
  assert.equal(problemsOf({ FAILED_TX_RETENTION_DAYS: '0' }).length, 1);
  assert.equal(problemsOf({ FAILED_TX_MAX_ROWS_PER_ADDRESS_PER_DAY: '-1', FAILED_TX_MAX_BYTES_PER_ADDRESS_PER_DAY: '1e6' }).length, 2);
});

test('webhook callbacks: 50 new subscriptions per client address a day by default; settable, 0 turning callback URLs off, a negative or a fraction refused', () => {
  assert.deepEqual(parse({}).webhooks, { allowPrivate: false, maxSubscriptionsPerAddressPerDay: 50 });
  assert.deepEqual(parse({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '0', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }).webhooks, { allowPrivate: true, maxSubscriptionsPerAddressPerDay: 0 });
  assert.equal(parse({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '500' }).webhooks.maxSubscriptionsPerAddressPerDay, 500);
  assert.match(problemsOf({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '-1' }).join('\n'), /WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY/);
  assert.match(problemsOf({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '2.5' }).join('\n'), /WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY/);
});

test('notification emails: 20 new requests per client address a day by default; settable, 0 allowed, a negative or a fraction refused', () => {
  assert.deepEqual(parse({}).email, { maxSubscriptionsPerAddressPerDay: 20 });
  assert.equal(parse({ EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '0' }).email.maxSubscriptionsPerAddressPerDay, 0);
  assert.equal(parse({ EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '500' }).email.maxSubscriptionsPerAddressPerDay, 500);
  assert.match(problemsOf({ EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '-1' }).join('\n'), /EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY/);
  assert.match(problemsOf({ EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY: '2.5' }).join('\n'), /EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY/);
});

test('public mempool node: none by default, or the operator\'s with its credentials', () => {
  assert.deepEqual(parse({}).publicMempool, { kind: 'off' });
  assert.deepEqual(parse({ PUBLIC_MEMPOOL_RPC_URL: 'http://edge:8332', PUBLIC_MEMPOOL_RPC_COOKIE_FILE: '/e/.cookie' }).publicMempool, {
    kind: 'external',
    rpcUrl: 'http://edge:8332',
    auth: { kind: 'cookie', cookieFile: '/e/.cookie' },
  });
  assert.deepEqual(parse({ PUBLIC_MEMPOOL_RPC_URL: 'http://edge:8332', PUBLIC_MEMPOOL_RPC_USER: 'u', PUBLIC_MEMPOOL_RPC_PASSWORD: 'pw' }).publicMempool, {
    kind: 'external',
    rpcUrl: 'http://edge:8332',
    auth: { kind: 'userpass', user: 'u', password: 'pw' },
  });
  assert.match(problemsOf({ PUBLIC_MEMPOOL_RPC_URL: 'http://edge:8332' }).join('\n'), /PUBLIC_MEMPOOL_RPC_URL needs PUBLIC_MEMPOOL_RPC_COOKIE_FILE/);
  assert.match(problemsOf({ PUBLIC_MEMPOOL_RPC_USER: 'u', PUBLIC_MEMPOOL_RPC_PASSWORD: 'p' }).join('\n'), /need PUBLIC_MEMPOOL_RPC_URL/);
  assert.match(problemsOf({ PUBLIC_MEMPOOL_RPC_URL: 'http://e:1', PUBLIC_MEMPOOL_RPC_COOKIE_FILE: '/c', PUBLIC_MEMPOOL_RPC_USER: 'u' }).join('\n'), /not both/);
  assert.match(problemsOf({ PUBLIC_MEMPOOL_RPC_URL: 'edge:8332', PUBLIC_MEMPOOL_RPC_COOKIE_FILE: '/c' }).join('\n'), /PUBLIC_MEMPOOL_RPC_URL/);
});

test('REDIS_URL: unset by default (each instance counts its own rate limits), or a redis:// or rediss:// URL whose password is never echoed', () => {
  assert.equal(parse({}).redisUrl, undefined);
  assert.equal(parse({ REDIS_URL: 'redis://:s3cret@cache.internal:6379/2' }).redisUrl, 'redis://:s3cret@cache.internal:6379/2');
  assert.equal(parse({ REDIS_URL: 'rediss://portal:s3cret@cache.internal:6380' }).redisUrl, 'rediss://portal:s3cret@cache.internal:6380');
  const problems = problemsOf({ REDIS_URL: 'http://:s3cret@cache.internal:6379' });
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, /^REDIS_URL /);
  assert.doesNotMatch(problems.join('\n'), /s3cret/);
});

test('POLICY_NETWORK_SHARES: each relay policy\'s share of the network, shown only when configured', () => {
  assert.deepEqual(parse({}).policyShares, {});
  assert.deepEqual(parse({ POLICY_NETWORK_SHARES: 'core=80, core-29=12.5,knots=7.5' }).policyShares, { core: 80, 'core-29': 12.5, knots: 7.5 });
  assert.match(problemsOf({ POLICY_NETWORK_SHARES: 'core=80,bitcoin-xt=20' }).join('\n'), /^POLICY_NETWORK_SHARES /);
  assert.deepEqual(problemsOf({ POLICY_NETWORK_SHARES: 'core=80,knots=30' }), ['POLICY_NETWORK_SHARES are percentages of the network: each and their sum at most 100']);
  assert.deepEqual(problemsOf({ POLICY_NETWORK_SHARES: 'core=60,core=30' }), ['POLICY_NETWORK_SHARES names each policy once']);
});
