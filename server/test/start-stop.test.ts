import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from '../dev/bitcoin/node-launcher.ts';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { isProcessRunning } from '../src/lib/process-alive.ts';
import { readRunFile } from '../src/lib/run-file.ts';
import { until } from './helpers/until.ts';

/**
 * `npm start` with its embedded node on ports that are not the defaults, as
 * a developer meets it: the tools (`npm run demo:tx`, `npm run mine`) find
 * the portal and its node from DATA_DIR alone and say what they tried when
 * they cannot; a terminal's Ctrl+C (SIGINT to the whole foreground process
 * group) stops the portal and its node once, quietly.
 */

const SERVER_DIR = path.resolve(import.meta.dirname, '..');
const SERVER_ENTRY = path.join(SERVER_DIR, 'src', 'cli', 'start.ts');
const DEMO_TX = path.join(SERVER_DIR, 'dev', 'cli', 'demo-tx.ts');
const MINE = path.join(SERVER_DIR, 'dev', 'cli', 'mine.ts');

/** Runs a tool as `npm run -s <tool>` does, with only `env` besides PATH and HOME. */
async function tool(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('npm start with its embedded node, on ports that are not the defaults', () => {
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  let nodePid: number | undefined;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'portal-start-'));
    const [port, idp, rpc, p2p, zmq, policy] = (await freePorts(6)) as [number, number, number, number, number, number];
    // A process group of its own, led by the portal: what a shell makes of a foreground job.
    child = spawn(process.execPath, [SERVER_ENTRY], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DEV_IDP_PORT: String(idp),
        REGTEST_RPC_PORT: String(rpc),
        REGTEST_P2P_PORT: String(p2p),
        REGTEST_ZMQ_PORT: String(zmq),
        REGTEST_POLICY_RPC_PORT: String(policy),
        STANDARD_POLICY_NODE: 'off',
        ...(process.env.BITCOIND ? { BITCOIND: process.env.BITCOIND } : {}),
        LOG_LEVEL: 'warn',
      },
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await until(async () => output.includes('Ctrl+C stops') || child.exitCode !== null, async () => output, 120_000);
    assert.ok(output.includes('Ctrl+C stops'), `the portal did not start:\n${output}`);
    nodePid = Number.parseInt(await readFile(path.join(dataDir, 'bitcoind', 'regtest', 'bitcoind.pid'), 'utf8'), 10);
  });

  after(async () => {
    if (child?.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    if (nodePid !== undefined && isProcessRunning(nodePid)) process.kill(nodePid, 'SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('demo:tx finds the portal and its node from DATA_DIR alone, whatever their ports', async () => {
    const res = await tool(DEMO_TX, [], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
    const run = await readRunFile(dataDir);
    assert.ok(run?.node, 'the running portal left its run file');
    const rpc = createRpcClient({ url: run.node.rpcUrl, auth: { kind: 'cookie', cookieFile: run.node.cookieFile }, timeoutMs: 10_000, maxConcurrency: 1 });
    const [accepted] = await rpc.call<Array<{ allowed: boolean }>>('testmempoolaccept', [[res.stdout.trim()]]);
    assert.equal(accepted?.allowed, true, 'a valid transaction, made by the portal\'s own node');
  });

  test('mine -- N mines N blocks on that node', async () => {
    const run = (await readRunFile(dataDir))!;
    const rpc = createRpcClient({ url: run.node!.rpcUrl, auth: { kind: 'cookie', cookieFile: run.node!.cookieFile }, timeoutMs: 10_000, maxConcurrency: 1 });
    const height = await rpc.call<number>('getblockcount');
    const res = await tool(MINE, ['2'], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(await rpc.call<number>('getblockcount'), height + 2);
    assert.match(res.stdout, new RegExp(`^Mined 2 blocks; the chain is at height ${height + 2}\\.`));
    assert.equal((await tool(MINE, ['lots'], { DATA_DIR: dataDir })).code, 1, 'a bad count is refused');
  });

  test('without the portal they say everything they tried', async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'portal-none-'));
    try {
      const [port, rpcPort] = (await freePorts(2)) as [number, number];
      const res = await tool(DEMO_TX, [], { DATA_DIR: elsewhere, PORT: String(port), REGTEST_RPC_PORT: String(rpcPort) });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /Could not reach the node the portal started\. Tried:/);
      assert.ok(res.stderr.includes(path.join(elsewhere, 'portal.run.json')), res.stderr);
      assert.ok(res.stderr.includes(`node RPC at http://127.0.0.1:${rpcPort}`), res.stderr);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  test('Ctrl+C stops the portal and its node once, quietly', async () => {
    assert.ok(nodePid !== undefined && isProcessRunning(nodePid));
    // The terminal signals the foreground process group: the node must not be in it (Linux: /proc/PID/stat, field 5).
    const stat = await readFile(`/proc/${nodePid}/stat`, 'utf8');
    const processGroup = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    assert.notEqual(processGroup, child.pid, 'the node runs in a process group of its own');

    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await exited, 0, output);
    assert.match(output, /stopped cleanly/);
    assert.doesNotMatch(output, /RPC stop failed|SIGTERM|SIGKILL/, output);
    assert.equal(isProcessRunning(nodePid), false, 'the node stopped with the portal');
    assert.equal(await readRunFile(dataDir), undefined, 'the run file is gone with the portal');
  });
});
