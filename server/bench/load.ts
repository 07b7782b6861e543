import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type AutocannonClient, type AutocannonOptions, type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { WALLET_NAME } from '../dev/bitcoin/node-launcher.ts';
import { startTestNode, type TestNode } from '../test/helpers/regtest.ts';
import type { ServerReply, ServerSpec, ToServer } from './load-server.ts';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { randomBytes } from 'node:crypto';
import { blockTxids, holdsKey, txidKey } from '@slipstream/mempool-engine/queries/block-txids';
import { buildSmallTxs, type SmallTx } from './small-txs.ts';
import { ratio, round3, verdict } from './stats.ts';

/**
 * Load (docs/architecture.md#performance-budgets: "autocannon against parse-tx, submit-tx, status-check and
 * getinfo, and against the admin audit list at one million rows"):
 * throughput, p50/p99, error rate and server memory, each against a baseline
 * measured in the same run. It reports; it does not fail when a goal is
 * missed, only when the measurement went wrong (a server that would not
 * start, a submission the node did not take).
 *
 * Set-up: a regtest node (started by this bench), and two servers in child
 * processes started the same way (bench/load-server.ts): a bare Fastify
 * hello-world and the portal as production wires it (the product's default
 * RPC concurrency, audit trail on, the mempool engine following the node
 * over ZMQ, staff sign-in), its database holding 1,000,000 audit rows
 * (bench/audit-list.ts's fill; the Postgres server when TEST_DATABASE_URL is
 * set, else PGlite in the portal's process, as the embedded default runs).
 * The load generator is autocannon in this process; every run uses the same
 * number of connections. A warm-up pass over every endpoint comes first (JIT,
 * caches, connection pools and V8's young generation, which grows to its
 * full size under a high allocation rate and stays so); the portal's memory
 * after it is the baseline. Each run is preceded by an unmeasured warm-up
 * and a settled, garbage-collected memory reading, and followed by another;
 * a last repeat of the getinfo run shows whether memory goes on growing with
 * more of the same load, and RSS is split by where it lives (V8's heap pages,
 * malloc's arena, the binary's pages). The node's wallet is unloaded once the
 * transactions are built (see below), and the CPU every process used during
 * each run is printed, with the whole machine's, and what the machine was
 * busy with before the runs began.
 *
 * Goals:
 * - each read endpoint at least 85% of the hello-world's throughput (the
 *   better of two hello-world runs, one first and one last). Every request
 *   the portal answers leaves a row in the audit trail; the same reads on a
 *   portal without it show what the trail costs, and parse-tx, which asks
 *   the node about the coins a transaction spends, is shown against that
 *   node call alone;
 * - submit throughput limited by the node, not by the portal: portal ÷ raw
 *   sendrawtransaction straight at the node with the same connections, on
 *   the same number of distinct, valid transactions; the CPU each process
 *   used shows who the bottleneck was;
 * - no errors except the intended 429s (measured separately on a portal
 *   with a low rate limit; the main portal's limit is out of reach);
 * - the portal's RSS back within 10% of its baseline after the runs (its
 *   reading at start-up, before any load, is reported too);
 * - status-check of txids the portal never recorded (a fresh random one per
 *   request: 404) at least 80% of the rate for the recorded one, with no
 *   gettxoutproof and no node call at all: they are answered from the txid
 *   index of the blocks the portal follows. A txid mined in a followed
 *   block but never submitted there costs one getrawtransaction in its
 *   block; shown too. The index's size on this chain is printed, and the
 *   size and lookup time of one the size of a mainnet week, built here.
 */

const GOAL_READ_RATIO = 0.85;
const GOAL_UNKNOWN_RATIO = 0.8;
/** A mainnet week for the txid index's figures: 1,008 blocks of 3,500 transactions. */
const WEEK_BLOCKS = 1_008;
const TXS_PER_BLOCK = 3_500;
const GOAL_MEMORY_GROWTH = 0.1;

export interface LoadBenchOptions {
  /** Seconds per measured run of a read endpoint (default 5). */
  seconds?: number;
  /** Unmeasured seconds before each (default 1). */
  warmupSeconds?: number;
  /** Concurrent connections, every run (default 10). */
  connections?: number;
  /** Audit rows in the portal's database (default 1,000,000). */
  auditRows?: number;
  /** Distinct transactions submitted per submit run, portal and raw alike (default 2,000). */
  submits?: number;
  /** The rate-limited portal's limit per minute (default 200). */
  rateLimit?: number;
  /** Print the report (default true). */
  print?: boolean;
}

export interface Memory {
  rss: number;
  heapUsed: number;
  /** The JS heap's committed size: grows with the young generation under a high allocation rate. */
  heapTotal: number;
  /** Buffers and other memory outside the JS heap (includes arrayBuffers). */
  external: number;
  /**
   * RSS split (/proc/<pid>/status; NaN elsewhere): anonymous memory is the
   * process's own; file-backed pages are mostly the 120 MB node binary's,
   * faulted in as code paths first run, clean and shared.
   */
  rssAnon: number;
  rssFile: number;
  /** Resident part of glibc's main malloc arena (the [heap] mapping of /proc/<pid>/smaps): freed memory it keeps shows here. */
  rssMallocHeap: number;
  /**
   * Resident anonymous mappings under 1 MB: V8 maps its heap in 256 KB pages,
   * and keeps pages it has emptied mapped for reuse, so after a GC they can
   * hold far more than the heap's committed size (heapTotal).
   */
  rssSmallAnon: number;
}

