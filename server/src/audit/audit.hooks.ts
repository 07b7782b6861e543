import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StreamEnding } from '../http/sse-registry.ts';
import type { AuditRow, AuditWriter } from './audit-writer.ts';
import { auditEndpoint, firstCodePoints, unroutedEndpoint } from './audit-endpoint.ts';
import { auditPayload, auditResponsePayload, refusedPayload } from './audit-payload.ts';

/**
 * Every /rest-api request lands in the audit trail, decided by the route it
 * reached rather than the URL's text (audit-endpoint.ts). Hooks sit on the
 * root instance so that requests refused before their handler ran (bad JSON,
 * too large, 401/403 from the staff scope, 404) are recorded too. A request
 * a per-address rate limit refused is not: each request a stranger can make
 * spends that budget first, so the rows one address writes stay bounded
 * (http/public-scope.ts).
 */

declare module 'fastify' {
  interface FastifyRequest {
    auditStartedAt?: bigint;
    /** The endpoint the request is audited under: its route's pattern, or the decoded path of one no API route took. */
    auditEndpoint?: string;
    auditResponse?: string;
    /** The error staff see in the trail when the caller was told less (ApiError.staffDetail). */
    auditErrorDetail?: string;
    /** The client's address, read while its connection is open: a closed socket no longer has one. */
    auditIp?: string;
    /** Its row is queued: a request is recorded once, however it ends. */
    auditRecorded?: boolean;
    /** Its answer has been composed (onSend ran): whatever handled or refused it is done. */
    auditAnswered?: boolean;
    /** The connection closed before the answer was delivered in full (the client left, or Node's parser refused the rest of the request). */
    auditConnectionClosed?: boolean;
    /**
     * For a route that takes the response over (reply.hijack: an event
     * stream), whose end the hooks do not see as it was: called as it takes
     * over, and the function it returns as the stream ends, which records
     * the row, once, with how the stream ended and how long it lasted.
     */
    auditStreamStarted?: () => (ending: StreamEnding, error?: Error) => void;
    /** The route took the response over as a stream: its row is the stream's (auditStreamStarted). */
    auditStreaming?: boolean;
    /** The payload as the client sent it, taken before the schema converted its types (a 7 sent is not '7'). */
    auditRequestPayload?: string | null;
  }
  interface FastifyContextConfig {
    /** `false` keeps a route out of the audit trail (the metrics scrape: a row every few seconds, and nobody's action). */
    audit?: boolean;
  }
}

/** The note on the row of a request whose connection closed before its answer was delivered. */
export const CONNECTION_CLOSED_MESSAGE = 'The connection closed before the answer was sent.';

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

/**
 * Refused before any route ran: no route took it (the not-found handler), or
 * the staff scope refused its token (401, or 429 once that spent the public
 * budget) or its role (403). A stranger chooses its payload: only its size is
 * recorded.
 */
function refusedBeforeRoute(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.is404) return true;
  return request.staffRoute === true && (request.staff === undefined || reply.statusCode === 403);
}

/** The size of what a refused request sent (its body as Content-Length says, and its query string), or null when it sent nothing. */
function refusedRequestPayload(request: FastifyRequest): string | null {
  const queryAt = request.url.indexOf('?');
  const query = queryAt === -1 ? 0 : Buffer.byteLength(request.url.slice(queryAt + 1));
  // A chunked body's size is not known without reading it.
  if (request.headers['transfer-encoding'] !== undefined) return refusedPayload(undefined);
  const length = request.headers['content-length'];
  const bytes = query + (length !== undefined && /^\d+$/.test(length) ? Number(length) : 0);
  return bytes === 0 ? null : refusedPayload(bytes);
}

/**
 * What the row says of the request's outcome. A client that left before the
 * answer does not undo what its request did: the row keeps the answer's own
 * outcome (a transaction the node accepted is a success), with the note. A
 * request whose body never fully arrived was never handled: Fastify's
 * refusal of the cut body is no answer of its own, so the note alone.
 */
function outcome(request: FastifyRequest, reply: FastifyReply): { error: string | null; isSuccess: boolean } {
  const told = errorMessage(reply.statusCode, request.auditResponse);
  const answered = told === null ? null : (request.auditErrorDetail ?? told);
  if (!request.auditConnectionClosed) return { error: answered, isSuccess: answered === null };
  if (request.raw.complete === false) return { error: CONNECTION_CLOSED_MESSAGE, isSuccess: false };
  return { error: answered === null ? CONNECTION_CLOSED_MESSAGE : `${CONNECTION_CLOSED_MESSAGE} The answer was: ${answered}`, isSuccess: answered === null };
}

/** The body, or else the query when it has anything: what the trail shows of a request. */
function sentPayload(request: FastifyRequest, maxChars: number): string | null {
  const query = request.query as object | undefined;
  return auditPayload(request.body ?? (query && Object.keys(query).length ? query : undefined), maxChars);
}

