/**
 * `npm run test:deploy`: the container deployment, for real. Builds every
 * stage of the Dockerfile (unchanged: only its build arguments pick the base
 * images), runs docker-compose.yml's stack (Postgres, a Bitcoin Knots node on
 * regtest, the portal) on Podman, puts the guide's nginx with a self-signed
 * certificate in front, and checks what an operator relies on: the health
 * check, a submission mined and reported through the proxy, TRUST_PROXY and
 * HSTS, the non-root read-only container, every container restarted with the
 * chain and the data intact, migrations run once when a new container (and a
 * second instance) starts over the database, and the guide's backup and
 * restore. Then it removes the stack. Each step prints its time; the first
 * that fails ends the run with a non-zero exit.
 *
 * Needs root, podman (with runc), debootstrap, nginx and openssl; .ci/run
 * installs them. Base images it cannot pull are made once and kept
 * (docs/production.md, "Deploy with containers"). DEPLOY_TEST_KEEP=1 leaves
 * the stack up when a step fails; the next run removes it first either way.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BASE_IMAGES, buildNodeImage, buildPostgresImage, debianMirrors, makeDebianBase } from './base-images.ts';
import { ComposeProject, loadCompose, parseEnvFile } from './compose-on-podman.ts';
import { have, run } from './exec.ts';
import { json, request, type HttpAnswer, type HttpOptions } from './http-client.ts';
import { Podman } from './podman.ts';
import { elapsed, figure, megabytes, note, printFigures, seconds, step } from './steps.ts';
import { freePort, PROXY_HOST_NAME, startTlsProxy, stopLeftoverProxy, type TlsProxy } from './tls-proxy.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const PROJECT = 'slipstream-deploytest';
/** Fixed, so that a run finds what a failed one left (its nginx, its logs) and removes it. */
const workDir = path.join(os.tmpdir(), 'slipstream-deploy-test');
const keepOnFailure = process.env.DEPLOY_TEST_KEEP === '1';

const IMAGES = { server: 'localhost/slipstream-portal:deploy-test', bitcoind: 'localhost/slipstream-bitcoind:deploy-test' };
/** A client address the proxy and the portal can tell from everything else on this host. */
const CLIENT_ADDRESS = '127.0.0.2';
/** What a client writes into X-Forwarded-For itself: with TRUST_PROXY=1 it must change nothing. */
const FORGED_ADDRESS = '203.0.113.9';
const STAFF = { username: 'deploy-test-admin', password: `pw-${crypto.randomUUID()}` };
const CHAIN = 'regtest';
const WALLET = 'deploy-test';

