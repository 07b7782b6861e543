import type { ServerOptions } from 'node:http';

/**
 * The HTTP server's own timeouts. Without them (Fastify turns Node's request
 * timeout off) a client that sends its headers or its body a byte at a time
 * holds a connection, and the part of a body already read, for as long as
 * it likes: a few hundred such clients exhaust the server.
 *
 * - requestMs: the whole request, headers and body, must arrive within this
 *   (Node's server.requestTimeout); a later one is answered 408 and closed
 *   (http/client-errors.ts). It ends with the request: an answer that takes
 *   longer, such as the /mempool/ event stream, is not cut by it.
 * - headersMs: the headers alone (server.headersTimeout), at most requestMs.
 * - keepAliveMs: an idle kept-alive connection is closed after this
 *   (server.keepAliveTimeout). Above the 60 s after which common proxies and
 *   load balancers drop idle upstream connections, so the proxy, not the
 *   portal, always closes first: a close the proxy does not see coming can
 *   cost a request sent on the connection at that moment (a 502).
 * - idleMs: a connection with no traffic either way for this long is
 *   destroyed (Fastify's connectionTimeout, socket inactivity): a client that
 *   stopped reading its answer. Above the longest a request may wait for the
 *   node without a byte sent (two RPC calls) and the event stream's 15 s
 *   heartbeat.
 */
export interface HttpTimeouts {
  requestMs: number;
  headersMs: number;
  keepAliveMs: number;
  idleMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  requestMs: 30_000,
  headersMs: 15_000,
  keepAliveMs: 72_000,
  idleMs: 120_000,
};

/**
 * Fastify's server options for these timeouts. Node checks the request and
 * headers timeouts of unfinished requests only every connectionsCheckingInterval
 * (30 s by default, which would let a 30 s timeout run to a minute): here a
 * quarter of the shorter one, at most a second.
 */
export function serverTimeoutOptions(timeouts: HttpTimeouts): { requestTimeout: number; connectionTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  const checkEveryMs = Math.max(25, Math.min(1_000, Math.floor(Math.min(timeouts.requestMs, timeouts.headersMs) / 4)));
  return {
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs, connectionsCheckingInterval: checkEveryMs },
  };
}
