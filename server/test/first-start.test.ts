import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from '../dev/bitcoin/node-launcher.ts';
import { createRpcClient, type RpcClient } from '../src/bitcoin/rpc-client.ts';
import { isProcessRunning } from '../src/lib/process-alive.ts';
import { readRunFile } from '../src/lib/run-file.ts';
import { discover, signIn } from './helpers/oidc-login.ts';
import { until } from './helpers/until.ts';

/**
 * `npm start` as a first-time user meets it, with the embedded node and the
 * local development identity provider: a busy port is said at once, before
 * any node starts; the demo staff credentials it prints sign in on both
 * sign-in pages and stay the same, with every session, across a restart;
 * `npm run staff` works while it runs; `npm run demo:tx -- --psbt` makes a
 * PSBT to paste.
 */

const SERVER_DIR = path.resolve(import.meta.dirname, '..');
const SERVER_ENTRY = path.join(SERVER_DIR, 'src', 'cli', 'start.ts');
const STAFF = path.join(SERVER_DIR, 'src', 'cli', 'staff.ts');
const DEMO_TX = path.join(SERVER_DIR, 'dev', 'cli', 'demo-tx.ts');
const CLIENT_ID = 'slipstream-portal';

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startPortal(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      STANDARD_POLICY_NODE: 'off',
      LOG_LEVEL: 'warn',
      ...(process.env.BITCOIND ? { BITCOIND: process.env.BITCOIND } : {}),
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function tool(script: string, args: string[], env: Record<string, string>, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = promisify(execFile)(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } });
  if (input !== undefined) run.child.stdin!.end(input);
  try {
    const { stdout, stderr } = await run;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function occupy(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

describe('a port already in use', () => {
  for (const setting of ['PORT', 'DEV_IDP_PORT'] as const) {
    test(`${setting}: said in one line before any node starts, and the start fails`, async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-busy-'));
      const [port, idp, rpc, p2p, zmq] = (await freePorts(5)) as [number, number, number, number, number];
      const busy = setting === 'PORT' ? port : idp;
      const blocker = await occupy(busy);
      try {
        const portal = startPortal({ DATA_DIR: dataDir, PORT: String(port), DEV_IDP_PORT: String(idp), REGTEST_RPC_PORT: String(rpc), REGTEST_P2P_PORT: String(p2p), REGTEST_ZMQ_PORT: String(zmq) });
        assert.equal(await portal.exited, 1);
        assert.match(portal.output(), new RegExp(`^\\[portal\\] start-up failed: port ${busy} is in use: set ${setting}$`, 'm'));
        assert.doesNotMatch(portal.output(), /^\s+at /m, 'no stack trace');
        assert.doesNotMatch(portal.output(), /regtest|bitcoind|mined/i, 'no node was started');
        assert.deepEqual((await readdir(dataDir)).filter((f) => f.startsWith('bitcoind')), []);
      } finally {
        await new Promise<void>((resolve) => blocker.close(() => resolve()));
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe('npm start, signed in, then started again', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let portal: Started;
  let base: string;
  let nodePid: number | undefined;
  let rpc: RpcClient;

  const credentials = (output: string) =>
    Object.fromEntries([...output.matchAll(/^\[portal\] +(admin|viewer) \/ (\S+) {2}\(/gm)].map((m) => [m[1]!, m[2]!]));
  const login = async (username: string, password: string) => {
    const res = await fetch(`${base}/rest-api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    return { status: res.status, body: (await res.json()) as { token?: string; message?: string } };
  };
  const settingsWith = async (token: string) => (await fetch(`${base}/rest-api/settings/view`, { headers: { authorization: `Bearer ${token}` } })).status;

  async function start(): Promise<void> {
    portal = startPortal(env);
    await until(async () => portal.output().includes('Ctrl+C stops') || portal.child.exitCode !== null, async () => portal.output(), 120_000);
    assert.ok(portal.output().includes('Ctrl+C stops'), `the portal did not start:\n${portal.output()}`);
    const run = (await readRunFile(dataDir))!;
    nodePid = run.pid;
    rpc = createRpcClient({ url: run.node!.rpcUrl, auth: { kind: 'cookie', cookieFile: run.node!.cookieFile }, timeoutMs: 10_000, maxConcurrency: 1 });
  }

  async function stop(): Promise<void> {
    process.kill(-portal.child.pid!, 'SIGINT');
    assert.equal(await portal.exited, 0, portal.output());
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'portal-first-'));
    const [port, idp, rpcPort, p2p, zmq] = (await freePorts(5)) as [number, number, number, number, number];
    base = `http://127.0.0.1:${port}`;
    env = { DATA_DIR: dataDir, PORT: String(port), DEV_IDP_PORT: String(idp), REGTEST_RPC_PORT: String(rpcPort), REGTEST_P2P_PORT: String(p2p), REGTEST_ZMQ_PORT: String(zmq) };
    await start();
  });

  after(async () => {
    if (portal?.child.exitCode === null && portal.child.signalCode === null) process.kill(-portal.child.pid!, 'SIGKILL');
    if (nodePid !== undefined && isProcessRunning(nodePid)) process.kill(nodePid, 'SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('the printed demo credentials sign in with a password too, and are kept in DATA_DIR for this user only', async () => {
    const printed = credentials(portal.output());
    assert.deepEqual(Object.keys(printed).sort(), ['admin', 'viewer'], portal.output());
    assert.match(portal.output(), /login\?method=password/);
    // Once: the embedded node's limits, named from the node itself.
    assert.equal(portal.output().match(/^\[portal\] node limits: Bitcoin Knots [\d.]+ \(\d+\) with -acceptnonstdtxn=1 -corepolicy=1: takes transactions over 400,000 WU/gm)?.length, 1, portal.output());
    assert.equal((await stat(path.join(dataDir, 'dev-identity.json'))).mode & 0o777, 0o600);
    for (const [username, password] of Object.entries(printed)) {
      const res = await login(username, password);
      assert.equal(res.status, 200, `${username}: ${res.body.message}`);
      assert.equal(await settingsWith(res.body.token!), 200);
    }
    assert.equal((await login('admin', 'not the password at all')).status, 401);
  });

  test('npm run staff works while the portal runs on its embedded database', async () => {
    const added = await tool(STAFF, ['add', 'night-shift'], { DATA_DIR: dataDir });
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^added night-shift \(viewer\)$/m);
    const password = /^password: (\S+)$/m.exec(added.stdout)?.[1];
    assert.ok(password, added.stdout);
    const res = await login('night-shift', password);
    assert.equal(res.status, 200, res.body.message);
    const listed = await tool(STAFF, ['list'], { DATA_DIR: dataDir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^night-shift\tviewer$/m);
    const reset = await tool(STAFF, ['passwd', 'night-shift', '--password-stdin'], { DATA_DIR: dataDir }, 'a long enough new password\n');
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal((await login('night-shift', 'a long enough new password')).status, 200);
    const refused = await tool(STAFF, ['role', 'nobody-here', '--admin'], { DATA_DIR: dataDir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /No account named nobody-here/);
  });

  test('demo:tx -- --psbt prints a signed PSBT, not finalized, that the portal takes', async () => {
    const res = await tool(DEMO_TX, ['--psbt'], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
    const psbt = res.stdout.trim();
    assert.match(psbt, /^cHNidP8/, 'base64 of the BIP 174 magic');
    const decoded = await rpc.call<{ inputs: Array<Record<string, unknown>> }>('decodepsbt', [psbt]);
    for (const input of decoded.inputs) {
      assert.equal(input.final_scriptwitness, undefined, 'not finalized');
      assert.ok(input.partial_signatures ?? input.taproot_key_path_sig, 'signed');
    }
    const submitted = await fetch(`${base}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: psbt }) });
    assert.equal(submitted.status, 200, await submitted.clone().text());
  });

  test('a restart keeps the demo passwords, and every session signed in before it', async () => {
    const printed = credentials(portal.output());
    const local = (await login('viewer', printed.viewer!)).body.token!;
    const issuer = /local development provider at (\S+)/.exec(portal.output())?.[1];
    assert.ok(issuer, portal.output());
    const tokens = await signIn({ issuer, clientId: CLIENT_ID, redirectUri: `${base}/login/callback`, username: 'admin', password: printed.admin! });
    assert.equal(await settingsWith(tokens.idToken), 200);

    await stop();
    await start();

    assert.deepEqual(credentials(portal.output()), printed, 'the same passwords');
    assert.equal(await settingsWith(tokens.idToken), 200, 'the provider session signed in before');
    assert.equal(await settingsWith(local), 200, 'the password session signed in before');
    // Renewal still works: the provider kept its refresh tokens.
    const discovery = await discover(issuer);
    const renewed = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken!, client_id: CLIENT_ID }).toString(),
    });
    assert.equal(renewed.status, 200, await renewed.clone().text());
    assert.equal(await settingsWith(((await renewed.json()) as { id_token: string }).id_token), 200);
    await stop();
  });
});