const fail = (message: string): never => {
  throw new Error(message);
};
function check(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

async function poll<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    await sleep(500);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// --- The machine ---------------------------------------------------------------

async function preflight(): Promise<Podman> {
  check(process.getuid?.() === 0, 'run as root: the stack runs on rootful Podman (its bridge network and published port)');
  const missing = [];
  for (const tool of ['podman', 'debootstrap', 'nginx', 'openssl']) if (!(await have(tool))) missing.push(tool);
  check(missing.length === 0, `missing: ${missing.join(', ')} (apt-get install -y podman runc debootstrap nginx openssl)`);
  const conf = existsSync('/etc/containers/containers.conf') ? await readFile('/etc/containers/containers.conf', 'utf8') : '';
  if (!/default_ulimits\s*=\s*\[\s*\]/.test(conf)) note('note: /etc/containers/containers.conf has no `default_ulimits = []`; sandboxes that refuse rlimits need it');
  const runtime = process.env.PODMAN_RUNTIME ?? ((await have('runc')) ? 'runc' : undefined);
  const podman = new Podman(runtime);
  note(`${(await podman.run(['--version'])).stdout.trim()}, runtime ${runtime ?? 'default'}; ${(await run('nginx', ['-v'])).stderr.trim()}`);
  return podman;
}

// --- The images ------------------------------------------------------------------

/** Times one piece of a step that runs beside others. */
async function timed<T>(what: string, body: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const result = await body();
  figure(what, seconds(performance.now() - t0));
  return result;
}

/** A Debian base, made once by debootstrap and kept: later runs find it. */
async function ensureDebianBase(podman: Podman, suite: 'bookworm' | 'trixie'): Promise<void> {
  if (await podman.imageExists(BASE_IMAGES[suite])) return;
  await timed(`debootstrap ${suite} and import`, async () => makeDebianBase(podman, suite, BASE_IMAGES[suite], await debianMirrors(), workDir));
}

/**
 * Every image, in two chains side by side: bookworm → Node build image → the
 * portal's stages (manifests, deps, build, prod-deps, runtime); trixie → the
 * node's stage and the Postgres stand-in. Only the Dockerfile's build
 * arguments change (the bases it starts from).
 */
async function buildImages(podman: Podman): Promise<void> {
  const buildArgs = [
    '--build-arg', `NODE_IMAGE=${BASE_IMAGES.node}`,
    '--build-arg', `RUNTIME_IMAGE=${BASE_IMAGES.bookworm}`,
    '--build-arg', `KNOTS_IMAGE=${BASE_IMAGES.trixie}`,
  ];
  // --format docker: the OCI image format has no HEALTHCHECK, and Podman drops it.
  const build = (target: string, tag: string) =>
    timed(`build: Dockerfile target ${target}`, () =>
      podman.run(['build', '--format', 'docker', '--network', 'host', ...buildArgs, '--target', target, '-t', tag, '-f', path.join(repoRoot, 'Dockerfile'), repoRoot], {
        logFile: path.join(workDir, `build-${target}.log`),
        timeoutMs: 20 * 60_000,
      }),
    );
  await Promise.all([
    (async () => {
      await ensureDebianBase(podman, 'bookworm');
      await timed('build: Node build image', () => buildNodeImage(podman, repoRoot, workDir));
      await build('runtime', IMAGES.server);
    })(),
    (async () => {
      await ensureDebianBase(podman, 'trixie');
      await Promise.all([build('bitcoind', IMAGES.bitcoind), timed('build: Postgres stand-in', () => buildPostgresImage(podman, repoRoot, workDir))]);
    })(),
  ]);
  for (const [name, image] of [['portal', IMAGES.server], ['bitcoind', IMAGES.bitcoind], ['postgres stand-in', BASE_IMAGES.postgres], ['bookworm base', BASE_IMAGES.bookworm]] as const) {
    figure(`image size: ${name}`, megabytes(await podman.imageSize(image)));
  }
  const [inspected] = JSON.parse((await podman.run(['image', 'inspect', IMAGES.server])).stdout) as Array<{ User?: string; Healthcheck?: { Test?: string[] } }>;
  check(inspected?.User && !/^(root|0)(:|$)/.test(inspected.User), `the portal image runs as a non-root user (User: ${inspected?.User})`);
  check(inspected.Healthcheck?.Test?.join(' ').includes('/rest-api/health'), 'the portal image keeps its HEALTHCHECK');
}

// --- The stack's .env -------------------------------------------------------------

/**
 * The .env an operator makes: .env.example, then the secrets by the guide's
 * own commands (its "First start" block up to `docker compose up`), then
 * what this test changes: regtest, a free port, an issuer (production mode
 * needs one; nothing fetches from it until a staff token arrives).
 */
async function makeEnvFile(dir: string): Promise<Record<string, string>> {
  await mkdir(dir, { recursive: true });
  await copyFile(path.join(repoRoot, '.env.example'), path.join(dir, '.env.example'));
  const guide = await readFile(path.join(repoRoot, 'docs/production.md'), 'utf8');
  const firstStart = /### First start[\s\S]*?```sh\n([\s\S]*?)```/.exec(guide)?.[1];
  check(firstStart, 'docs/production.md has a "First start" shell block');
  const lines = firstStart.split('\n');
  const end = lines.findIndex((l) => /^\s*(docker|podman)\b/.test(l));
  await run('bash', ['-euo', 'pipefail', '-c', lines.slice(0, end === -1 ? undefined : end).join('\n')], { cwd: dir });
  const env = parseEnvFile(await readFile(path.join(dir, '.env'), 'utf8'));
  check(/^[0-9a-f]{48}$/.test(env.POSTGRES_PASSWORD ?? ''), 'the guide fills in POSTGRES_PASSWORD');
  check(/^portal:[0-9a-f]{32}\$[0-9a-f]{64}$/.test(env.BITCOIN_RPCAUTH ?? ''), `the guide fills in BITCOIN_RPCAUTH as USER:SALT$HASH (${env.BITCOIN_RPCAUTH})`);
  for (const name of ['BITCOIN_RPC_PASSWORD', 'METRICS_TOKEN', 'AUTH_KEY_SECRET']) check(/^[0-9a-f]{48,}$/.test(env[name] ?? ''), `the guide fills in ${name}`);
  Object.assign(env, {
    BITCOIN_CHAIN: CHAIN,
    BITCOIN_NETWORK: CHAIN,
    OIDC_ISSUER: 'https://sso.example.com/realms/pool',
    PORT: String(await freePort()),
  });
  await writeFile(path.join(dir, '.env'), Object.entries(env).map(([k, v]) => `${k}='${v}'`).join('\n') + '\n');
  return env;
}

// --- The run -------------------------------------------------------------------------

interface Stack {
  podman: Podman;
  compose: ComposeProject;
  env: Record<string, string>;
  proxy?: TlsProxy;
}

async function main(): Promise<void> {
  const podman = await step('preflight: podman, debootstrap, nginx, openssl', preflight);
  const env = await step('the stack\'s .env, secrets made by the guide\'s commands', async () => {
    await stopLeftoverProxy(path.join(workDir, 'proxy'));
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true });
    return makeEnvFile(path.join(workDir, 'project'));
  });
  const compose = new ComposeProject(podman, PROJECT, await loadCompose(path.join(repoRoot, 'docker-compose.yml'), env), repoRoot, IMAGES, {
    // The official image, which no registry serves here; deploy/postgres has its interface.
    postgres: BASE_IMAGES.postgres,
  });
  const stack: Stack = { podman, compose, env };
  await step('remove what a previous run left', () => compose.down());

  let failed = false;
  try {
    await step('images: Debian bases (debootstrap once, then kept), Node build image, every Dockerfile stage, Postgres stand-in', () => buildImages(podman));
    await runStack(stack);
  } catch (error) {
    failed = true;
    console.error(`\nFAILED at ${elapsed()}: ${error instanceof Error ? error.message : String(error)}`);
    for (const name of compose.startOrder()) {
      for (const index of [1, 2]) {
        const container = compose.container(name, index);
        if (!(await podman.state(container))) continue;
        console.error(`\n--- ${container} (last lines) ---\n${await podman.logs(container, 40)}`);
      }
    }
  } finally {
    await stack.proxy?.stop();
    if (failed && keepOnFailure) console.error(`\nDEPLOY_TEST_KEEP=1: the stack stays up (project ${PROJECT}; files in ${workDir})`);
    else await step('tear down: containers, volumes, network, proxy', () => compose.down());
  }
  printFigures();
  if (failed) process.exit(1);
  console.log(`\nDeployment test passed in ${elapsed()}.`);
}

