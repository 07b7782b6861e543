import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNOTS_CACHE_DIR, startTestNode, type TestNode } from './helpers/regtest.ts';
import { freePort, freePorts, launchRegtestNode, type LaunchedNode } from '../dev/bitcoin/node-launcher.ts';
import { createRpcClient, RpcCode, RpcError, RpcTransportError, type RpcClientOptions } from '../src/bitcoin/rpc-client.ts';

/**
 * The RPC client against the real regtest node, plus a tiny bitcoind-shaped
 * HTTP server for the faults the node cannot produce on demand (a full work
 * queue, warm-up, a hung node). The fake answers exactly as bitcoind does:
 * 503 with the plain-text body "Work queue depth exceeded", and legacy
 * JSON-RPC errors as HTTP 500 with {result:null,error:{code,message},id}.
 */

const RPC_USER = 'portaltest';
const RPC_PASSWORD = randomBytes(16).toString('hex');

/** bitcoind's -rpcauth value, as share/rpcauth/rpcauth.py computes it: HMAC-SHA256 keyed by the salt. */
function rpcauthArg(user: string, password: string): string {
  const salt = randomBytes(16).toString('hex');
  const hash = createHmac('sha256', salt).update(password).digest('hex');
  return `-rpcauth=${user}:${salt}$${hash}`;
}

/** A raw JSON-RPC exchange with the node, bypassing the client: the oracle for "verbatim". */
async function rawCall(node: TestNode, method: string, params: unknown[]): Promise<{ status: number; body: { result: unknown; error: { code: number; message: string } | null } }> {
  const cookie = (await readFile(node.cookieFile, 'utf8')).trim();
  const response = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(cookie).toString('base64')}` },
    body: JSON.stringify({ jsonrpc: '1.0', id: 'raw', method, params }),
  });
  return { status: response.status, body: (await response.json()) as { result: unknown; error: { code: number; message: string } | null } };
}

function isRpcError(code: number, message?: string | RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof RpcError, `expected RpcError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (typeof message === 'string') assert.equal(error.message, message);
    else if (message) assert.match(error.message, message);
    return true;
  };
}

