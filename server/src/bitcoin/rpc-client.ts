import { readFile } from 'node:fs/promises';
import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import { Semaphore } from '../lib/semaphore.ts';
import { encodeJsonRpcBody } from './json-rpc-body.ts';

/**
 * Typed JSON-RPC client for a Bitcoin node (Bitcoin Core / Knots interface).
 *
 * Why it looks like this:
 * - The node's HTTP server has a bounded work queue (default 16); flooding it
 *   answers HTTP 503 "Work queue depth exceeded". A semaphore keeps our own
 *   concurrency below that bound, and a 503 that slips through is retried with
 *   backoff because the node did not execute the call.
 * - RPC_IN_WARMUP (-28) is likewise "not executed yet", so it is retried.
 * - Every other failure is surfaced as a typed error carrying the node's code
 *   and message verbatim: the node's reject reason must reach the user.
 * - Connections are kept alive, and the node closes one it finds idle
 *   (-rpcservertimeout, 30 s by default). The client lets its own idle ones go
 *   sooner; and a request written on a kept connection that the node closed
 *   at that very moment, before answering a byte, is sent once more on a new
 *   connection: the node drops only a connection with no request under way,
 *   so the first one was never executed.
 */

export type RpcAuth =
  | { kind: 'cookie'; cookieFile: string }
  | { kind: 'userpass'; user: string; password: string };

export interface RpcClientOptions {
  url: string;
  auth: RpcAuth;
  timeoutMs: number;
  /** Concurrent HTTP requests in flight; keep below the node's -rpcworkqueue. */
  maxConcurrency: number;
  /** Retries for 503 and warm-up (-28) answers. */
  maxRetries?: number;
  /** First backoff delay in ms; doubles on every retry. */
  retryBaseMs?: number;
}

/** An error answered by the node itself (it understood and refused the call). */
export class RpcError extends Error {
  readonly code: number;
  readonly method: string;
  constructor(method: string, code: number, message: string) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.method = method;
  }
}

/** The node could not be asked: down, unreachable, too slow, or bad credentials. */
export class RpcTransportError extends Error {
  readonly kind: 'unreachable' | 'timeout' | 'http';
  readonly method: string;
  readonly status: number | undefined;
  constructor(method: string, kind: 'unreachable' | 'timeout' | 'http', message: string, status?: number) {
    super(message);
    this.name = 'RpcTransportError';
    this.kind = kind;
    this.method = method;
    this.status = status;
  }
}

/** Error codes from Bitcoin Core's src/rpc/protocol.h that callers branch on. */
export const RpcCode = {
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
  IN_WARMUP: -28,
  METHOD_NOT_FOUND: -32601,
} as const;

export interface RpcCall {
  method: string;
  params?: unknown[];
}

export type RpcBatchItem<T> = { ok: true; result: T } | { ok: false; error: RpcError };

export interface RpcClient {
  call<T>(method: string, params?: unknown[]): Promise<T>;
  /** One HTTP round trip for many calls; each answer succeeds or fails on its own. */
  batch<T>(calls: RpcCall[]): Promise<RpcBatchItem<T>[]>;
  /** The same node, addressed at one of its wallets (/wallet/<name>). */
  wallet(name: string): RpcClient;
}

interface JsonRpcReply {
  result?: unknown;
  error?: { code: number; message: string } | null;
  id?: unknown;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long an unused kept-alive connection stays open: well below the node's
 * own idle close (-rpcservertimeout, 30 s by default), so the client is
 * usually the one to close it. The agent applies it to idle sockets only: a
 * call that takes longer is bounded by timeoutMs, not by this.
 */
const IDLE_SOCKET_MS = 15_000;

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const shared: Shared = {
    semaphore: new Semaphore(options.maxConcurrency),
    authHeader: undefined,
    // Kept-alive connections, one per request in flight at most, closed after IDLE_SOCKET_MS unused.
    agent: new (options.url.startsWith('https:') ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: options.maxConcurrency, timeout: IDLE_SOCKET_MS }),
  };
  return makeClient(options, options.url.replace(/\/+$/, ''), shared);
}

