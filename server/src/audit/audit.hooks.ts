import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditWriter } from './audit-writer.ts';
import { auditPayload, auditResponsePayload } from './audit-payload.ts';

/**
 * Every /rest-api request lands in the audit trail. Hooks sit on the root
 * instance so that requests refused before routing (bad JSON, too large, rate
 * limited) are recorded too.
 */

declare module 'fastify' {
  interface FastifyRequest {
    auditStartedAt?: bigint;
    auditResponse?: string;
  }
  interface FastifyContextConfig {
    /** `false` keeps a route out of the audit trail (the metrics scrape: a row every few seconds, and nobody's action). */
    audit?: boolean;
  }
}

/**
 * The portal's own web app marks its calls; staff calls carry a token the
 * staff scope has verified (a token merely sent does not count). Anything
 * else is External. The web app's mark is a classification for the audit
 * trail, not a permission.
 */
export const PORTAL_CLIENT_HEADER = 'x-portal-client';

function sourceType(request: FastifyRequest): 'Internal' | 'External' {
  return request.headers[PORTAL_CLIENT_HEADER] === 'web' || request.staff !== undefined ? 'Internal' : 'External';
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

/**
 * The first `n` code points, as the schemas count a client code's 64
 * (ajv counts code points): a UTF-16 slice could end on half an emoji,
 * which the database would store as U+FFFD.
 */
function firstCodePoints(text: string, n: number): string {
  let end = 0;
  for (let count = 0; count < n && end < text.length; count++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
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
  const audited = (request: FastifyRequest) => request.url.startsWith('/rest-api/') && request.routeOptions.config?.audit !== false;

  app.addHook('onRequest', async (request) => {
    if (audited(request)) request.auditStartedAt = process.hrtime.bigint();
  });

  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.auditStartedAt !== undefined && typeof payload === 'string') request.auditResponse = payload;
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.auditStartedAt === undefined) return;
    const elapsedMs = Number(process.hrtime.bigint() - request.auditStartedAt) / 1e6;
    const error = errorMessage(reply.statusCode, request.auditResponse);
    writer.push({
      ipAddress: request.ip,
      endpoint: request.url.split('?')[0]!.slice(0, 512),
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
