import { readStoredSession } from '../auth/token-storage.ts';

/** SPEC.md section 8: the fallback when the server gives no message. */
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

export interface CallOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Sends the stored sign-in token as the bearer (staff calls). */
  staff?: boolean;
  signal?: AbortSignal;
}

function messageOf(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' && body.message !== '') {
    return body.message;
  }
  return undefined;
}

/** One fetch for every API call: JSON in and out, the server's message on failure. */
export async function apiCall<T>(path: string, options: CallOptions = {}): Promise<T> {
  // Marks calls from our own web app (the audit trail's source type).
  const headers: Record<string, string> = { 'x-portal-client': 'web' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.staff) {
    const session = readStoredSession();
    if (session) headers.authorization = `Bearer ${session.idToken}`;
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, undefined);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(body), body);
  return body as T;
}