/** The client's address: 'unknown' only for a socket closed before anything read it, which the connection hook below prevents. */
function clientAddress(request: FastifyRequest): string {
  // Typed as always there; it is not once the socket is gone.
  const ip: string | undefined = request.ip;
  return ip ?? 'unknown';
}

export function registerAuditHooks(app: FastifyInstance, writer: AuditWriter, maxChars: number): void {
  // A request can outlive its connection (its client gone, or Node's parser refusing the rest of its
  // body), and a closed socket no longer knows its peer. Reading the address as the connection opens
  // makes the socket keep it (net.Socket caches its peer name), for the row and the rate limit alike.
  app.server.on('connection', (socket: Socket) => {
    socket.remoteAddress?.toString();
  });

  // onRequest runs after routing: the route (or the not-found handler) is known.
  app.addHook('onRequest', async (request, reply) => {
    const endpoint = auditEndpoint(request);
    if (endpoint === undefined) return;
    request.auditEndpoint = endpoint;
    request.auditStartedAt = process.hrtime.bigint();
    request.auditIp = clientAddress(request);
    // Fastify runs onResponse only once the answer has been handed to the socket in full, which a
    // client that closes the connection first never lets happen; its request goes on regardless (the
    // node may accept the transaction after the client left). Its row waits for the answer (onSend),
    // or is written now when the answer was already on its way.
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      request.auditConnectionClosed = true;
      if (request.auditAnswered) record(request, reply);
    });
    request.auditStreamStarted = () => {
      request.auditStreaming = true;
      return (ending, error) => recordStream(request, ending, error);
    };
  });

  // Validation converts types in place (ajv's coerceTypes: a number sent for a text field becomes
  // text, a query's page becomes a number), and the trail must say what was sent, not what it became.
  // preValidation runs after the body is parsed and before the schema touches it.
  app.addHook('preValidation', async (request) => {
    if (request.auditStartedAt === undefined) return;
    request.auditRequestPayload = sentPayload(request, maxChars);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.auditStartedAt === undefined) return payload;
    if (typeof payload === 'string') request.auditResponse = payload;
    request.auditAnswered = true;
    if (request.auditConnectionClosed) record(request, reply);
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => record(request, reply));

  function recordStream(request: FastifyRequest, ending: StreamEnding, error: Error | undefined): void {
    if (request.auditRecorded || request.auditStartedAt === undefined || request.auditEndpoint === undefined) return;
    request.auditRecorded = true;
    writer.push(streamRow(request, ending, error, maxChars));
  }

  function record(request: FastifyRequest, reply: FastifyReply): void {
    // A stream's end is recorded by the stream: a hijacked response that the server ends still runs onResponse.
    if (request.auditStreaming) return;
    if (request.auditRecorded || request.auditStartedAt === undefined || request.auditEndpoint === undefined) return;
    request.auditRecorded = true;
    // A per-address budget refused it: a stranger beyond the budget writes no rows (http/public-scope.ts).
    if (request.refusedByRateLimit) return;
    const elapsedMs = Number(process.hrtime.bigint() - request.auditStartedAt) / 1e6;
    const { error, isSuccess } = outcome(request, reply);
    writer.push({
      ipAddress: request.auditIp ?? clientAddress(request),
      endpoint: request.auditEndpoint,
      httpMethod: request.method,
      clientCode: clientCode(request),
      requestAt: new Date(Date.now() - elapsedMs),
      requestPayload: refusedBeforeRoute(request, reply)
        ? refusedRequestPayload(request)
        : request.auditRequestPayload !== undefined
          ? request.auditRequestPayload
          : sentPayload(request, maxChars),
      responsePayload: request.auditResponse === undefined ? null : auditResponsePayload(request.auditResponse, maxChars),
      responseTimeMs: elapsedMs,
      errorMessage: error,
      sourceType: sourceType(request),
      isSuccess,
    });
  }
}

/**
 * The row of an event stream: what it asked for, and as its answer how it
 * ended and how long it lasted (also its response time). Only a failure is an
 * error: a client closing its page, the time limit and a shutdown are how
 * streams end.
 */
function streamRow(request: FastifyRequest, ending: StreamEnding, error: Error | undefined, maxChars: number): AuditRow {
  const elapsedMs = Number(process.hrtime.bigint() - request.auditStartedAt!) / 1e6;
  return {
    ipAddress: request.auditIp ?? clientAddress(request),
    endpoint: request.auditEndpoint!,
    httpMethod: request.method,
    clientCode: clientCode(request),
    requestAt: new Date(Date.now() - elapsedMs),
    requestPayload: auditPayload(Object.keys(request.query as object).length ? request.query : undefined, maxChars),
    responsePayload: JSON.stringify({ stream_ended: ending, lasted_ms: Math.round(elapsedMs) }),
    responseTimeMs: elapsedMs,
    errorMessage: ending === 'error' ? `The event stream failed: ${error?.message ?? 'unknown error'}` : null,
    sourceType: sourceType(request),
    isSuccess: ending !== 'error',
  };
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
