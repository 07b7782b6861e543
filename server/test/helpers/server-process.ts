import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePorts } from '../../dev/bitcoin/node-launcher.ts';
import type { TestNode } from './regtest.ts';

/**
 * The real server (`npm start`'s entry point, src/cli/start.ts) in a child
 * process, configured for a test's node and Postgres database, so a test can
 * kill it as an operator's crash would (SIGKILL: no shutdown hooks run).
 */

export interface ServerProcess {
  baseUrl: string;
  /** Its DATA_DIR (the spool of submission records lives there); deleted by kill(). */
  dataDir: string;
  pid: number;
  /** False once the process has exited, for whatever reason. */
  running(): boolean;
  /** Everything the server printed. */
  output(): string;
  /** Sends the signal and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const SERVER_ENTRY = path.resolve(import.meta.dirname, '..', '..', 'src', 'cli', 'start.ts');
const READY_TIMEOUT_MS = 60_000;
/**
 * Node's compile cache for the server's modules: a start that compiles them
 * all again takes about a second longer, and tests that restart the server
 * dozens of times pay that each time. Keyed by content, so never stale.
 */
const COMPILE_CACHE_DIR = path.join(tmpdir(), 'slipstream-node-compile-cache');
/** The AUTH_KEY_SECRET every server started here shares; `env: { AUTH_KEY_SECRET: '' }` leaves it unset. */
export const SERVER_AUTH_KEY_SECRET = 'the secret servers started by tests share, not a real one';

export async function startServerProcess(options: { node: TestNode; databaseUrl: string; env?: Record<string, string> }): Promise<ServerProcess> {
  const [port, idpPort] = (await freePorts(2)) as [number, number];
  const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-server-'));
  const child: ChildProcess = spawn(process.execPath, [SERVER_ENTRY], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DEV_IDP_PORT: String(idpPort),
      DATA_DIR: dataDir,
      DATABASE_URL: options.databaseUrl,
      BITCOIN_RPC_URL: options.node.rpcUrl,
      BITCOIN_RPC_COOKIE_FILE: options.node.cookieFile,
      BITCOIN_ZMQ_URL: options.node.zmqSequenceUrl,
      LOG_LEVEL: 'warn',
      NODE_COMPILE_CACHE: COMPILE_CACHE_DIR,
      // Each start has a DATA_DIR of its own on a shared database, as instances
      // do: they share the secret that seals the sign-in key (AUTH_KEY_SECRET).
      AUTH_KEY_SECRET: SERVER_AUTH_KEY_SECRET,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!output.includes('web app:')) {
    if (child.exitCode !== null) throw new Error(`The server exited (${child.exitCode}) before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server was not ready after ${READY_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    pid: child.pid!,
    running: () => child.exitCode === null && child.signalCode === null,
    output: () => output,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