function isTransportError(kind: RpcTransportError['kind'], status?: number) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof RpcTransportError, `expected RpcTransportError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    if (status !== undefined) assert.equal(error.status, status);
    return true;
  };
}

describe('against the real regtest node', () => {
  let node: TestNode;

  before(async () => {
    // An -rpcauth user next to the cookie, so user/password auth is checked by the node itself.
    node = await startTestNode({ extraArgs: [rpcauthArg(RPC_USER, RPC_PASSWORD)] });
  });

  after(async () => {
    await node?.stop();
  });

  const options = (overrides: Partial<RpcClientOptions> = {}): RpcClientOptions => ({
    url: node.rpcUrl,
    auth: { kind: 'cookie', cookieFile: node.cookieFile },
    timeoutMs: 30_000,
    maxConcurrency: 4,
    ...overrides,
  });

  test('call returns the result with cookie auth', async () => {
    const rpc = createRpcClient(options());
    const info = await rpc.call<{ chain: string; blocks: number; bestblockhash: string }>('getblockchaininfo');
    assert.equal(info.chain, 'regtest');
    assert.ok(info.blocks >= 101);
    assert.equal(await rpc.call<string>('getblockhash', [info.blocks]), info.bestblockhash);
  });

  test('batch returns every result in call order, matching single calls', async () => {
    const rpc = createRpcClient(options());
    const height = await rpc.call<number>('getblockcount');
    const items = await rpc.batch<unknown>([
      { method: 'getblockhash', params: [0] },
      { method: 'getblockcount' },
      { method: 'getblockhash', params: [height] },
    ]);
    assert.deepEqual(items, [
      { ok: true, result: await rpc.call<string>('getblockhash', [0]) },
      { ok: true, result: height },
      { ok: true, result: await rpc.call<string>('getbestblockhash') },
    ]);
    assert.deepEqual(await rpc.batch([]), []);
  });

  test('a failing batch item fails on its own, with the node code and message, between successes', async () => {
    const rpc = createRpcClient(options());
    const unknownTxid = '00'.repeat(32);
    const [first, failed, last] = await rpc.batch<string>([
      { method: 'getblockhash', params: [0] },
      { method: 'getrawtransaction', params: [unknownTxid] },
      { method: 'getbestblockhash' },
    ]);
    assert.deepEqual(first, { ok: true, result: await rpc.call<string>('getblockhash', [0]) });
    assert.deepEqual(last, { ok: true, result: await rpc.call<string>('getbestblockhash') });
    assert.ok(failed && !failed.ok, 'the unknown transaction must fail');
    const raw = await rawCall(node, 'getrawtransaction', [unknownTxid]);
    assert.equal(raw.body.error?.code, RpcCode.INVALID_ADDRESS_OR_KEY);
    assert.equal(failed.error.code, RpcCode.INVALID_ADDRESS_OR_KEY);
    assert.equal(failed.error.message, raw.body.error?.message);
    assert.equal(failed.error.method, 'getrawtransaction');
  });

  test('RpcError carries the node code and message verbatim', async () => {
    const rpc = createRpcClient(options());
    const raw = await rawCall(node, 'getblockhash', [9_999_999]);
    assert.deepEqual(raw.body.error, { code: -8, message: 'Block height out of range' });
    await assert.rejects(rpc.call('getblockhash', [9_999_999]), (error: unknown) => {
      isRpcError(RpcCode.INVALID_PARAMETER, 'Block height out of range')(error);
      assert.equal((error as RpcError).method, 'getblockhash');
      return true;
    });
    // The node answers an unknown method with HTTP 404 and a JSON-RPC error body.
    const unknown = await rawCall(node, 'nosuchmethod', []);
    assert.equal(unknown.status, 404);
    await assert.rejects(rpc.call('nosuchmethod'), isRpcError(RpcCode.METHOD_NOT_FOUND, unknown.body.error?.message));
  });

  test('wallet() addresses /wallet/<name>, escaping the name, and can be re-pointed', async () => {
    const rpc = createRpcClient(options());
    await rpc.call('createwallet', ['rpc client test']);
    const spaced = rpc.wallet('rpc client test');
    const portal = rpc.wallet('portal');
    assert.equal((await spaced.call<{ walletname: string }>('getwalletinfo')).walletname, 'rpc client test');
    assert.equal((await portal.call<{ walletname: string }>('getwalletinfo')).walletname, 'portal');
    // wallet() on a wallet client replaces the wallet rather than nesting paths.
    assert.equal((await portal.wallet('rpc client test').call<{ walletname: string }>('getwalletinfo')).walletname, 'rpc client test');
    const batch = await spaced.batch<{ walletname: string }>([{ method: 'getwalletinfo' }]);
    assert.deepEqual(batch.map((b) => b.ok && b.result.walletname), ['rpc client test']);
    // With two wallets loaded the node refuses a wallet call without the path (-19).
    await assert.rejects(rpc.call('getwalletinfo'), isRpcError(-19));
    await assert.rejects(rpc.wallet('no such wallet').call('getwalletinfo'), isRpcError(-18));
  });

  test('user/password auth: the right password works, a wrong one is HTTP 401', async () => {
    const good = createRpcClient(options({ auth: { kind: 'userpass', user: RPC_USER, password: RPC_PASSWORD } }));
    assert.equal((await good.call<{ chain: string }>('getblockchaininfo')).chain, 'regtest');
    const bad = createRpcClient(options({ auth: { kind: 'userpass', user: RPC_USER, password: `${RPC_PASSWORD}x` } }));
    await assert.rejects(bad.call('getblockchaininfo'), isTransportError('http', 401));
    await assert.rejects(bad.batch([{ method: 'getblockcount' }]), isTransportError('http', 401));
  });

  test('a changed cookie file is re-read after one 401', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rpc-cookie-'));
    try {
      const cookieFile = join(dir, '.cookie');
      const real = (await readFile(node.cookieFile, 'utf8')).trim();
      await writeFile(cookieFile, `__cookie__:${'0'.repeat(64)}`);
      const rpc = createRpcClient(options({ auth: { kind: 'cookie', cookieFile } }));
      // A stale cookie: the retry re-reads the same stale file and the 401 surfaces.
      await assert.rejects(rpc.call('getblockcount'), isTransportError('http', 401));
      // The node's cookie appears (as after a restart): the cached header is stale, one 401, re-read, success.
      await writeFile(cookieFile, real);
      assert.equal(typeof (await rpc.call<number>('getblockcount')), 'number');
      // The cookie disappears entirely: a transport error naming the cookie.
      await rm(cookieFile);
      const fresh = createRpcClient(options({ auth: { kind: 'cookie', cookieFile } }));
      await assert.rejects(fresh.call('getblockcount'), (error: unknown) => {
        isTransportError('unreachable')(error);
        assert.match((error as Error).message, /cookie/);
        return true;
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a closed port is an unreachable transport error', async () => {
    const port = await freePort();
    const rpc = createRpcClient(options({ url: `http://127.0.0.1:${port}`, auth: { kind: 'userpass', user: 'u', password: 'p' } }));
    await assert.rejects(rpc.call('getblockcount'), isTransportError('unreachable'));
    await assert.rejects(rpc.batch([{ method: 'getblockcount' }]), isTransportError('unreachable'));
  });
});

