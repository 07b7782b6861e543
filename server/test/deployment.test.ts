import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseConfig, settingNames } from '../src/config/config.ts';

/**
 * The container deployment (Dockerfile, docker-compose.yml, .env.example),
 * checked offline: Docker is not needed to run these, and cannot build
 * anything here. What a build would reveal late (a stage that is not there,
 * an environment variable the server does not know, a port the health check
 * does not use, a secret committed) is caught here instead.
 */

const repoRoot = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

// --- Dockerfile -------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

/** Instructions by stage, continuation lines joined and comments dropped (the Dockerfile reference's syntax). */
function dockerfileStages(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.trimEnd();
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full !== '') lines.push(full);
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args.replace(/--platform=\S+\s+/, ''));
      assert.ok(match, `a FROM line the test understands: ${line}`);
      stages.push({ base: match[1]!, name: match[2] ?? String(stages.length), instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

const stages = dockerfileStages(read('Dockerfile'));
const stage = (name: string): Stage => {
  const found = stages.find((s) => s.name === name);
  assert.ok(found, `the Dockerfile has a stage named ${name} (it has ${stages.map((s) => s.name).join(', ')})`);
  return found;
};
const runs = (s: Stage) => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const lastOf = (s: Stage, keyword: string) => s.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
/** ENV KEY=VALUE pairs of a stage (the one-line and multi-pair forms). */
function envOf(s: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of s.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const [, key, value] of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env[key!] = value!.replace(/^"|"$/g, '');
  }
  return env;
}
/** The argv of an exec-form (JSON array) instruction. */
function execForm(args: string): string[] {
  const json = args.replace(/^(--\S+\s+)*(CMD\s+)?/, '');
  const argv = JSON.parse(json) as unknown;
  assert.ok(Array.isArray(argv) && argv.every((a) => typeof a === 'string'), `exec form (a JSON array of strings): ${args}`);
  return argv;
}

const rootPackage = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

test('Dockerfile: the image is built by the npm scripts a clone uses, in stages', () => {
  const deps = stage('deps');
  assert.ok(runs(deps).some((r) => /\bnpm ci\b/.test(r) && !r.includes('--omit')), 'deps runs npm ci with every dependency');
  // The `node` package's install script fetches the Node binary the runtime runs.
  assert.ok(runs(deps).every((r) => !r.includes('--ignore-scripts')), 'install scripts run');

  assert.ok(rootPackage.scripts.build, 'package.json has a build script');
  const build = stage('build');
  assert.ok(runs(build).some((r) => /\bnpm run build\b/.test(r)), 'build runs npm run build');
  assert.ok(build.base === 'deps' || build.base === 'manifests', `build starts from the installed dependencies, not ${build.base}`);

  const prodDeps = stage('prod-deps');
  assert.ok(runs(prodDeps).some((r) => /\bnpm ci\b.*--omit=dev/.test(r)), 'prod-deps installs production dependencies only');
  assert.ok(runs(prodDeps).every((r) => !r.includes('--ignore-scripts')), 'install scripts run');
});

test('Dockerfile: the runtime stage is the default target, slim, and runs as an unprivileged user', () => {
  const runtime = stage('runtime');
  assert.equal(stages.at(-1)?.name, 'runtime', 'a plain `docker build .` builds the portal');
  const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  assert.ok(copies.some((c) => /--from=prod-deps\s+\S*node_modules/.test(c)), 'node_modules come from prod-deps');
  assert.ok(!copies.some((c) => /--from=(deps|build)\s+\S*node_modules/.test(c)), 'no development dependencies in the runtime');
  assert.ok(copies.some((c) => /--from=build\s+\S*web\/dist/.test(c)), 'the built web app comes from the build stage');
  assert.ok(!copies.some((c) => /^server\/?\s|server\/dev\b/.test(c)), 'no development tooling (server/dev/) in the runtime');
  // The server imports the mempool engine workspace through the link npm made in node_modules: its code must be there too.
  for (const needed of ['mempool-engine/package.json', 'mempool-engine/src']) {
    assert.ok(copies.some((c) => c.split(/\s+/)[0] === needed), `the runtime copies ${needed}`);
  }
  assert.ok(!copies.some((c) => /^mempool-engine\/?\s|mempool-engine\/dev\b/.test(c)), 'no development tooling (mempool-engine/dev/) in the runtime');

  const user = lastOf(runtime, 'USER');
  assert.ok(user, 'the runtime stage sets USER');
  assert.ok(!/^(root|0)(:|$)/.test(user), `USER is not root: ${user}`);
  const instructionIndex = (keyword: string) => runtime.instructions.findLastIndex((i) => i.keyword === keyword);
  assert.ok(instructionIndex('USER') < instructionIndex('CMD'), 'USER comes before CMD');
  assert.equal(envOf(runtime).NODE_ENV, 'production');
});

test('Dockerfile: the runtime starts the server as `npm start` does, on the exposed PORT, with a health check', () => {
  const runtime = stage('runtime');
  const env = envOf(runtime);
  // Reachable from outside the container, on the port it exposes.
  assert.equal(env.HOST, '0.0.0.0');
  assert.match(env.PORT ?? '', /^\d+$/);
  const exposed = (lastOf(runtime, 'EXPOSE') ?? '').split(/\s+/);
  assert.deepEqual(exposed, [env.PORT], 'EXPOSE is the configured PORT');

  const startScript = /\bnode\s+(\S+\.ts)\b/.exec(rootPackage.scripts.start ?? '');
  assert.ok(startScript, `package.json's start script runs a .ts file: ${rootPackage.scripts.start}`);
  const cmd = execForm(lastOf(runtime, 'CMD') ?? '');
  assert.match(cmd[0] ?? '', /(^|\/)node$/);
  assert.equal(cmd[1], startScript[1], 'CMD runs the same entry point as npm start');
  assert.equal(env.PATH?.split(':')[0], '/app/node_modules/.bin', "`node` is the `node` package's binary");
  assert.ok(cmd[0] === 'node' || cmd[0] === '/app/node_modules/.bin/node', `CMD runs the pinned Node: ${cmd[0]}`);

  const healthcheck = lastOf(runtime, 'HEALTHCHECK') ?? '';
  assert.ok(healthcheck !== '', 'the runtime stage has a HEALTHCHECK');
  const probe = execForm(healthcheck).join(' ');
  assert.ok(probe.includes('/rest-api/health'), `the health check asks GET /rest-api/health: ${probe}`);
  assert.ok(probe.includes('process.env.PORT'), 'the health check follows PORT when it is overridden');
  // The endpoint exists: the committed OpenAPI document is generated from the routes.
  const openapi = JSON.parse(read('server/openapi.json')) as { paths: Record<string, { get?: unknown }> };
  assert.ok(openapi.paths['/rest-api/health']?.get, 'GET /rest-api/health is a route of the server');
});

test('Dockerfile: the node stage is Bitcoin Knots from Debian trixie-backports, unprivileged', () => {
  const bitcoind = stage('bitcoind');
  assert.ok(runs(bitcoind).some((r) => /apt-get install\b.*-t trixie-backports\b.*\bbitcoin-knots\b/.test(r)));
  const user = lastOf(bitcoind, 'USER');
  assert.ok(user && !/^(root|0)(:|$)/.test(user), `the node runs as an unprivileged user: ${user}`);
});

test('Dockerfile and .dockerignore: no registry host is named and no local state or secret is sent to the build', () => {
  const dockerfile = read('Dockerfile');
  // Registries and mirrors come from the builder's configuration, never from the repo:
  // the only address in it is the container's own loopback (the health check).
  const hosts = Array.from(dockerfile.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/([^/:\s`'"]+)/gi), (m) => m[1]);
  assert.deepEqual([...new Set(hosts)], ['127.0.0.1']);
  assert.doesNotMatch(dockerfile, /\b(registry\.npmjs\.org|docker\.io|deb\.debian\.org)\b/);
  const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
  for (const entry of ['.env', '.git', 'node_modules', '.data', '.cache', 'server/dev', 'mempool-engine/dev']) {
    assert.ok(ignored.includes(entry), `.dockerignore lists ${entry}`);
  }
});

// --- docker-compose.yml and .env.example ------------------------------------

interface ComposeService {
  build?: { context?: string; target?: string };
  image?: string;
  environment?: Record<string, string>;
  command?: string[];
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
  volumes?: string[];
  ports?: string[];
  networks?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  logging?: { driver?: string; options?: Record<string, string> };
}
interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string }> } }>;
}

const composeText = read('docker-compose.yml');
const compose = parseYaml(composeText) as Compose;
const service = (name: string): ComposeService => {
  const found = compose.services[name];
  assert.ok(found, `docker-compose.yml has a ${name} service`);
  return found;
};

/** KEY=VALUE lines of an env file, quotes removed (Compose's env-file syntax, for the subset this repo uses). */
function envFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    const raw = match[2]!.trim();
    values[match[1]!] = /^'.*'$|^".*"$/.test(raw) ? raw.slice(1, -1) : raw.replace(/\s+#.*$/, '');
  }
  return values;
}

/**
 * Compose's interpolation (compose-file reference, "Interpolation"): $$,
 * ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}.
 */
function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (whole, name: string | undefined, colon: string, op: string, arg: string) => {
    if (whole === '$$') return '$';
    const value = vars[name!];
    const unset = value === undefined || (colon === ':' && value === '');
    if (op === '-') return unset ? arg : value;
    if (op === '?') {
      if (unset) throw new Error(`${name} is required: ${arg}`);
      return value;
    }
    return value ?? '';
  });
}

/** Every variable docker-compose.yml reads from .env. */
const composeVariables = [...new Set(Array.from(composeText.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g), (m) => m[1]!))];
const example = envFile(read('.env.example'));
/** Secrets compose cannot run without; METRICS_TOKEN may stay empty (the guide says what that means). */
const REQUIRED_SECRETS = ['POSTGRES_PASSWORD', 'BITCOIN_RPC_PASSWORD', 'BITCOIN_RPCAUTH', 'AUTH_KEY_SECRET'];
const SECRET_NAMES = [...REQUIRED_SECRETS, 'METRICS_TOKEN'];
/** What an operator fills in: .env.example plus every secret, and the issuer production requires. */
const filledIn: Record<string, string> = {
  ...example,
  POSTGRES_PASSWORD: '0123456789abcdef0123456789abcdef',
  BITCOIN_RPC_PASSWORD: 'fedcba9876543210fedcba9876543210',
  BITCOIN_RPCAUTH: 'portal:00112233445566778899aabbccddeeff$0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  METRICS_TOKEN: 'a-token-of-at-least-16-chars',
  AUTH_KEY_SECRET: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
  OIDC_ISSUER: 'https://sso.example.com/realms/pool',
};
const resolved = (value: string) => interpolate(value, filledIn);
const serverEnv = () => Object.fromEntries(Object.entries(service('server').environment ?? {}).map(([k, v]) => [k, resolved(String(v))]));
/** The value of `-name=` among a node's arguments, interpolated. */
const nodeArg = (name: string) => {
  const arg = (service('bitcoind').command ?? []).find((a) => a.startsWith(`-${name}=`));
  assert.ok(arg, `the node is started with -${name}=`);
  return resolved(arg.slice(name.length + 2));
};

test('compose: the server, Postgres and the node, built from the Dockerfile stages', () => {
  assert.equal(service('server').build?.target, 'runtime');
  assert.equal(service('bitcoind').build?.target, 'bitcoind');
  stage(service('server').build!.target!);
  stage(service('bitcoind').build!.target!);
  assert.match(service('postgres').image ?? '', /^postgres:\d+(-bookworm|-trixie)?$/, 'a Debian-based Postgres image of a pinned major version');
});

test('compose: every variable the server is given is a setting config.ts knows', () => {
  const known = new Set(settingNames());
  const unknown = Object.keys(service('server').environment ?? {}).filter((key) => !known.has(key));
  assert.deepEqual(unknown, [], 'variables the server would silently ignore');
});

test('compose: with .env.example filled in, the server configuration parses as production with Postgres and the node over RPC and ZMQ', () => {
  const config = parseConfig(serverEnv(), { repoRoot: '/app' });
  assert.equal(config.production, true);
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.database.kind, 'postgres');
  assert.equal(config.node.kind, 'external');
  assert.ok(config.node.kind === 'external' && config.node.auth.kind === 'userpass' && config.node.zmqUrl, 'RPC user/password and ZMQ');
  assert.equal(config.network, 'mainnet');
  assert.equal(config.dataDir, '/var/lib/portal');
  assert.equal(config.identity.kind, 'external');
  // Production is also the default when .env does not say.
  const withoutNodeEnv = Object.fromEntries(Object.entries(service('server').environment ?? {}).map(([k, v]) => [k, interpolate(String(v), { ...filledIn, NODE_ENV: undefined })]));
  assert.equal(parseConfig(withoutNodeEnv, { repoRoot: '/app' }).production, true);
});

test('compose: every variable it reads is documented in .env.example, and the secrets there are empty', () => {
  const undocumented = composeVariables.filter((name) => !(name in example));
  assert.deepEqual(undocumented, [], 'variables docker-compose.yml reads that .env.example does not list');
  for (const name of SECRET_NAMES) {
    assert.ok(name in example, `.env.example lists ${name}`);
    assert.equal(example[name], '', `.env.example leaves ${name} empty`);
  }
});

test('compose: no secret is written in it: they are required from .env, which git ignores', () => {
  // A secret is referenced as ${NAME:?message} or ${NAME:-} (empty): never with a default value.
  const secretRef = (name: string) => new RegExp(`^\\$\\{${name}(:\\?[^}]*|:-)?\\}$`);
  const env = service('server').environment ?? {};
  for (const [key, value] of Object.entries({ ...env, ...service('postgres').environment })) {
    if (/PASSWORD|TOKEN|SECRET/.test(key)) assert.match(String(value), secretRef(key), `${key} comes from .env`);
  }
  assert.match(String(env.DATABASE_URL), /^postgres:\/\/[^:]+:\$\{POSTGRES_PASSWORD:\?[^}]*\}@/, 'the database password in DATABASE_URL comes from .env');
  const command = service('bitcoind').command ?? [];
  assert.ok(command.some((a) => /^-rpcauth=\$\{BITCOIN_RPCAUTH:\?[^}]*\}$/.test(a)), 'the node takes the salted -rpcauth hash from .env');
  assert.ok(!command.some((a) => /^-rpc(password|user)=/.test(a)), 'no plaintext -rpcpassword/-rpcuser on the node');
  for (const name of REQUIRED_SECRETS) assert.throws(() => interpolate(composeText, { ...filledIn, [name]: '' }), new RegExp(name), `${name} is required`);

  const gitignore = read('.gitignore').split('\n').map((l) => l.trim());
  assert.ok(gitignore.includes('.env') || gitignore.includes('/.env'), '.gitignore ignores .env');
  assert.ok(!gitignore.some((l) => /^\/?\.env[.*]/.test(l)), '.env.example stays committed');
});

test('compose: Postgres and the node have health checks, and the server starts once both are healthy', () => {
  for (const name of ['postgres', 'bitcoind']) {
    const probe = service(name).healthcheck?.test;
    assert.ok(Array.isArray(probe) && probe.length > 1 && /^CMD(-SHELL)?$/.test(probe[0]!), `${name} has a healthcheck`);
    assert.equal(service('server').depends_on?.[name]?.condition, 'service_healthy', `the server waits for ${name} to be healthy`);
  }
  // The node's probe asks the chain and port the node runs, whichever chain .env picks.
  for (const chain of ['main', 'regtest']) {
    const vars = { ...filledIn, BITCOIN_CHAIN: chain };
    const probe = interpolate((service('bitcoind').healthcheck?.test ?? []).join(' '), vars);
    const arg = (name: string) => interpolate((service('bitcoind').command ?? []).find((a) => a.startsWith(`-${name}=`)) ?? '', vars);
    assert.ok(probe.includes(arg('chain')) && probe.includes(arg('rpcport')), `${probe} asks the node started with ${arg('chain')} ${arg('rpcport')}`);
    assert.ok(arg('chain').endsWith(chain));
  }
});

test('compose: named volumes keep the Postgres data, the node datadir and the portal DATA_DIR', () => {
  const declared = Object.keys(compose.volumes ?? {});
  const mountOf = (name: string, target: string) => {
    const volume = (service(name).volumes ?? []).find((v) => v.split(':')[1] === target);
    assert.ok(volume, `${name} mounts a volume at ${target}`);
    assert.ok(declared.includes(volume.split(':')[0]!), `${volume} is a named volume`);
  };
  mountOf('postgres', '/var/lib/postgresql/data');
  mountOf('bitcoind', nodeArg('datadir'));
  mountOf('server', serverEnv().DATA_DIR!);
});

test('compose: the server reaches the node where it listens, within its RPC work queue, and only the portal is published', () => {
  const env = serverEnv();
  assert.equal(new URL(env.BITCOIN_RPC_URL!).port, nodeArg('rpcport'), 'BITCOIN_RPC_URL names the node RPC port');
  assert.equal(new URL(env.BITCOIN_RPC_URL!).hostname, 'bitcoind');
  assert.equal(new URL(env.BITCOIN_ZMQ_URL!).port, new URL(nodeArg('zmqpubsequence')).port, 'BITCOIN_ZMQ_URL names the -zmqpubsequence port');
  assert.ok(Number(env.BITCOIN_RPC_CONCURRENCY) < Number(nodeArg('rpcworkqueue')), 'BITCOIN_RPC_CONCURRENCY stays under -rpcworkqueue');
  assert.equal(env.BITCOIN_RPC_USER, nodeArg('rpcauth').split(':')[0], 'the RPC user is the one -rpcauth names');
  // RPC is allowed from the compose network alone.
  assert.deepEqual(compose.networks?.backend?.ipam?.config?.map((c) => resolved(c.subnet ?? '')), [nodeArg('rpcallowip')]);

  assert.deepEqual(service('bitcoind').ports ?? [], [], 'the node publishes nothing');
  assert.deepEqual(service('postgres').ports ?? [], [], 'Postgres publishes nothing');
  const published = (service('server').ports ?? []).map(resolved);
  assert.deepEqual(published, [`127.0.0.1:${env.PORT}:${env.PORT}`], 'the portal is published on loopback, for the TLS proxy');
  // Also when .env leaves PORTAL_BIND out.
  const withoutBind = (service('server').ports ?? []).map((p) => interpolate(p, { ...filledIn, PORTAL_BIND: undefined }));
  assert.deepEqual(withoutBind, [`127.0.0.1:${env.PORT}:${env.PORT}`], 'loopback is the default');
});

test('compose: the portal and the node run on a read-only root filesystem; logs rotate with a driver Docker and Podman both have', () => {
  // npm run test:deploy checks the running containers; this keeps the file from losing it in between.
  assert.equal(service('server').read_only, true);
  assert.deepEqual(service('server').tmpfs, ['/tmp'], 'the portal writes to /tmp (and DATA_DIR) only');
  assert.equal(service('bitcoind').read_only, true);
  for (const name of Object.keys(compose.services)) {
    const logging = service(name).logging;
    // Docker's `local` driver does not exist in Podman, which refuses the container.
    assert.equal(logging?.driver, 'json-file', `${name} logs with json-file`);
    assert.ok(logging.options?.['max-size'], `${name}'s logs rotate`);
  }
});