function makeClient(
  options: RpcClientOptions,
  url: string,
  shared: Shared,
): RpcClient {
  const maxRetries = options.maxRetries ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 50;
  let nextId = 0;

  async function authorization(refresh: boolean): Promise<string> {
    if (shared.authHeader && !refresh) return shared.authHeader;
    let credentials: string;
    if (options.auth.kind === 'userpass') {
      credentials = `${options.auth.user}:${options.auth.password}`;
    } else {
      // The cookie is rewritten on every node start, so it is re-read after a 401.
      credentials = (await readFile(options.auth.cookieFile, 'utf8')).trim();
    }
    shared.authHeader = `Basic ${Buffer.from(credentials).toString('base64')}`;
    return shared.authHeader;
  }

  /** One HTTP exchange. Returns the parsed body, or throws a transport error. */
  async function post(label: string, body: string | Buffer): Promise<unknown> {
    let resentOnNewConnection = false;
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let text: string;
      await shared.semaphore.acquire();
      try {
        let auth: string;
        try {
          auth = await authorization(attempt > 0 && shared.authHeader === undefined);
        } catch (error) {
          throw new RpcTransportError(label, 'unreachable', `Cannot read the node's RPC cookie: ${(error as Error).message}`);
        }
        try {
          ({ status, text } = await httpPost(url, auth, body, options.timeoutMs, shared.agent));
        } catch (error) {
          if (error instanceof DeadlineError) {
            throw new RpcTransportError(label, 'timeout', `The Bitcoin node did not answer ${label} within ${options.timeoutMs} ms`);
          }
          if (error instanceof ClosedWhileIdleError && !resentOnNewConnection) {
            resentOnNewConnection = true;
            continue;
          }
          throw new RpcTransportError(label, 'unreachable', `The Bitcoin node is unreachable (${describeCause(error as Error)})`);
        }
      } finally {
        shared.semaphore.release();
      }

      if (status === 401 && options.auth.kind === 'cookie' && attempt === 0) {
        shared.authHeader = undefined; // node restarted with a new cookie
        continue;
      }
      if (status === 503 && attempt < maxRetries) {
        await sleep(retryBaseMs * 2 ** attempt);
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new RpcTransportError(label, 'http', `The Bitcoin node answered HTTP ${status}: ${text.slice(0, 200) || STATUS_CODES[status] || ''}`, status);
      }
      return parsed;
    }
  }

  function toResult<T>(method: string, reply: JsonRpcReply): RpcBatchItem<T> {
    if (reply.error) return { ok: false, error: new RpcError(method, reply.error.code, reply.error.message) };
    return { ok: true, result: reply.result as T };
  }

  const client: RpcClient = {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        const reply = (await post(method, encodeJsonRpcBody({ jsonrpc: '1.0', id: nextId++, method, params }))) as JsonRpcReply;
        const item = toResult<T>(method, reply);
        if (item.ok) return item.result;
        if (item.error.code === RpcCode.IN_WARMUP && attempt < maxRetries) {
          await sleep(retryBaseMs * 2 ** attempt);
          continue;
        }
        throw item.error;
      }
    },

    async batch<T>(calls: RpcCall[]): Promise<RpcBatchItem<T>[]> {
      if (calls.length === 0) return [];
      for (let attempt = 0; ; attempt++) {
        const firstId = nextId;
        nextId += calls.length;
        const body = encodeJsonRpcBody(calls.map((c, i) => ({ jsonrpc: '1.0', id: firstId + i, method: c.method, params: c.params ?? [] })));
        const replies = await post(`batch of ${calls.length}`, body);
        if (!Array.isArray(replies)) {
          const single = replies as JsonRpcReply;
          const err = single.error ?? { code: RpcCode.MISC_ERROR, message: 'Malformed batch reply' };
          throw new RpcError('batch', err.code, err.message);
        }
        // The node may answer a batch in any order; match by id.
        const byId = new Map<unknown, JsonRpcReply>();
        for (const reply of replies as JsonRpcReply[]) byId.set(reply.id, reply);
        const items = calls.map((c, i): RpcBatchItem<T> => {
          const reply = byId.get(firstId + i);
          if (!reply) return { ok: false, error: new RpcError(c.method, RpcCode.MISC_ERROR, 'Missing reply in batch') };
          return toResult<T>(c.method, reply);
        });
        // Warming up, the node answers every call of a batch with -28 and executes none: asked again, as call() is.
        if (attempt < maxRetries && items.every((item) => !item.ok && item.error.code === RpcCode.IN_WARMUP)) {
          await sleep(retryBaseMs * 2 ** attempt);
          continue;
        }
        return items;
      }
    },

    wallet(name: string): RpcClient {
      const base = url.replace(/\/wallet\/[^/]*$/, '');
      return makeClient(options, `${base}/wallet/${encodeURIComponent(name)}`, shared);
    },
  };
  return client;
}

interface Shared {
  semaphore: Semaphore;
  authHeader: string | undefined;
  agent: http.Agent;
}

/** The whole exchange took longer than the caller's deadline. */
class DeadlineError extends Error {}

/**
 * A kept-alive connection was closed by the node as the request went out on
 * it, before any byte of an answer: the node closes only connections with no
 * request under way, so the request was not executed.
 */
class ClosedWhileIdleError extends Error {}

/**
 * POST over node:http rather than fetch: fetch copies a request body twice
 * more and costs more per call, and transactions can be megabytes of hex.
 * The deadline covers connecting, sending and the whole answer.
 */
function httpPost(url: string, authorization: string, body: string | Buffer, timeoutMs: number, agent: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', authorization, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer = setTimeout(() => request.destroy(new DeadlineError('deadline')), timeoutMs);
    request.on('error', (error: Error & { code?: string }) => {
      clearTimeout(timer);
      // Node's documented test for this race: reusedSocket, and a reset before the response (no 'response' event yet).
      const closedWhileIdle = request.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(closedWhileIdle ? new ClosedWhileIdleError(error.message, { cause: error }) : error);
    });
    request.end(body);
  });
}

function describeCause(error: Error): string {
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
