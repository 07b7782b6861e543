import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * Request log lines name the path, never the query string. Fastify's own
 * request serializer logs `req.url` whole, and a query carries what must not
 * be shipped to a log store: the identity provider's `?code=&state=` on the
 * sign-in callback, transaction ids looked up, staff searches, tokens. The
 * query is not needed to tell requests apart; the audit trail keeps what an
 * API request sent, behind staff sign-in.
 */

/** The request target up to its query or fragment. */
export function pathOnly(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** Fastify's default request serializer, with the query string left out. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: pathOnly(request.url),
    version: request.headers['accept-version'] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** `logger` (Fastify's option) with the request serializer above; `false` and absent stay no logger. */
export function withRequestLogSerializer(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } };
}