export interface RunResult {
  name: string;
  server: 'hello' | 'portal' | 'node' | 'portal (rate-limited)' | 'portal (audit off)';
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  status2xx: number;
  status429: number;
  /** Answers other than the expected (2xx, or the run's `expect`) and 429, connection errors and timeouts. */
  otherErrors: number;
  statuses: Record<string, number>;
  /** Percent of one core during the run; `machine`: every process, out of 100 × the cores. */
  cpu: { server: number; node: number; client: number; machine: number };
  memory: { before: Memory; after: Memory } | undefined;
  /**
   * Portal runs: node calls made during the run (the app's and its mempool
   * engine's, one per batch) per request answered, by method.
   */
  nodeCallsPerRequest?: Record<string, number>;
  /** Throughput over the hello-world's (reads and hello runs). */
  ratioToHello?: number;
}

export interface LoadBenchResult {
  connections: number;
  seconds: number;
  database: string;
  auditRows: number;
  fillSeconds: number;
  runs: RunResult[];
  submit: { portalRps: number; rawRps: number; ratio: number; accepted: number; recorded: Record<string, number> };
  /** parse-tx against its one node call (a gettxout batch) sent straight at the node. */
  parse: { portalRps: number; rawRps: number; ratio: number };
  /** status-check of never-recorded txids (404) against the recorded one, the same run; gettxoutproof calls per request. */
  unknownStatus: { unknownRps: number; knownRps: number; ratio: number; gettxoutproofPerRequest: number; nodeCallsPerRequest: number; goalMet: boolean };
  /** The block tracker's txid index: the portal's on this chain, and one of a mainnet week built in this process. */
  txidIndex: { txids: number; bytes: number; week: { txids: number; bytes: number; missMicros: number } };
  /** The portal's audit writer at the end: written, dropped, failedWrites, queued. */
  audit: Record<string, number>;
  /** The portal's: `startup` before any load, `start` after the warm-up pass (the baseline), `end` after every run. */
  memory: { startup: Memory; start: Memory; end: Memory; afterRepeat: Memory; rssGrowth: number; goalMet: boolean };
  /** Percent of the machine's CPU busy in the second before the runs (other processes). */
  machineBusyBefore: number;
  readsGoalMet: boolean;
  errorsGoalMet: boolean;
  totalSeconds: number;
}

const LOAD_SERVER = path.join(import.meta.dirname, 'load-server.ts');
const FEE_RATE = 3;
const SUBMIT_WARMUP = 100;
const MB = 1024 * 1024;

interface Server {
  name: string;
  pid: number;
  baseUrl: string;
  adminToken: string | undefined;
  database: string;
  fillMs: number | undefined;
  ask<T extends ServerReply['type']>(message: ToServer, expect: T): Promise<Extract<ServerReply, { type: T }>>;
  close(): Promise<void>;
}