describe('a node restarted on the same datadir', () => {
  let datadir: string;
  let launched: LaunchedNode | undefined;

  before(async () => {
    datadir = await mkdtemp(join(tmpdir(), 'rpc-restart-'));
  });

  after(async () => {
    await launched?.stop();
    await rm(datadir, { recursive: true, force: true });
  });

  test('the client re-reads the new cookie and keeps working', async () => {
    const [rpcPort, p2pPort, zmqPort] = (await freePorts(3)) as [number, number, number];
    const launch = () =>
      launchRegtestNode({ datadir, rpcPort, p2pPort, zmqPort, cacheDir: KNOTS_CACHE_DIR, bitcoindPath: process.env.BITCOIND || undefined, log: () => {} });
    launched = await launch();
    const rpc = createRpcClient({ url: launched.rpcUrl, auth: { kind: 'cookie', cookieFile: launched.cookieFile }, timeoutMs: 30_000, maxConcurrency: 2 });
    const height = await rpc.call<number>('getblockcount');
    const firstCookie = await readFile(launched.cookieFile, 'utf8');

    await launched.stop();
    await assert.rejects(rpc.call('getblockcount'), isTransportError('unreachable'));
    launched = await launch();
    const secondCookie = await readFile(launched.cookieFile, 'utf8');
    assert.notEqual(secondCookie, firstCookie, 'bitcoind writes a new cookie on every start');

    assert.equal(await rpc.call<number>('getblockcount'), height);
    assert.deepEqual(await rpc.batch<number>([{ method: 'getblockcount' }]), [{ ok: true, result: height }]);
  });
});

// ---------------------------------------------------------------------------
// Faults the real node cannot produce on demand.

interface JsonRpcRequest {
  id: unknown;
  method: string;
  params: unknown[];
}

type Handler = (request: JsonRpcRequest | JsonRpcRequest[], res: ServerResponse, req: IncomingMessage) => void;

interface FakeNode {
  url: string;
  requests: number;
  close(): Promise<void>;
}

