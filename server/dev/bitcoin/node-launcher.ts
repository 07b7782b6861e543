import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBitcoind, type BitcoindBinary } from './node-fetch.ts';
import { isProcessRunning } from '../../src/lib/process-alive.ts';
import { createRpcClient, RpcCode, RpcError, RpcTransportError, type RpcClient } from '../../src/bitcoin/rpc-client.ts';

/**
 * Starts a private regtest node for development and tests
 * (docs/architecture.md#the-real-bitcoin-node-in-dev-and-tests).
 *
 * Why it looks like this:
 * - Policy flags: `-acceptnonstdtxn=1 -corepolicy=1` make Knots behave like
 *   Bitcoin Core's policy and accept non-standard transactions on regtest (for
 *   instance over the 400,000 weight-unit standard limit), which the portal's
 *   submit path must handle. `-upnp` is not passed: UPnP support is gone from
 *   this Knots (v29) and the flag no longer appears in `-help` (it is still
 *   parsed, as a no-op).
 * - Everything listens on 127.0.0.1 only; the node makes no outbound
 *   connections (no DNS/fixed seeds, no listening socket).
 * - bitcoind's stdout/stderr go to a file in the datadir rather than a pipe, so
 *   the node never dies of a broken pipe and never holds our event loop open.
 *   If our process exits without `stop()`, the node is sent SIGTERM (a clean
 *   shutdown) rather than left running.
 * - Readiness is polled with getblockchaininfo; if the process dies first the
 *   error carries the tail of its debug.log, which is where bitcoind says why.
 */

export interface LaunchRegtestNodeOptions {
  datadir: string;
  rpcPort: number;
  /** P2P port; the node does not listen (-listen=0), but keep it distinct from other nodes'. */
  p2pPort: number;
  /** One ZMQ port carries both the `sequence` and `hashblock` topics. */
  zmqPort: number;
  /** A bitcoind binary to use instead of the downloaded Knots (the `BITCOIND` setting). */
  bitcoindPath?: string | undefined;
  /** Where the downloaded Knots lives, e.g. `<repo>/.cache/bitcoin-knots`. */
  cacheDir: string;
  log: (message: string) => void;
  /** More bitcoind arguments, appended last (so they win over the defaults). */
  extraArgs?: string[];
  /** Give up waiting for RPC after this long (default 60 s). */
  readyTimeoutMs?: number;
  /**
   * Start bitcoind in a process group of its own (default true). A terminal's
   * Ctrl+C signals the whole foreground process group: a node in the
   * portal's group would get SIGINT too and shut itself down while the
   * portal asks it to stop by RPC, which then fails ("RPC stop failed …
   * sending SIGTERM"). In its own group it hears only the portal, which stops
   * it once (and SIGTERMs it if the portal exits without stopping it). Tests
   * pass false: a test run interrupted with Ctrl+C takes its nodes with it.
   */
  ownProcessGroup?: boolean;
  /**
   * A node that only follows another's chain (the standard-policy oracle,
   * policy-node.ts): no wallet, no mining, no ZMQ, no transaction index, and
   * none of the pool node's policy defaults but `-corepolicy`; its policy is
   * what the caller passes in extraArgs.
   */
  follower?: boolean;
}

export interface LaunchedNode {
  rpcUrl: string;
  /** RPC cookie (`<datadir>/regtest/.cookie`), rewritten on every start. */
  cookieFile: string;
  /** ZMQ endpoint publishing both `sequence` and `hashblock`. */
  zmqSequenceUrl: string;
  /** Node-level RPC client (use `rpc.wallet(WALLET_NAME)` for wallet calls). */
  rpc: RpcClient;
  datadir: string;
  debugLogFile: string;
  pid: number;
  /** RPC `stop`, then wait for the process to exit; SIGKILL after 30 s. Idempotent. */
  stop(): Promise<void>;
}

/** The descriptor wallet every launched node has loaded. */
export const WALLET_NAME = 'portal';

/** Chain height at which the first coinbase is mature (100 confirmations). */
export const MATURE_HEIGHT = 101;

const STOP_GRACE_MS = 30_000;
const DEFAULT_READY_TIMEOUT_MS = 60_000;

/** bitcoind processes we started and have not seen exit; SIGTERMed if we exit first. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGTERM');
  });
}

/** The pool node's defaults a follower does without (see LaunchRegtestNodeOptions.follower). */
const FOLLOWER_DROPS = /^-(zmqpub|txindex|fallbackfee|acceptnonstdtxn)/;

