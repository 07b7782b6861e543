import createClient, { type Middleware } from 'openapi-fetch';
import { readStoredSession } from '../auth/token-storage.ts';
import type { paths } from './schema';

/** docs/behaviour.md#error-messages: the fallback when the server gives no message. */
export const GENERIC_FAILURE = 'Something went wrong';

/** A failed call: the HTTP status (0 when the server was never reached) and the server's message. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  /** The server's own message, when it sent one. */
  readonly serverMessage: string | undefined;
  constructor(status: number, serverMessage: string | undefined, body: unknown = undefined) {
    super(serverMessage ?? GENERIC_FAILURE);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.serverMessage = serverMessage;
  }
}

function messageOf(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' && body.message !== '') {
    return body.message;
  }
  return undefined;
}

/**
 * The API's calls, typed from the OpenAPI document (schema.d.ts, generated
 * from the server's route schemas): each call's path, parameters, body and
 * answer are the server's own. The header marks calls from our own web app
 * (the audit trail's source type).
 */
export const api = createClient<paths>({ headers: { 'x-portal-client': 'web' } });

/** Staff calls send the stored sign-in token as the bearer (docs/behaviour.md#staff-sign-in). */
const bearer: Middleware = {
  onRequest({ request }) {
    const session = readStoredSession();
    if (session) request.headers.set('authorization', `Bearer ${session.idToken}`);
    return request;
  },
};

export const staffApi = createClient<paths>({ headers: { 'x-portal-client': 'web' } });
staffApi.use(bearer);

/** What openapi-fetch answers a call with. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * A call's answer, or an ApiError carrying the status and the server's
 * message. The dashboard turns a 401 into the end of the session and any
 * other failure into a toast (dashboard/query-client.ts).
 */
export async function unwrap<A extends Answer>(call: Promise<A>): Promise<NonNullable<A['data']>> {
  let answer: A;
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    // Never reached the server, or the answer broke off part-way.
    throw new ApiError(0, undefined);
  }
  if (!answer.response.ok) throw new ApiError(answer.response.status, messageOf(answer.error), answer.error);
  return answer.data as NonNullable<A['data']>;
}