/** A bitcoind-shaped HTTP server on 127.0.0.1: `handler` decides each answer. */
async function fakeNode(handler: Handler): Promise<FakeNode> {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests++;
      handler(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest | JsonRpcRequest[], res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** bitcoind's reply to a legacy (1.0) JSON-RPC request: 200 on success, 500 on an error. */
function reply(res: ServerResponse, request: JsonRpcRequest, result: unknown, error?: { code: number; message: string }): void {
  res.writeHead(error ? 500 : 200, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify({ result: error ? null : result, error: error ?? null, id: request.id })}\n`);
}

/** What bitcoind's HTTP server answers when its work queue is full (httpserver.cpp). */
function workQueueFull(res: ServerResponse): void {
  res.writeHead(503);
  res.end('Work queue depth exceeded');
}

const fakeOptions = (url: string, overrides: Partial<RpcClientOptions> = {}): RpcClientOptions => ({
  url,
  auth: { kind: 'userpass', user: 'u', password: 'p' },
  timeoutMs: 10_000,
  maxConcurrency: 4,
  maxRetries: 3,
  retryBaseMs: 1,
  ...overrides,
});

describe('faults injected by a bitcoind-shaped server', () => {
  test('503 "Work queue depth exceeded" is retried until the node answers', async () => {
    let busy = 3;
    const fake = await fakeNode((request, res) => {
      if (busy-- > 0) return workQueueFull(res);
      if (Array.isArray(request)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(request.map((r) => ({ result: 42, error: null, id: r.id }))));
        return;
      }
      reply(res, request, 42);
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url));
      assert.equal(await rpc.call<number>('getblockcount'), 42);
      assert.equal(fake.requests, 4);
      busy = 2;
      assert.deepEqual(await rpc.batch<number>([{ method: 'getblockcount' }, { method: 'getblockcount' }]), [
        { ok: true, result: 42 },
        { ok: true, result: 42 },
      ]);
      assert.equal(fake.requests, 7);
    } finally {
      await fake.close();
    }
  });

  test('503 beyond maxRetries gives up with an HTTP transport error', async () => {
    const fake = await fakeNode((_request, res) => workQueueFull(res));
    try {
      const rpc = createRpcClient(fakeOptions(fake.url, { maxRetries: 2 }));
      await assert.rejects(rpc.call('getblockcount'), (error: unknown) => {
        isTransportError('http', 503)(error);
        assert.match((error as Error).message, /Work queue depth exceeded/);
        return true;
      });
      assert.equal(fake.requests, 3, 'one attempt and two retries');
    } finally {
      await fake.close();
    }
  });

  test('warm-up (-28, HTTP 500) is retried until the node is ready', async () => {
    let warming = 2;
    const fake = await fakeNode((request, res) => {
      const single = request as JsonRpcRequest;
      if (warming-- > 0) return reply(res, single, null, { code: RpcCode.IN_WARMUP, message: 'Loading block index…' });
      reply(res, single, { chain: 'regtest' });
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url));
      assert.deepEqual(await rpc.call('getblockchaininfo'), { chain: 'regtest' });
      assert.equal(fake.requests, 3);
    } finally {
      await fake.close();
    }
  });

  test('warm-up beyond maxRetries surfaces the -28 RpcError; other errors are not retried', async () => {
    const fake = await fakeNode((request, res) => {
      const single = request as JsonRpcRequest;
      if (single.method === 'getblockchaininfo') return reply(res, single, null, { code: RpcCode.IN_WARMUP, message: 'Loading block index…' });
      reply(res, single, null, { code: RpcCode.VERIFY_REJECTED, message: 'min relay fee not met, 100 < 141' });
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url, { maxRetries: 2 }));
      await assert.rejects(rpc.call('getblockchaininfo'), isRpcError(RpcCode.IN_WARMUP, 'Loading block index…'));
      assert.equal(fake.requests, 3);
      await assert.rejects(rpc.call('sendrawtransaction', ['00']), isRpcError(RpcCode.VERIFY_REJECTED, 'min relay fee not met, 100 < 141'));
      assert.equal(fake.requests, 4, 'a rejection is answered once, not retried');
    } finally {
      await fake.close();
    }
  });

  test('a batch warming up (every call -28) is asked again; one where the node executed some calls is not', async () => {
    let warming = 2;
    let mixed = false;
    const fake = await fakeNode((request, res) => {
      const batch = request as JsonRpcRequest[];
      res.writeHead(200, { 'content-type': 'application/json' });
      const warm = { code: RpcCode.IN_WARMUP, message: 'Loading wallet…' };
      if (warming-- > 0) return res.end(JSON.stringify(batch.map((r) => ({ result: null, error: warm, id: r.id }))));
      // Warm-up ended between the two calls: the first was refused, the second executed.
      if (mixed) return res.end(JSON.stringify(batch.map((r, i) => (i === 0 ? { result: null, error: warm, id: r.id } : { result: 7, error: null, id: r.id }))));
      res.end(JSON.stringify(batch.map((r) => ({ result: 7, error: null, id: r.id }))));
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url));
      const calls = [{ method: 'gettxout', params: ['00'.repeat(32), 0, false] }, { method: 'getblockcount' }];
      assert.deepEqual(await rpc.batch<number>(calls), [{ ok: true, result: 7 }, { ok: true, result: 7 }]);
      assert.equal(fake.requests, 3, 'two warm-up answers, then the real one');
      mixed = true;
      const answers = await rpc.batch<number>(calls);
      assert.equal(fake.requests, 4, 'not asked again: the node had executed a call');
      assert.equal(answers[0]?.ok, false);
      assert.deepEqual(answers[1], { ok: true, result: 7 });
      warming = 10;
      const refused = await rpc.batch<number>(calls);
      assert.equal(fake.requests, 8, 'one attempt and maxRetries (3) more');
      assert.ok(refused.every((item) => !item.ok && item.error.code === RpcCode.IN_WARMUP), 'then the -28 answers are returned');
    } finally {
      await fake.close();
    }
  });

  test('a node that never answers is a timeout, and the slot is given back', async () => {
    let hang = true;
    const fake = await fakeNode((request, res) => {
      if (hang) return; // accepted, never answered
      reply(res, request as JsonRpcRequest, 7);
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url, { timeoutMs: 200, maxConcurrency: 1 }));
      await assert.rejects(rpc.call('getblockcount'), (error: unknown) => {
        isTransportError('timeout')(error);
        assert.match((error as Error).message, /200 ms/);
        return true;
      });
      await assert.rejects(rpc.batch([{ method: 'getblockcount' }]), isTransportError('timeout'));
      // With one slot, a leaked slot would make this call wait forever.
      hang = false;
      assert.equal(await rpc.call<number>('getblockcount'), 7);
    } finally {
      await fake.close();
    }
  });

  test('a kept connection the node closes as a request goes out on it: sent once more on a new one; a fresh one that fails is not', async () => {
    // The node closes an idle kept-alive connection (-rpcservertimeout); a request written at that moment meets a reset
    // before any answer. The fake resets the connection instead of answering, at the chosen request numbers.
    let resetAt = new Set<number>();
    const connectionsSeen = new Set<unknown>();
    const fake = await fakeNode((request, res, req) => {
      connectionsSeen.add(req.socket);
      if (resetAt.has(fake.requests)) return req.socket.resetAndDestroy();
      reply(res, request as JsonRpcRequest, fake.requests);
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url, { maxConcurrency: 1 }));
      assert.equal(await rpc.call<number>('getblockcount'), 1);
      resetAt = new Set([2]);
      // Request 2 goes out on the kept connection and is reset: request 3, on a new connection, answers.
      assert.equal(await rpc.call<number>('getblockcount'), 3);
      assert.equal(connectionsSeen.size, 2, 'the second attempt used a new connection');
      // Reset twice in a row (the second time on a new connection): not a stale connection, so the failure is reported.
      resetAt = new Set([4, 5]);
      await assert.rejects(rpc.call('getblockcount'), isTransportError('unreachable'));
      assert.equal(fake.requests, 5, 'one call, sent at most twice');
      // A reset on a connection's first request is the node failing, not a stale connection: no second attempt.
      const fresh = createRpcClient(fakeOptions(fake.url, { maxConcurrency: 1 }));
      resetAt = new Set([6]);
      await assert.rejects(fresh.call('getblockcount'), isTransportError('unreachable'));
      assert.equal(fake.requests, 6);
    } finally {
      await fake.close();
    }
  });

  test('never more than maxConcurrency requests in flight, wallet clients included', async () => {
    const limit = 3;
    let inFlight = 0;
    let peak = 0;
    const held: Array<() => void> = [];
    let fallback: NodeJS.Timeout | undefined;
    const releaseAll = () => {
      clearTimeout(fallback);
      for (const release of held.splice(0)) release();
    };
    const fake = await fakeNode((request, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      held.push(() => {
        inFlight--;
        reply(res, request as JsonRpcRequest, 1);
      });
      // Hold the requests a while once the limit is reached, so that any request
      // beyond the limit would arrive while they are still in flight.
      clearTimeout(fallback);
      fallback = setTimeout(releaseAll, held.length >= limit ? 30 : 300);
    });
    try {
      const rpc = createRpcClient(fakeOptions(fake.url, { maxConcurrency: limit }));
      const wallet = rpc.wallet('portal');
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? wallet : rpc).call<number>('getblockcount')));
      assert.deepEqual(results, Array(24).fill(1));
      assert.equal(fake.requests, 24);
      assert.equal(peak, limit);
    } finally {
      releaseAll();
      await fake.close();
    }
  });
});