export function regtestArgs(options: Pick<LaunchRegtestNodeOptions, 'datadir' | 'rpcPort' | 'p2pPort' | 'zmqPort'>): string[] {
  const zmq = `tcp://127.0.0.1:${options.zmqPort}`;
  return [
    '-regtest',
    `-datadir=${options.datadir}`,
    '-server',
    `-rpcport=${options.rpcPort}`,
    `-port=${options.p2pPort}`,
    '-listen=0',
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    '-acceptnonstdtxn=1',
    '-corepolicy=1',
    '-txindex=1',
    '-fallbackfee=0.0002',
    `-zmqpubsequence=${zmq}`,
    `-zmqpubhashblock=${zmq}`,
    '-printtoconsole=0',
    `-debuglogfile=${join(options.datadir, 'debug.log')}`,
    '-dnsseed=0',
    '-fixedseeds=0',
    '-discover=0',
    '-natpmp=0',
  ];
}

/**
 * Set by `npm run test:unit`: that tier starts no node, so that it stays
 * under a minute and runs anywhere. A unit test that reaches for one fails at
 * once with the reason, instead of quietly making the tier slow.
 */
export const NO_NODE_ENV = 'SLIPSTREAM_TEST_NO_NODE';

export async function launchRegtestNode(options: LaunchRegtestNodeOptions): Promise<LaunchedNode> {
  if (process.env[NO_NODE_ENV] === '1') {
    throw new Error(`${NO_NODE_ENV}=1: the unit tier starts no Bitcoin node. A test that needs one belongs in server/test/ (the integration tier).`);
  }
  const { datadir, log } = options;
  const binary = await ensureBitcoind({ cacheDir: options.cacheDir, log, bitcoindPath: options.bitcoindPath });
  await mkdir(datadir, { recursive: true, mode: 0o700 });
  await refuseIfAlreadyRunning(datadir, log);

  const debugLogFile = join(datadir, 'debug.log');
  const outputFile = join(datadir, 'bitcoind.out');
  const cookieFile = join(datadir, 'regtest', '.cookie');
  const rpcUrl = `http://127.0.0.1:${options.rpcPort}`;
  const defaults = options.follower ? regtestArgs(options).filter((arg) => !FOLLOWER_DROPS.test(arg)) : regtestArgs(options);
  const args = [...(await supportedArgs(binary, defaults, log)), ...(options.extraArgs ?? [])];
  const { file, args: argv } = binary.command(args);

  const output = openSync(outputFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, argv, { stdio: ['ignore', output, output], detached: options.ownProcessGroup ?? true });
  } finally {
    closeSync(output); // the child has its own copy
  }
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      running.delete(child);
      resolve();
    });
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  running.add(child);
  installExitHook();
  child.unref();

  const pid = child.pid;
  if (pid === undefined) {
    const error = await spawnError;
    running.delete(child);
    throw new Error(`Cannot start ${binary.bitcoind}: ${error.message}`, { cause: error });
  }
  log(`bitcoind pid ${pid} starting on ${rpcUrl} (datadir ${datadir})`);

  const rpc = createRpcClient({ url: rpcUrl, auth: { kind: 'cookie', cookieFile }, timeoutMs: 120_000, maxConcurrency: 4 });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exited) return;
      child.ref(); // keep the event loop alive until the node is really gone
      try {
        await rpc.call('stop');
      } catch (error) {
        log(`RPC stop failed (${(error as Error).message}); sending SIGTERM`);
        child.kill('SIGTERM');
      }
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          log(`bitcoind pid ${pid} still running ${STOP_GRACE_MS / 1000} s after stop; SIGKILL`);
          child.kill('SIGKILL');
          resolve();
        }, STOP_GRACE_MS);
      });
      await Promise.race([exit, killed]);
      await exit;
      clearTimeout(timer);
    })();
    return stopping;
  };

  try {
    await waitForRpc(rpc, () => exited, options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS, async (why) => {
      const tail = await fileTail(debugLogFile, 30);
      const out = await fileTail(outputFile, 10);
      return new Error(
        `bitcoind (pid ${pid}, datadir ${datadir}) ${why}.\n` +
          `--- ${outputFile} ---\n${out || '(empty)'}\n--- ${debugLogFile} (tail) ---\n${tail || '(empty)'}`,
      );
    });
    if (!options.follower) {
      await ensureWallet(rpc, log);
      await mineToMaturity(rpc, log);
    }
  } catch (error) {
    if (!exited) await stop().catch(() => child.kill('SIGKILL'));
    throw error;
  }

  return {
    rpcUrl,
    cookieFile,
    zmqSequenceUrl: `tcp://127.0.0.1:${options.zmqPort}`,
    rpc,
    datadir,
    debugLogFile,
    pid,
    stop,
  };
}

/**
 * Drops default arguments this bitcoind does not list in `-help -help-debug`
 * (e.g. `-corepolicy` is Knots-only: a Bitcoin Core given as BITCOIND would
 * refuse to start with it). Extra arguments are the caller's and kept as is.
 */