/** Forks bench/load-server.ts and waits until it listens. */
async function startServer(name: string, spec: ServerSpec): Promise<Server> {
  const child: ChildProcess = fork(LOAD_SERVER, [JSON.stringify(spec)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: Array<{ resolve: (reply: ServerReply) => void; reject: (error: Error) => void }> = [];
  let exited: Error | undefined;
  child.on('message', (reply: ServerReply) => {
    const next = waiting.shift();
    if (!next) return;
    if (reply.type === 'failed') next.reject(new Error(`${name} server: ${reply.message}`));
    else next.resolve(reply);
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`${name} server exited (${code ?? signal})`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const nextReply = () =>
    new Promise<ServerReply>((resolve, reject) => {
      if (exited) reject(exited);
      else waiting.push({ resolve, reject });
    });
  const ready = await nextReply();
  if (ready.type !== 'ready') throw new Error(`${name} server answered ${ready.type} before it was ready`);
  const server: Server = {
    name,
    pid: child.pid!,
    baseUrl: ready.baseUrl,
    adminToken: ready.adminToken,
    database: ready.database,
    fillMs: ready.fillMs,
    async ask(message, expect) {
      const reply = nextReply();
      child.send(message);
      const answer = await reply;
      if (answer.type !== expect) throw new Error(`${name} server answered ${answer.type} to ${message.type}`);
      return answer as Extract<ServerReply, { type: typeof expect }>;
    },
    async close() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await server.ask({ type: 'close' }, 'closed');
      await gone;
    },
  };
  return server;
}

/** CPU milliseconds a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks (USER_HZ, 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Busy and total CPU milliseconds of the whole machine so far, from /proc/stat; NaN elsewhere. */
function machineCpuMs(): { busy: number; total: number } {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    const t = ticks.slice(0, 8).map(Number);
    const idle = t[3]! + t[4]!;
    const total = t.reduce((a, b) => a + b, 0);
    return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

function rssSplit(pid: number): Pick<Memory, 'rssAnon' | 'rssFile' | 'rssMallocHeap' | 'rssSmallAnon'> {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    let rssMallocHeap = 0;
    let rssSmallAnon = 0;
    let mapping: { heap: boolean; smallAnon: boolean } | undefined;
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      // "start-end perms offset dev inode [path]", then "Field: value kB" lines.
      const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+ *(.*)$/.exec(line);
      if (header) {
        const bytes = parseInt(header[2]!, 16) - parseInt(header[1]!, 16);
        mapping = { heap: header[3] === '[heap]', smallAnon: header[3] === '' && bytes < MB };
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss && mapping) {
        if (mapping.heap) rssMallocHeap += Number(rss[1]) * 1024;
        if (mapping.smallAnon) rssSmallAnon += Number(rss[1]) * 1024;
      }
    }
    return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile'), rssMallocHeap, rssSmallAnon };
  } catch {
    return { rssAnon: Number.NaN, rssFile: Number.NaN, rssMallocHeap: Number.NaN, rssSmallAnon: Number.NaN };
  }
}

const clientCpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

function count(result: AutocannonResult, test: (status: number) => boolean): number {
  return Object.entries(result.statusCodeStats ?? {}).reduce((n, [status, s]) => n + (test(Number(status)) ? s.count : 0), 0);
}

/**
 * One connection's own request, fed from a shared queue of bodies. autocannon
 * shares the options' request objects between connections and builds each
 * connection's first request when the connection is made, so a shared
 * setupRequest would send the last-built body from every connection at
 * first; a request per connection (setupClient) sends each body once.
 */
function feed(bodies: Buffer[], request: Omit<AutocannonRequest, 'setupRequest' | 'body'>): { setupClient: AutocannonOptions['setupClient']; used: () => number } {
  let next = 0;
  const setupRequest = (req: AutocannonRequest) => {
    const body = bodies[next++];
    if (!body) throw new Error(`Out of request bodies after ${bodies.length}`);
    return { ...req, body };
  };
  return { setupClient: (client) => client.setRequests([{ ...request, setupRequest }]), used: () => next };
}

export async function runLoadBench(options: LoadBenchOptions = {}): Promise<LoadBenchResult> {
  const seconds = options.seconds ?? 5;
  const warmupSeconds = options.warmupSeconds ?? 1;
  const connections = options.connections ?? 10;
  const auditRows = options.auditRows ?? 1_000_000;
  const submits = options.submits ?? 2_000;
  const rateLimit = options.rateLimit ?? 200;
  const print = options.print ?? true;
  const out = (line = '') => {
    if (print) process.stdout.write(`${line}\n`);
  };
  const benchStarted = performance.now();
  const progress = (message: string) => {
    if (print) process.stderr.write(`[bench load +${((performance.now() - benchStarted) / 1000).toFixed(1)} s] ${message}\n`);
  };
  const cleanups: Array<() => Promise<void>> = [];
  try {
    progress('starting regtest node');
    // The wallet builds thousands of transactions first; without fsync on its
    // SQLite database that takes seconds instead of minutes.
    const node: TestNode = await startTestNode({ extraArgs: ['-unsafesqlitesync=1'] });
    cleanups.push(() => node.stop());

    // The transactions are built while the portal's database is filled.
    progress(`building ${2 * (submits + SUBMIT_WARMUP) + 3} transactions; starting the servers, the portal's with ${auditRows.toLocaleString('en-US')} audit rows`);
    const setupStarted = performance.now();
    const portalSpec: ServerSpec = { kind: 'portal', rpcUrl: node.rpcUrl, cookieFile: node.cookieFile, zmqUrl: node.zmqSequenceUrl, auditRows };
    const [txs, portal, hello] = await Promise.all([
      buildSmallTxs(node, 2 * (submits + SUBMIT_WARMUP) + 3, FEE_RATE),
      startServer('portal', portalSpec).then((s) => {
        cleanups.push(() => s.close());
        return s;
      }),
      startServer('hello', { kind: 'hello' }).then((s) => {
        cleanups.push(() => s.close());
        return s;
      }),
    ]);
    progress(`set up in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s (fill ${((portal.fillMs ?? 0) / 1000).toFixed(1)} s)`);
    // sendrawtransaction waits for the node's validation-interface queue, where
    // the wallet writes every transaction that spends or pays its coins (all of
    // these do) to its database: a cost of this harness, not of a pool's node,
    // and one that would hide the portal's own. Both submit runs measure the
    // node without it; blocks go to an address taken beforehand.
    const minerAddress = await node.address();
    await node.rpc.call('unloadwallet', [WALLET_NAME]);
    const take = (n: number): SmallTx[] => txs.splice(0, n);
    const [statusTx, parseTx, elsewhereTx] = take(3) as [SmallTx, SmallTx, SmallTx];
    const rawWarmup = take(SUBMIT_WARMUP);
    const rawTxs = take(submits);
    const portalWarmup = take(SUBMIT_WARMUP);
    const portalTxs = take(submits);

    const cookie = (await readFile(node.cookieFile, 'utf8')).trim();
    const rpcHeaders = { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(cookie).toString('base64')}` };
    const rpcBody = (tx: SmallTx, id: number) => Buffer.from(JSON.stringify({ jsonrpc: '1.0', id, method: 'sendrawtransaction', params: [tx.hex] }));
    const submitBody = (tx: SmallTx) => Buffer.from(JSON.stringify({ tx_hex: tx.hex }));
    const json = { 'content-type': 'application/json' };
    const admin = { authorization: `Bearer ${portal.adminToken}` };

    // Whatever else runs on this machine competes with every run: measured, not assumed away.
    const idle0 = machineCpuMs();
    await sleep(1000);
    const idle1 = machineCpuMs();
    const busyBefore = ((idle1.busy - idle0.busy) / (idle1.total - idle0.total)) * 100;
    // The transaction status-check asks about: submitted through the portal, so in the mempool and in tx_submissions.
    const submitted = await fetch(`${portal.baseUrl}/rest-api/submit-tx`, { method: 'POST', headers: json, body: submitBody(statusTx) });
    if (submitted.status !== 200) throw new Error(`The portal refused the status-check transaction: HTTP ${submitted.status} ${await submitted.text()}`);
    // One mined straight into a block (generateblock takes only it: the status-check transaction stays in the mempool), never submitted to the portal.
    await node.rpc.call('generateblock', [minerAddress, [elsewhereTx.hex]]);
    await node.rpc.call('syncwithvalidationinterfacequeue');
    await sleep(500);
    for (const [url, init] of [
      [`/rest-api/status-check?tx_id=${statusTx.txid}`, {}],
      [`/rest-api/status-check?tx_id=${elsewhereTx.txid}`, {}],
      ['/rest-api/getinfo', {}],
      ['/rest-api/parse-tx', { method: 'POST', headers: json, body: JSON.stringify({ tx_hexes: [parseTx.hex] }) }],
      ['/rest-api/audits/list', { headers: admin }],
    ] as const) {
      const res = await fetch(`${portal.baseUrl}${url}`, init);
      if (res.status !== 200) throw new Error(`${url} answered HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    }

    const memoryOf = async (server: Server, settleMs: number): Promise<Memory> => {
      const m = await server.ask({ type: 'memory', settleMs }, 'memory');
      return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, ...rssSplit(server.pid) };
    };
    const startupMemory = await memoryOf(portal, 1000);
    const runs: RunResult[] = [];

    interface Run {
      name: string;
      server: Server | 'node';
      label?: RunResult['server'];
      options: Omit<AutocannonOptions, 'url'> & { path?: string };
      /** The status every answer should have (default any 2xx). */
      expect?: number;
      /** Instead of the timed warm-up; false: none (submit runs warm up on transactions of their own, in the warm-up pass). */
      warmup?: (Omit<AutocannonOptions, 'url'> & { path?: string }) | false;
      memory?: boolean;
    }
    const cannon = (server: Run['server'], o: Run['options'], extra: Partial<AutocannonOptions> = {}) => {
      const { path: p, ...rest } = o;
      return autocannon({ url: `${server === 'node' ? node.rpcUrl : server.baseUrl}${p ?? ''}`, connections, timeout: 30, ...rest, ...extra });
    };
    const warm = async (run: Run) => {
      if (run.warmup === false) return;
      progress(`${run.name}: warm-up`);
      await (run.warmup ? cannon(run.server, run.warmup) : cannon(run.server, run.options, { duration: warmupSeconds }));
    };
    const measure = async (run: Run): Promise<RunResult> => {
      const serverPid = run.server === 'node' ? node.pid : run.server.pid;
      await warm(run);
      const measureMemory = run.memory !== false && run.server !== 'node';
      const before = measureMemory ? await memoryOf(run.server as Server, 500) : undefined;
      progress(`${run.name}: measuring`);
      const rpcCalls = async () => (run.server === 'node' ? undefined : (await run.server.ask({ type: 'rpc' }, 'rpc')).calls);
      const rpc0 = await rpcCalls();
      const cpu0 = { server: cpuMsOf(serverPid), node: cpuMsOf(node.pid), client: clientCpuMs(), machine: machineCpuMs().busy, at: performance.now() };
      const result = await cannon(run.server, run.options, run.options.amount ? {} : { duration: seconds });
      const wallMs = performance.now() - cpu0.at;
      const cpu = {
        server: round3(((cpuMsOf(serverPid) - cpu0.server) / wallMs) * 100),
        node: round3(((cpuMsOf(node.pid) - cpu0.node) / wallMs) * 100),
        client: round3(((clientCpuMs() - cpu0.client) / wallMs) * 100),
        machine: round3(((machineCpuMs().busy - cpu0.machine) / wallMs) * 100),
      };
      const rpc1 = await rpcCalls();
      const after = measureMemory ? await memoryOf(run.server as Server, 1000) : undefined;
      const requests = count(result, () => true);
      const nodeCalls = rpc0 && rpc1
        ? Object.fromEntries(
            Object.entries(rpc1)
              .map(([method, c]) => [method, round3((c.count - (rpc0[method]?.count ?? 0)) / requests)] as const)
              .filter(([, n]) => n > 0)
              .sort((a, b) => b[1] - a[1]),
          )
        : undefined;
      const status2xx = count(result, (s) => s >= 200 && s < 300);
      const status429 = count(result, (s) => s === 429);
      const expected = run.expect === undefined ? status2xx : count(result, (s) => s === run.expect);
      const r: RunResult = {
        name: run.name,
        server: run.label ?? (run.server === 'node' ? 'node' : (run.server.name as RunResult['server'])),
        requests,
        seconds: round3(result.duration),
        rps: round3(requests / result.duration),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        status2xx,
        status429,
        otherErrors: requests - expected - status429 + result.errors + result.timeouts,
        statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([s, c]) => [s, c.count])),
        cpu,
        memory: before && after ? { before, after } : undefined,
        ...(nodeCalls && run.server !== hello ? { nodeCallsPerRequest: nodeCalls } : {}),
      };
      runs.push(r);
      return r;
    };

    // A fresh random txid for every request: nothing the portal recorded, nothing any block holds.
    const unknownTxids = {
      setupClient: (client: AutocannonClient) =>
        client.setRequests([{ method: 'GET', setupRequest: (req: AutocannonRequest) => ({ ...req, path: `/rest-api/status-check?tx_id=${randomBytes(32).toString('hex')}` }) }]),
    };
    const reads: Run[] = [
      { name: 'GET /rest-api/getinfo', server: portal, options: { path: '/rest-api/getinfo' } },
      { name: 'GET /rest-api/status-check', server: portal, options: { path: `/rest-api/status-check?tx_id=${statusTx.txid}` } },
      { name: 'GET /rest-api/status-check (unknown)', server: portal, options: unknownTxids, expect: 404 },
      { name: 'GET /rest-api/status-check (mined elsewhere)', server: portal, options: { path: `/rest-api/status-check?tx_id=${elsewhereTx.txid}` } },
      { name: 'POST /rest-api/parse-tx', server: portal, options: { path: '/rest-api/parse-tx', method: 'POST', headers: json, body: JSON.stringify({ tx_hexes: [parseTx.hex] }) } },
      { name: 'GET /rest-api/audits/list (admin)', server: portal, options: { path: '/rest-api/audits/list', headers: admin } },
    ];
    const helloRun: Run = { name: 'GET /hello (bare Fastify)', server: hello, options: { path: '/hello' } };

    const mineAndSettle = async () => {
      await node.rpc.call('generatetoaddress', [1, minerAddress]);
      await node.rpc.call('syncwithvalidationinterfacequeue');
      await sleep(500);
    };

    // ---- a warm-up pass over everything (JIT, caches, the heap's young
    // generation, connection pools), then the memory baseline the runs are judged by
    // (no block before the reads: the status-check transaction stays in the mempool).
    progress('warm-up pass');
    await cannon('node', { amount: SUBMIT_WARMUP, setupClient: feed(rawWarmup.map((tx, i) => rpcBody(tx, i)), { method: 'POST', headers: rpcHeaders }).setupClient });
    await cannon(portal, { amount: SUBMIT_WARMUP, setupClient: feed(portalWarmup.map(submitBody), { method: 'POST', path: '/rest-api/submit-tx', headers: json }).setupClient });
    for (const run of [helloRun, ...reads]) await warm(run);
    const startMemory = await memoryOf(portal, 1000);

    const helloFirst = await measure(helloRun);
    for (const run of reads) await measure(run);

    // ---- what the reads cost without the audit trail: a portal whose writer keeps nothing, the same
    // reads (before any block: the status-check transaction is still waiting in the mempool).
    progress('reads on a portal without the audit trail');
    const unaudited = await startServer('portal (audit off)', { ...portalSpec, auditRows: 0, audit: false });
    cleanups.push(() => unaudited.close());
    // Its own database: the status-check transaction is recorded there too (the node holds it already, and says so: success).
    const resubmitted = await fetch(`${unaudited.baseUrl}/rest-api/submit-tx`, { method: 'POST', headers: json, body: submitBody(statusTx) });
    if (resubmitted.status !== 200) throw new Error(`The portal without the audit trail refused the status-check transaction: HTTP ${resubmitted.status} ${await resubmitted.text()}`);
    const unauditedReads: Run[] = reads
      .filter((run) => !run.name.includes('audits/list'))
      .map((run) => ({ ...run, name: `${run.name} (audit off)`, server: unaudited, label: 'portal (audit off)' as const, memory: false }));
    for (const run of unauditedReads) await measure(run);
    await unaudited.close();

    // ---- submit: raw sendrawtransaction at the node, then the portal, the same number of distinct transactions each
    const rawAccepted = new Set<string>();
    const rawFeed = feed(rawTxs.map((tx, i) => rpcBody(tx, i)), {
      method: 'POST',
      headers: rpcHeaders,
      onResponse: (status, body) => {
        if (status === 200) rawAccepted.add((JSON.parse(body) as { result: string }).result);
      },
    });
    const raw = await measure({
      name: 'sendrawtransaction (raw RPC)',
      server: 'node',
      options: { amount: submits, setupClient: rawFeed.setupClient },
      warmup: false,
    });
    await mineAndSettle();
    const portalAccepted = new Set<string>();
    const portalFeed = feed(portalTxs.map(submitBody), {
      method: 'POST',
      path: '/rest-api/submit-tx',
      headers: json,
      onResponse: (status, body) => {
        if (status === 200) portalAccepted.add((JSON.parse(body) as { message: string }).message);
      },
    });
    const portalSubmit = await measure({
      name: 'POST /rest-api/submit-tx',
      server: portal,
      options: { amount: submits, setupClient: portalFeed.setupClient },
      warmup: false,
    });
    if (rawFeed.used() !== submits || portalFeed.used() !== submits) throw new Error(`Bodies used: raw ${rawFeed.used()}, portal ${portalFeed.used()}, of ${submits} each`);
    if (rawAccepted.size !== submits) throw new Error(`The node accepted ${rawAccepted.size} of ${submits} distinct raw submissions: ${JSON.stringify(raw.statuses)}`);
    if (portalAccepted.size !== submits) throw new Error(`The portal accepted ${portalAccepted.size} of ${submits} distinct submissions: ${JSON.stringify(portalSubmit.statuses)}`);
    const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
    const missing = portalTxs.filter((tx) => !mempool.has(tx.txid)).length;
    if (missing > 0) throw new Error(`${missing} transactions the portal accepted are not in the node's mempool`);
    const records = await portal.ask({ type: 'records' }, 'records');
    await mineAndSettle();
    const { txidIndex } = await portal.ask({ type: 'records' }, 'records');
    const weekIndex = measureWeekIndex();

    const helloLast = await measure(helloRun);
    const endMemory = await memoryOf(portal, 2000);
    // Growth that a repeat of a run adds to is a leak; growth that stays put is
    // the allocator's high-water mark (freed memory glibc keeps in its arenas).
    const repeat = await measure({ ...reads[0]!, name: `${reads[0]!.name} (repeat)` });
    const repeatMemory = repeat.memory!.after;
    // Every request of every run audited: the writer drops rows (and counts them) only when it cannot keep up.
    const audit = (await portal.ask({ type: 'records' }, 'records')).audit;

    // ---- 429s: a portal whose limit the run exceeds at once
    progress(`rate limit: a portal limited to ${rateLimit} requests a minute`);
    const limited = await startServer('portal (rate-limited)', { ...portalSpec, auditRows: 0, rateLimitMax: rateLimit });
    cleanups.push(() => limited.close());
    const limitedRun = await measure({ name: `GET /rest-api/getinfo, limit ${rateLimit}/min`, server: limited, label: 'portal (rate-limited)', options: { path: '/rest-api/getinfo' }, warmup: { path: '/rest-api/getinfo', amount: 1, connections: 1 }, memory: false });
    await limited.close();

    // parse-tx's one node call alone: the batch of gettxout it sends, straight at the node.
    const parseInputs = decodeTxHex(parseTx.hex).inputs.map((input, id) => ({ jsonrpc: '1.0', id, method: 'gettxout', params: [input.txid, input.vout, false] }));
    const rawGettxout = await measure({ name: 'gettxout batch (raw RPC)', server: 'node', options: { method: 'POST', headers: rpcHeaders, body: JSON.stringify(parseInputs) } });

    // ---- report
    const helloRps = Math.max(helloFirst.rps, helloLast.rps);
    for (const r of runs) if (r.server === 'hello' || r.server === 'portal (audit off)' || reads.some((x) => x.name === r.name)) r.ratioToHello = round3(r.rps / helloRps);
    const readResults = runs.filter((r) => reads.some((x) => x.name === r.name));
    const readsGoalMet = readResults.every((r) => r.rps / helloRps >= GOAL_READ_RATIO);
    const submitRatio = portalSubmit.rps / raw.rps;
    // The rate-limited run may answer 429; every other run nothing but 2xx. The limit admits at most `rateLimit` (one went to the warm-up).
    const errorsGoalMet = runs.every((r) => r.otherErrors === 0 && (r.server === 'portal (rate-limited)' || r.status429 === 0)) && limitedRun.status2xx <= rateLimit && audit.dropped === 0;
    const rssGrowth = (endMemory.rss - startMemory.rss) / startMemory.rss;
    const memoryGoalMet = rssGrowth <= GOAL_MEMORY_GROWTH;
    const anonGrowth = (endMemory.rssAnon - startMemory.rssAnon) / startMemory.rssAnon;

    const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
    const pct = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)}%` : 'n/a');
    out(`== Load: autocannon, ${connections} connections, ${seconds} s per read run (after ${warmupSeconds} s warm-up), ${submits.toLocaleString('en-US')} distinct transactions per submit run; Node ${process.version}, ${cpus().length} CPU (${cpus()[0]?.model ?? '?'}) ==`);
    out(`machine busy before the runs (other processes): ${busyBefore.toFixed(0)}% of its CPU`);
    out(`servers in child processes; portal: product-default RPC client, audit on, ${portal.database === 'postgres' ? 'Postgres server (TEST_DATABASE_URL)' : 'PGlite in its own process'}, ${auditRows.toLocaleString('en-US')} audit rows (filled in ${((portal.fillMs ?? 0) / 1000).toFixed(1)} s)`);
    out(`CPU: percent of one core during the measured run for the server answering (the node for raw RPC), the node, autocannon (this process), and the whole machine (of ${cpus().length * 100}%: the database server's share shows only there)`);
    out(`${'run'.padEnd(40)} ${'req/s'.padStart(8)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'2xx'.padStart(7)} ${'429'.padStart(6)} ${'other'.padStart(6)} ${'×hello'.padStart(7)} ${'CPU srv/node/client/all'.padStart(24)}  RSS before → after (anonymous; heap used)`);
    for (const r of runs) {
      const memory = r.memory ? `${mb(r.memory.before.rss)} → ${mb(r.memory.after.rss)} (anon ${mb(r.memory.before.rssAnon)} → ${mb(r.memory.after.rssAnon)}; heap ${mb(r.memory.before.heapUsed)} → ${mb(r.memory.after.heapUsed)})` : '';
      const cpu = `${pct(r.cpu.server)}/${pct(r.cpu.node)}/${pct(r.cpu.client)}/${pct(r.cpu.machine)}`;
      out(`${r.name.padEnd(40)} ${r.rps.toFixed(0).padStart(8)} ${`${r.p50Ms} ms`.padStart(7)} ${`${r.p99Ms} ms`.padStart(7)} ${String(r.status2xx).padStart(7)} ${String(r.status429).padStart(6)} ${String(r.otherErrors).padStart(6)} ${(r.ratioToHello === undefined ? '' : ratio(r.ratioToHello)).padStart(7)} ${cpu.padStart(24)}  ${memory}`);
    }
    out('node calls per request answered (the portal\'s and its mempool engine\'s, a batch counting once):');
    for (const r of runs) {
      if (!r.nodeCallsPerRequest) continue;
      const total = Object.values(r.nodeCallsPerRequest).reduce((a, b) => a + b, 0);
      out(`  ${r.name.padEnd(38)} ${total.toFixed(2)}${total > 0 ? `: ${Object.entries(r.nodeCallsPerRequest).map(([m, n]) => `${m} ${n.toFixed(2)}`).join(', ')}` : ''}`);
    }
    out(`reads vs hello-world (${helloRps.toFixed(0)} req/s, the better of ${helloFirst.rps.toFixed(0)} and ${helloLast.rps.toFixed(0)}): ${readResults.map((r) => `${r.name.replace(/^(GET|POST) \/rest-api\//, '')} ${(100 * r.rps / helloRps).toFixed(0)}%`).join(', ')} (goal each ≥ ${GOAL_READ_RATIO * 100}%: ${verdict(readsGoalMet)})`);
    const unauditedResults = runs.filter((r) => r.server === 'portal (audit off)');
    out(`the same reads with the audit trail off: ${unauditedResults.map((r) => `${r.name.replace(/^(GET|POST) \/rest-api\//, '').replace(' (audit off)', '')} ${(100 * r.rps / helloRps).toFixed(0)}%`).join(', ')} of the hello-world; the trail costs each request its row, written by the portal and stored by the database (see the CPU columns)`);
    const parseRun = readResults.find((r) => r.name.includes('parse-tx'))!;
    const knownRun = readResults.find((r) => r.name === 'GET /rest-api/status-check')!;
    const unknownRun = readResults.find((r) => r.name === 'GET /rest-api/status-check (unknown)')!;
    const elsewhereRun = readResults.find((r) => r.name === 'GET /rest-api/status-check (mined elsewhere)')!;
    const callsOf = (r: RunResult) => Object.values(r.nodeCallsPerRequest ?? {}).reduce((a, b) => a + b, 0);
    const proofsOf = (r: RunResult) => r.nodeCallsPerRequest?.gettxoutproof ?? 0;
    const unknownRatio = unknownRun.rps / knownRun.rps;
    const unknownGoalMet = unknownRatio >= GOAL_UNKNOWN_RATIO && proofsOf(unknownRun) === 0 && proofsOf(elsewhereRun) === 0;
    out(
      `status-check of never-recorded txids (404, a fresh one each request): ${unknownRun.rps.toFixed(0)} req/s, p50 ${unknownRun.p50Ms} ms, ${callsOf(unknownRun).toFixed(2)} node calls and ${proofsOf(unknownRun).toFixed(2)} gettxoutproof a request ÷ the recorded one ${knownRun.rps.toFixed(0)} req/s = ${ratio(unknownRatio)} (goal ≥ ${GOAL_UNKNOWN_RATIO}×, no gettxoutproof: ${verdict(unknownGoalMet)}); ` +
        `(the recorded one is answered from the mempool engine and a memo alone; a never-recorded one from the portal's in-memory txid index, with no query); ` +
        `mined in a followed block, never submitted here: ${elsewhereRun.rps.toFixed(0)} req/s, ${callsOf(elsewhereRun).toFixed(2)} node calls a request (${ratio(elsewhereRun.rps / knownRun.rps)} of the recorded one)`,
    );
    out(
      `txid index of the blocks the portal follows: ${txidIndex.txids.toLocaleString('en-US')} txids, ${(txidIndex.bytes / 1024).toFixed(0)} KB on this chain; a mainnet week built here (${WEEK_BLOCKS.toLocaleString('en-US')} blocks × ${TXS_PER_BLOCK.toLocaleString('en-US')}): ` +
        `${weekIndex.txids.toLocaleString('en-US')} txids, ${mb(weekIndex.bytes)} of keys (measured: ArrayBuffers grew ${mb(weekIndex.measuredBytes)}), a txid in no block looked up in ${weekIndex.missMicros.toFixed(1)} µs`,
    );
    out(`parse-tx asks the node for the coins it spends (one gettxout batch a request): portal ${parseRun.rps.toFixed(0)} req/s ÷ that batch straight at the node ${rawGettxout.rps.toFixed(0)} req/s = ${ratio(parseRun.rps / rawGettxout.rps)}`);
    out(`submit: portal ${portalSubmit.rps.toFixed(0)} req/s ÷ raw sendrawtransaction ${raw.rps.toFixed(0)} req/s = ${ratio(submitRatio)}; CPU during the portal run: portal ${pct(portalSubmit.cpu.server)}, node ${pct(portalSubmit.cpu.node)}, autocannon ${pct(portalSubmit.cpu.client)} of one core (${cpus().length} cores in all)`);
    out(`submit check: ${portalAccepted.size} distinct txids accepted by the portal, all in the node's mempool; tx_submissions ${JSON.stringify(records.submissions)}; raw: ${rawAccepted.size} accepted`);
    out(`audit trail of the portal: ${audit.written?.toLocaleString('en-US')} rows written, ${audit.dropped} dropped, ${audit.failedWrites} failed writes (retried), ${audit.queued} still queued`);
    out(`errors: ${runs.reduce((n, r) => n + r.otherErrors, 0)} other than 429 in all runs, ${audit.dropped} audit rows dropped; rate-limited portal: ${limitedRun.status2xx} × 2xx (limit ${rateLimit}/min, one used by the warm-up), ${limitedRun.status429} × 429 at ${limitedRun.rps.toFixed(0)} req/s, p99 ${limitedRun.p99Ms} ms (goal no other errors: ${verdict(errorsGoalMet)})`);
    const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
    const memoryLine = (m: Memory) => `RSS ${mb(m.rss)} = anonymous ${mb(m.rssAnon)} (malloc's main arena ${mb(m.rssMallocHeap)}, mappings under 1 MB ${mb(m.rssSmallAnon)}) + file ${mb(m.rssFile)}; JS heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, external ${mb(m.external)}`;
    out(`portal memory (after GC and a settle): at start-up ${memoryLine(startupMemory)}; after the warm-up pass ${memoryLine(startMemory)}; after every run ${memoryLine(endMemory)}`);
    out(`RSS growth from the warm-up pass to the end: ${mb(endMemory.rss - startMemory.rss)}, of which malloc's main arena ${mb(endMemory.rssMallocHeap - startMemory.rssMallocHeap)}, mappings under 1 MB (V8's heap pages) ${mb(endMemory.rssSmallAnon - startMemory.rssSmallAnon)}, JS heap used ${mb(endMemory.heapUsed - startMemory.heapUsed)}, external ${mb(endMemory.external - startMemory.external)}`);
    const repeated = repeat.memory!;
    out(`repeat of the getinfo run (${repeat.requests.toLocaleString('en-US')} more requests): RSS ${mb(repeated.before.rss)} → ${mb(repeated.after.rss)} (${signed(repeated.after.rss / repeated.before.rss - 1)}), JS heap used ${mb(repeated.before.heapUsed)} → ${mb(repeated.after.heapUsed)}, external ${mb(repeated.before.external)} → ${mb(repeated.after.external)}`);
    out(`portal RSS after the runs vs after the warm-up pass: ${signed(rssGrowth)} (goal ≤ ${GOAL_MEMORY_GROWTH * 100}%: ${verdict(memoryGoalMet)}); anonymous RSS alone ${signed(anonGrowth)}; vs start-up, before any load: RSS ${signed(endMemory.rss / startupMemory.rss - 1)}`);

    const result: LoadBenchResult = {
      connections,
      seconds,
      database: portal.database,
      auditRows,
      fillSeconds: round3((portal.fillMs ?? 0) / 1000),
      runs,
      submit: { portalRps: portalSubmit.rps, rawRps: raw.rps, ratio: round3(submitRatio), accepted: portalAccepted.size, recorded: records.submissions },
      parse: { portalRps: parseRun.rps, rawRps: rawGettxout.rps, ratio: round3(parseRun.rps / rawGettxout.rps) },
      unknownStatus: { unknownRps: unknownRun.rps, knownRps: knownRun.rps, ratio: round3(unknownRatio), gettxoutproofPerRequest: proofsOf(unknownRun), nodeCallsPerRequest: round3(callsOf(unknownRun)), goalMet: unknownGoalMet },
      txidIndex: { ...txidIndex, week: { txids: weekIndex.txids, bytes: weekIndex.bytes, missMicros: round3(weekIndex.missMicros) } },
      audit,
      machineBusyBefore: round3(busyBefore),
      memory: { startup: startupMemory, start: startMemory, end: endMemory, afterRepeat: repeatMemory, rssGrowth: round3(rssGrowth), goalMet: memoryGoalMet },
      readsGoalMet,
      errorsGoalMet,
      totalSeconds: round3((performance.now() - benchStarted) / 1000),
    };
    out(`load bench: ${result.totalSeconds.toFixed(1)} s`);
    out(JSON.stringify({ bench: 'load', ...result }));
    return result;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        progress(`cleanup failed: ${(error as Error).message}`);
      }
    }
  }
}

/**
 * The txid index of a mainnet week, built in this process from random txids
 * as the block tracker builds it (block-txids.ts): its keys' bytes, what
 * the process's ArrayBuffers grew by, and the time of a lookup that no block
 * answers (every block searched), the cost of an unknown txid's status.
 */
function measureWeekIndex(): { txids: number; bytes: number; measuredBytes: number; missMicros: number } {
  const before = process.memoryUsage().arrayBuffers;
  const blocks = Array.from({ length: WEEK_BLOCKS }, () => blockTxids(Array.from({ length: TXS_PER_BLOCK }, () => randomBytes(32).toString('hex'))));
  const measuredBytes = process.memoryUsage().arrayBuffers - before;
  const lookups = 2_000;
  const keys = Array.from({ length: lookups }, () => txidKey(randomBytes(32).toString('hex'))!);
  const started = performance.now();
  let found = 0;
  for (const key of keys) if (blocks.some((b) => holdsKey(b, key))) found++;
  const missMicros = ((performance.now() - started) * 1000) / lookups;
  if (found > 0) throw new Error(`${found} random txids found in random blocks`);
  const txids = blocks.reduce((n, b) => n + b.length, 0);
  return { txids, bytes: txids * Float64Array.BYTES_PER_ELEMENT, measuredBytes, missMicros };
}
