import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditWriter } from './audit-writer.ts';
import { auditEndpoint, firstCodePoints, unroutedEndpoint } from './audit-endpoint.ts';
import { auditPayload, auditResponsePayload } from './audit-payload.ts';

/**
 * Every /rest-api request lands in the audit trail, decided by the route it
 * reached rather than the URL's text (audit-endpoint.ts). Hooks sit on the
 * root instance so that requests refused before their handler ran (bad JSON,
 * too large, rate limited, 401/403 from the staff scope, 404) are recorded too.
 */

declare module 'fastify' {
  interface FastifyRequest {
    auditStartedAt?: bigint;
    /** The endpoint the request is audited under: its route's pattern, or the decoded path of one no API route took. */
    auditEndpoint?: string;
    auditResponse?: string;
  }
  interface FastifyContextConfig {
    /** `false` keeps a route out of the audit trail (the metrics scrape: a row every few seconds, and nobody's action). */
    audit?: boolean;
  }
}

/**
 * Internal: a staff request whose token the staff scope verified (a token
 * merely sent, or sent to a public route, does not count). Everything else
 * is External, whatever it says about itself: the web app's
 * `x-portal-client: web` header is one anybody can send, so it classifies
 * nothing.
 */
function sourceType(request: FastifyRequest): 'Internal' | 'External' {
  return request.staff !== undefined ? 'Internal' : 'External';
}

/**
 * The client code a public caller priced its request with. A staff route's
 * client_code is a list filter or a record's field, not the caller's code:
 * recording it would make every search for a client's trail add to it. That
 * holds for refused staff requests too (an expired session's search).
 */
function clientCode(request: FastifyRequest): string | null {
  if (request.staffRoute) return null;
  const fromBody = (request.body as { client_code?: unknown } | undefined)?.client_code;
  const fromQuery = (request.query as { client_code?: unknown } | undefined)?.client_code;
  const code = typeof fromBody === 'string' ? fromBody : typeof fromQuery === 'string' ? fromQuery : null;
  return code && code.trim() !== '' ? firstCodePoints(code.trim(), 64) : null;
}

function errorMessage(statusCode: number, payload: string | undefined): string | null {
  if (statusCode < 400 && !payload?.startsWith('{"status":"error"')) return null;
  try {
    const parsed = JSON.parse(payload ?? '') as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through to the status code
  }
  return `HTTP ${statusCode}`;
}

export function registerAuditHooks(app: FastifyInstance, writer: AuditWriter, maxChars: number): void {
  // onRequest runs after routing: the route (or the not-found handler) is known.
  app.addHook('onRequest', async (request) => {
    const endpoint = auditEndpoint(request);
    if (endpoint === undefined) return;
    request.auditEndpoint = endpoint;
    request.auditStartedAt = process.hrtime.bigint();
  });

  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.auditStartedAt !== undefined && typeof payload === 'string') request.auditResponse = payload;
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.auditStartedAt === undefined || request.auditEndpoint === undefined) return;
    const elapsedMs = Number(process.hrtime.bigint() - request.auditStartedAt) / 1e6;
    const error = errorMessage(reply.statusCode, request.auditResponse);
    writer.push({
      ipAddress: request.ip,
      endpoint: request.auditEndpoint,
      httpMethod: request.method,
      clientCode: clientCode(request),
      requestAt: new Date(Date.now() - elapsedMs),
      requestPayload: auditPayload(request.body ?? (Object.keys(request.query as object).length ? request.query : undefined), maxChars),
      responsePayload: request.auditResponse === undefined ? null : auditResponsePayload(request.auditResponse, maxChars),
      responseTimeMs: elapsedMs,
      errorMessage: error,
      sourceType: sourceType(request),
      isSuccess: error === null,
    });
  });
}

/**
 * A request the router refuses (a path it cannot decode, a parameter over its
 * length limit) is answered by Fastify's frameworkErrors before any hook runs.
 * app.ts calls this as it answers, so that such a request under /rest-api is
 * recorded like every other, under its path as sent. No route was reached,
 * so no token was checked: it is External.
 */
export function auditRefusedBeforeRouting(
  writer: AuditWriter,
  request: Pick<FastifyRequest, 'url' | 'ip' | 'method'>,
  reply: Pick<FastifyReply, 'statusCode' | 'elapsedTime'>,
  response: string,
  maxChars: number,
): void {
  const endpoint = unroutedEndpoint(request.url);
  if (endpoint === undefined) return;
  const error = errorMessage(reply.statusCode, response);
  const elapsedMs = reply.elapsedTime;
  writer.push({
    ipAddress: request.ip,
    endpoint,
    httpMethod: request.method,
    clientCode: null,
    requestAt: new Date(Date.now() - elapsedMs),
    requestPayload: null,
    responsePayload: auditResponsePayload(response, maxChars),
    responseTimeMs: elapsedMs,
    errorMessage: error,
    sourceType: 'External',
    isSuccess: error === null,
  });
}