async function supportedArgs(binary: BitcoindBinary, args: string[], log: (message: string) => void): Promise<string[]> {
  const help = binary.command(['-help', '-help-debug']);
  const { stdout } = await promisify(execFile)(help.file, help.args, { maxBuffer: 16 * 1024 * 1024 });
  const known = new Set(Array.from(stdout.matchAll(/^ {2}-([a-z0-9]+)/gm), (m) => m[1]));
  if (known.size === 0) return args; // unexpected help format: let bitcoind judge
  return args.filter((arg) => {
    const name = /^-([a-z0-9]+)/.exec(arg)?.[1];
    if (name === undefined || known.has(name)) return true;
    log(`Not passing ${arg}: ${binary.bitcoind} does not support it`);
    return false;
  });
}

/**
 * bitcoind writes `<datadir>/regtest/bitcoind.pid` and removes it on a clean
 * shutdown. A pid file naming a live bitcoind means the datadir is in use;
 * starting a second node would fail later with a less helpful lock error.
 */
async function refuseIfAlreadyRunning(datadir: string, log: (message: string) => void): Promise<void> {
  const pidFile = join(datadir, 'regtest', 'bitcoind.pid');
  let text: string;
  try {
    text = await readFile(pidFile, 'utf8');
  } catch {
    return;
  }
  const pid = Number.parseInt(text, 10);
  if (Number.isInteger(pid) && pid > 0 && (await isBitcoind(pid))) {
    throw new Error(
      `A bitcoind (pid ${pid}) is already running on ${datadir}. Stop it (kill ${pid}) or use another datadir.`,
    );
  }
  log(`Removing stale ${pidFile} (pid ${text.trim()} is not running)`);
  await unlink(pidFile);
}

async function isBitcoind(pid: number): Promise<boolean> {
  if (!isProcessRunning(pid)) return false;
  // A reused pid could belong to anything; on Linux check that it is a bitcoind.
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes('bitcoind');
  } catch {
    return true; // no /proc: trust the pid
  }
}

async function waitForRpc(
  rpc: RpcClient,
  exited: () => { code: number | null; signal: NodeJS.Signals | null } | undefined,
  timeoutMs: number,
  failure: (why: string) => Promise<Error>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const gone = exited();
    if (gone) throw await failure(`exited (${gone.signal ?? `code ${gone.code}`}) before its RPC became ready`);
    try {
      await rpc.call('getblockchaininfo');
      return;
    } catch (error) {
      // Not listening yet (no cookie, connection refused), a stale cookie from an
      // earlier run not yet rewritten (401), or still warming up (-28).
      const notYet =
        (error instanceof RpcTransportError && (error.kind === 'unreachable' || error.status === 401)) ||
        (error instanceof RpcError && error.code === RpcCode.IN_WARMUP);
      if (!notYet) throw error;
    }
    if (Date.now() > deadline) throw await failure(`did not answer RPC within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Loads or creates the `portal` descriptor wallet; every outcome but a real error ends with it loaded. */
async function ensureWallet(rpc: RpcClient, log: (message: string) => void): Promise<void> {
  const loaded = await rpc.call<string[]>('listwallets');
  if (loaded.includes(WALLET_NAME)) return;
  try {
    await rpc.call('loadwallet', [WALLET_NAME, true]);
    return;
  } catch (error) {
    if (error instanceof RpcError && error.code === RPC_WALLET_ALREADY_LOADED) return;
    if (!(error instanceof RpcError && error.code === RPC_WALLET_NOT_FOUND)) throw error;
  }
  try {
    // createwallet name disable_private_keys blank passphrase avoid_reuse descriptors load_on_startup
    await rpc.call('createwallet', [WALLET_NAME, false, false, '', false, true, true]);
    log(`Created descriptor wallet "${WALLET_NAME}"`);
  } catch (error) {
    // Lost a race with another caller creating the same wallet.
    if (error instanceof RpcError && /already exists|already loaded/i.test(error.message)) return;
    throw error;
  }
}

/** RPC_WALLET_NOT_FOUND and RPC_WALLET_ALREADY_LOADED from src/rpc/protocol.h. */
const RPC_WALLET_NOT_FOUND = -18;
const RPC_WALLET_ALREADY_LOADED = -35;

async function mineToMaturity(rpc: RpcClient, log: (message: string) => void): Promise<void> {
  const height = await rpc.call<number>('getblockcount');
  if (height >= MATURE_HEIGHT) return;
  const wallet = rpc.wallet(WALLET_NAME);
  const address = await wallet.call<string>('getnewaddress', ['', 'bech32']);
  await wallet.call('generatetoaddress', [MATURE_HEIGHT - height, address]);
  log(`Mined ${MATURE_HEIGHT - height} blocks to reach height ${MATURE_HEIGHT}`);
}

async function fileTail(path: string, lines: number): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it; it may be taken again later). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/** `count` distinct free ports: all are held open at once so the OS cannot hand out one twice. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('Unexpected server address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