async function runStack(stack: Stack): Promise<void> {
  const { podman, compose, env } = stack;
  const port = Number(env.PORT);
  const direct = `http://127.0.0.1:${port}`;
  const server = compose.container('server');
  const bitcoind = compose.container('bitcoind');
  const postgres = compose.container('postgres');
  const cli = async (...args: string[]) =>
    (await podman.exec(bitcoind, ['bitcoin-cli', '-datadir=/var/lib/bitcoin', `-chain=${CHAIN}`, '-rpcport=8332', ...args])).stdout.trim();
  const psql = async (sql: string) => (await podman.exec(postgres, ['psql', '-U', 'portal', '-d', 'portal', '-v', 'ON_ERROR_STOP=1', '-Atc', sql])).stdout.trim();
  const portalHealthy = (container: string) => compose.waitHealthy(container, 120_000);

  await step('compose up: Postgres and the node healthy, then the portal; until GET /rest-api/health is 200 and the image health check passes', async () => {
    const t0 = performance.now();
    await compose.up(180_000);
    await poll('GET /rest-api/health 200', 120_000, async () => ((await request(`${direct}/rest-api/health`)).status === 200 ? true : undefined));
    figure('up → /rest-api/health 200', seconds(performance.now() - t0));
    await portalHealthy(server);
    figure('up → every health check passing', seconds(performance.now() - t0));
  });

  await step('the containers: the portal as uid 10001 on a read-only root filesystem with DATA_DIR and /tmp writable; the node non-root, read-only', async () => {
    check((await podman.exec(server, ['id', '-u'])).stdout.trim() === '10001', 'the portal runs as uid 10001');
    check((await podman.run(['container', 'inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', server])).stdout.trim() === 'true', 'the root filesystem is read-only');
    const writes = async (dir: string) => (await podman.exec(server, ['sh', '-c', `touch "${dir}/.probe" && rm "${dir}/.probe"`], { allowFailure: true })).code === 0;
    check(!(await writes('/app')), 'the code (/app) is not writable');
    check(await writes('/var/lib/portal'), 'DATA_DIR (/var/lib/portal) is writable');
    check(await writes('/tmp'), '/tmp is writable');
    check((await podman.exec(bitcoind, ['id', '-u'])).stdout.trim() !== '0', 'the node does not run as root');
    check((await podman.run(['container', 'inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', bitcoind])).stdout.trim() === 'true', "the node's root filesystem is read-only");
  });

  const proxy = await step('TLS in front: the guide\'s nginx with a self-signed certificate', async () => {
    stack.proxy = await startTlsProxy(repoRoot, path.join(workDir, 'proxy'), port);
    return stack.proxy;
  });
  const viaProxy = (pathAndQuery: string, options: HttpOptions = {}) =>
    request(`https://127.0.0.1:${proxy.httpsPort}${pathAndQuery}`, { ca: proxy.certificate, servername: PROXY_HOST_NAME, localAddress: CLIENT_ADDRESS, ...options, headers: { host: PROXY_HOST_NAME, ...options.headers } });

  const address = await step('a regtest wallet in the node container, 101 blocks mined to it', async () => {
    // Loaded again at every start: the restart below checks the node kept it.
    await cli('-named', 'createwallet', `wallet_name=${WALLET}`, 'load_on_startup=true');
    const addr = await cli(`-rpcwallet=${WALLET}`, 'getnewaddress');
    await cli('generatetoaddress', '101', addr);
    await poll('the portal at height 101', 60_000, async () => {
      const info = json<{ block_height: number }>(await viaProxy('/rest-api/getinfo'), 'getinfo');
      return info.block_height >= 101 ? true : undefined;
    });
    return addr;
  });

  const { txid, hex } = await step('a transaction paying above the fee rate GET /rest-api/getinfo asks', async () => {
    const info = json<{ fee_rate: number; network: string }>(await viaProxy('/rest-api/getinfo'), 'getinfo');
    check(info.network === CHAIN, `the portal is on ${CHAIN} (${info.network})`);
    const feeRate = Math.ceil(info.fee_rate * 1.5) + 1;
    const sent = JSON.parse(
      await cli(`-rpcwallet=${WALLET}`, '-named', 'send', `outputs=[{"${address}":0.1}]`, `fee_rate=${feeRate}`, 'options={"add_to_wallet":false}'),
    ) as { complete: boolean; hex: string; txid: string };
    check(sent.complete, 'the wallet signed it');
    note(`minimum ${info.fee_rate} sat/vB, paying ${feeRate} sat/vB`);
    return { txid: sent.txid, hex: sent.hex };
  });

  let submitted!: HttpAnswer;
  await step('submit it through the proxy (https, POST /rest-api/submit-tx, a forged X-Forwarded-For)', async () => {
    submitted = await viaProxy('/rest-api/submit-tx', { method: 'POST', body: JSON.stringify({ tx_hex: hex }), headers: { 'x-forwarded-for': FORGED_ADDRESS } });
    const answer = json<{ status: string; message: string }>(submitted, 'submit-tx');
    check(submitted.status === 200 && answer.status === 'success' && answer.message === txid, `submit-tx answered HTTP ${submitted.status} ${submitted.body}`);
    figure('submission round trip through nginx (https)', `${submitted.ms.toFixed(0)} ms`);
    JSON.parse(await cli('getmempoolentry', txid));
    const getinfo = { proxy: [] as number[], direct: [] as number[] };
    for (let i = 0; i < 5; i++) {
      getinfo.proxy.push((await viaProxy('/rest-api/getinfo')).ms);
      getinfo.direct.push((await request(`${direct}/rest-api/getinfo`)).ms);
    }
    figure('GET /rest-api/getinfo, median of 5', `${median(getinfo.proxy).toFixed(0)} ms through nginx, ${median(getinfo.direct).toFixed(0)} ms direct`);
  });

  await step('HSTS on https only; port 80 redirects; the metrics path stays inside', async () => {
    check(submitted.headers['strict-transport-security'] === 'max-age=31536000', `HSTS through https (got ${submitted.headers['strict-transport-security']})`);
    const plain = await request(`${direct}/rest-api/getinfo`);
    check(plain.status === 200 && plain.headers['strict-transport-security'] === undefined, 'no HSTS over plain http');
    const redirect = await request(`http://127.0.0.1:${proxy.httpPort}/status?txid=${txid}`, { headers: { host: PROXY_HOST_NAME } });
    check(redirect.status === 301 && redirect.headers.location === `https://${PROXY_HOST_NAME}/status?txid=${txid}`, `port 80 redirects to https (${redirect.status} ${redirect.headers.location})`);
    check((await viaProxy('/rest-api/metrics')).status === 404, '/rest-api/metrics is not served through the proxy');
  });

  await step('TRUST_PROXY=1: the audit trail has the client\'s address, not the forged one (staff CLI in the container, sign-in through the proxy)', async () => {
    await podman.exec(server, ['node', 'server/src/cli/staff.ts', 'add', STAFF.username, '--admin', '--password-stdin'], { input: `${STAFF.password}\n` });
    const login = await viaProxy('/rest-api/login', { method: 'POST', body: JSON.stringify(STAFF) });
    const { token } = json<{ token: string }>(login, 'login');
    check(login.status === 200 && token, `local sign-in through the proxy (HTTP ${login.status})`);
    const audited = (ip: string) =>
      viaProxy(`/rest-api/audits/list?ip_or_endpoint=${ip}&limit=100`, { headers: { authorization: `Bearer ${token}` } }).then(
        (a) => json<{ result: Array<{ ip_address: string | null; endpoint: string | null }> }>(a, 'audits/list').result,
      );
    await poll('the submission in the audit trail under the client address', 30_000, async () =>
      (await audited(CLIENT_ADDRESS)).some((row) => row.ip_address === CLIENT_ADDRESS && row.endpoint?.endsWith('/submit-tx')) ? true : undefined,
    );
    check((await audited(FORGED_ADDRESS)).length === 0, `nothing audited under the forged ${FORGED_ADDRESS}`);
  });

  const minedHash = await step('mine it: GET /rest-api/status-check says confirmed in that block; /status?txid= loads', async () => {
    const [hash] = JSON.parse(await cli('generatetoaddress', '1', address)) as string[];
    await waitConfirmed(viaProxy, txid, hash!);
    const page = await viaProxy(`/status?txid=${txid}`);
    check(page.status === 200 && /text\/html/.test(String(page.headers['content-type'])) && page.body.includes('<div id="root">'), `/status?txid= is the web app (HTTP ${page.status})`);
    // status-check asks the node; the submission row learns its block from the
    // tracking job a moment later, so wait for that rather than race it.
    const t0 = performance.now();
    await poll('the submission row records its block', 60_000, async () =>
      (await psql(`SELECT block_hash FROM tx_submissions WHERE txid = '${txid}'`)).includes(hash!) ? true : undefined,
    );
    figure('block recorded on the submission row after the status answer', seconds(performance.now() - t0));
    return hash!;
  });

  const snapshot = async () => ({
    blocks: await cli('getblockcount'),
    best: await cli('getbestblockhash'),
    wallets: (JSON.parse(await cli('listwallets')) as string[]).join(','),
    migrations: await psql('SELECT version, name, applied_at FROM schema_migrations ORDER BY version'),
    submission: await psql(`SELECT txid, status, block_hash, block_height FROM tx_submissions WHERE txid = '${txid}'`),
  });
  const before = await snapshot();
  check(before.submission.includes(minedHash), `the submission row records its block (${before.submission})`);
  check(before.wallets === WALLET, `the node has the test's wallet loaded (${before.wallets})`);
  const same = async (what: string) => {
    const after = await snapshot();
    for (const key of ['blocks', 'best', 'wallets', 'migrations', 'submission'] as const) {
      check(after[key] === before[key], `${what}: ${key} changed:\n  before: ${before[key]}\n  after:  ${after[key]}`);
    }
    await waitConfirmed(viaProxy, txid, minedHash);
  };

  await step('restart every container (compose stop, compose start): the chain, the data, the submission and the migrations are unchanged', async () => {
    const t0 = performance.now();
    await compose.stop();
    await compose.start(180_000);
    await portalHealthy(server);
    figure('restart of every container → healthy', seconds(performance.now() - t0));
    await same('after the restart');
  });

  await step('upgrade: a new portal container and a second instance start together over the existing database; migrations run once', async () => {
    await podman.run(['rm', '--force', '--time', '30', server]);
    await Promise.all([compose.runService('server'), compose.runService('server', { index: 2, publish: false })]);
    await Promise.all([portalHealthy(server), portalHealthy(compose.container('server', 2))]);
    await same('after the new containers');
    await podman.run(['rm', '--force', '--time', '30', compose.container('server', 2)]);
  });

  await step('backup and restore, the guide\'s way: pg_dump, an empty database, pg_restore, the portal back on it', async () => {
    await compose.stop(['server']);
    const dump = (await podman.exec(postgres, ['pg_dump', '-U', 'portal', '-d', 'portal', '-Fc'])).stdoutBytes;
    const file = path.join(workDir, 'portal.dump');
    await writeFile(file, dump);
    figure('pg_dump -Fc of the test database', `${(dump.length / 1024).toFixed(0)} KiB`);
    await podman.exec(postgres, ['dropdb', '-U', 'portal', 'portal']);
    await podman.exec(postgres, ['createdb', '-U', 'portal', 'portal']);
    check((await psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")) === '0', 'the database is empty before the restore');
    await podman.exec(postgres, ['pg_restore', '-U', 'portal', '-d', 'portal', '--exit-on-error'], { input: await readFile(file) });
    await compose.start(60_000, ['server']);
    await portalHealthy(server);
    await same('after the restore');
  });
}

async function waitConfirmed(viaProxy: (p: string) => Promise<HttpAnswer>, txid: string, blockHash: string): Promise<void> {
  await poll(`status-check confirmed in ${blockHash}`, 60_000, async () => {
    const answer = await viaProxy(`/rest-api/status-check?tx_id=${txid}`);
    const status = json<{ transaction: { status: { confirmed: boolean; block_hash: string | null } } }>(answer, 'status-check').transaction.status;
    return status.confirmed && status.block_hash === blockHash ? true : undefined;
  });
}

process.on('SIGINT', () => {
  console.error('\ninterrupted: the next run removes what this one left');
  process.exit(130);
});

await main().catch((error: unknown) => {
  console.error(`\nFAILED at ${elapsed()}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
