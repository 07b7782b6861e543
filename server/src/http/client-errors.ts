import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { ConnectionError, FastifyInstance } from 'fastify';
import type { SecurityHeaders } from './security-headers.ts';

/**
 * Answers to requests Node's HTTP parser refuses before Fastify sees them
 * (the server's 'clientError' event, through Fastify's `clientErrorHandler`
 * option): headers or a request line past the size limit (431), chunk
 * extensions past theirs (413), a request that does not arrive within the
 * server's timeouts (408), anything that is not HTTP/1.1 (400: bad header
 * bytes, Content-Length and Transfer-Encoding together, a TLS handshake on
 * the plain port). There is no request or reply object, so the answer is
 * written to the socket as raw HTTP, in the API's error shape and with the
 * security headers every other answer carries, and the connection is closed:
 * after a parse error nothing more on it can be read as a request.
 *
 * As Node's own default does (lib/_http_server.js, socketOnError), nothing is
 * written to a socket that cannot take it (reset by the client, destroyed,
 * half-closed) or whose connection is already partway through another
 * response (pipelining): bytes there would corrupt that response. It is
 * only destroyed.
 */

export const HEADERS_TOO_LARGE_MESSAGE = "The request's headers or address are too large.";
export const CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE = "The request body's chunk extensions are too large.";
export const REQUEST_TIMEOUT_MESSAGE = 'The request did not arrive in time.';
export const BAD_REQUEST_MESSAGE = 'The request is not valid HTTP.';

export interface ParserRefusal {
  statusCode: number;
  message: string;
}

/** The answer to a parser error, by its code (llhttp's HPE_* or Node's ERR_HTTP_*), with the statuses Node's default uses. */
export function parserRefusal(code: string | undefined): ParserRefusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { statusCode: 431, message: HEADERS_TOO_LARGE_MESSAGE };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { statusCode: 413, message: CHUNK_EXTENSIONS_TOO_LARGE_MESSAGE };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { statusCode: 408, message: REQUEST_TIMEOUT_MESSAGE };
    default:
      return { statusCode: 400, message: BAD_REQUEST_MESSAGE };
  }
}

/** A whole HTTP/1.1 response that closes the connection, its body the API's error shape (errors.ts). */
export function rawErrorResponse(refusal: ParserRefusal, headers: Record<string, string>): Buffer {
  const body = JSON.stringify({ status: 'error', message: refusal.message });
  const head = [
    `HTTP/1.1 ${refusal.statusCode} ${STATUS_CODES[refusal.statusCode] ?? ''}`,
    'connection: close',
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}

/** Node's socket holds the response under way on it here (lib/_http_server.js); not public, so read defensively. */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * The `clientErrorHandler` for Fastify. The request line was not parsed, so
 * the stricter policy (the app's, not Swagger UI's) applies; HSTS only on a
 * TLS socket (behind a proxy that ends TLS, the proxy's own answer carries it).
 */
export function createClientErrorHandler(securityHeaders: SecurityHeaders): (this: FastifyInstance, error: ConnectionError, socket: Socket) => void {
  return function clientErrorHandler(error, socket) {
    const inFlight = (socket as HttpSocket)._httpMessage;
    const answerable = error.code !== 'ECONNRESET' && !socket.destroyed && socket.writable && !inFlight?.headersSent;
    if (answerable) {
      const refusal = parserRefusal(error.code);
      // A client's mistake, not the server's: below the default log level, as Fastify's own handler does.
      this.log.debug({ code: error.code, statusCode: refusal.statusCode }, 'The HTTP parser refused a request');
      socket.write(rawErrorResponse(refusal, securityHeaders.values('/', socket instanceof TLSSocket)));
    }
    // Without the error: the event was the error's handling, and a second 'error' event must not reach a socket nobody listens on.
    socket.destroy();
  };
}
