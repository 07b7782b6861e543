import type { ServerResponse } from 'node:http';
import { normalizeIP } from '@fastify/rate-limit';

/**
 * The open Server-Sent Events streams of one endpoint: the caps (in all and
 * per address: an IPv4 address, or an IPv6 client's /64, grouped as the
 * public rate limit groups them), one heartbeat comment for all of them
 * (idle proxies close silent connections), and a hook when the first stream
 * opens and the last one closes, so a feed is followed only while someone
 * watches. The endpoint's own module decides what each stream is sent.
 *
 * The caps count this instance's open streams, also with REDIS_URL: they
 * guard what an open stream holds here (a socket, a timer, its share of the
 * heartbeat), which a stream on another instance does not. What a stranger
 * may open across instances is bounded by the public budget, which every
 * (re)connection spends and which REDIS_URL shares (http/rate-limit-store.ts).
 */

export interface SseClient {
  res: ServerResponse;
  /** The address group the client counts against. */
  ip: string;
}

/**
 * How a stream ended, for its audit row (audit/audit.hooks.ts): the client
 * left, the stream reached its time limit, the server shut down, the
 * response failed, or the server ended it for another reason.
 */
export type StreamEnding = 'client_closed' | 'time_limit' | 'server_shutdown' | 'error' | 'server_closed';

export interface StreamRefusal {
  statusCode: 429 | 503;
  message: string;
}

/** An SSE endpoint's timing and caps (mempool-dashboard/state-stream.ts, status/status-stream.ts). */
export interface StreamLimits {
  /** A comment line this often keeps proxies and load balancers from closing an idle stream. */
  heartbeatMs: number;
  /** Updates closer together than this are thinned to the newest (the last of a burst always goes out); 0: every one. */
  minIntervalMs: number;
  /** The reconnection delay the browser's EventSource is told to use (the `retry:` field). */
  retryMs: number;
  /** Each stream ends after this long; the browser reconnects, and is counted and checked again. */
  maxStreamMs: number;
  /** Open streams each hold a socket; past these caps new ones are refused. */
  maxStreams: number;
  maxStreamsPerIp: number;
}

/**
 * The limits an endpoint's options set, the shared defaults for the rest
 * (15 s heartbeat, one update a second, 3 s retry, 5-minute streams, 1,000
 * streams in all); how many streams one address may hold is each endpoint's
 * own call.
 */
export function streamLimits(given: Partial<StreamLimits>, defaultPerIp: number): StreamLimits {
  return {
    heartbeatMs: given.heartbeatMs ?? 15_000,
    minIntervalMs: given.minIntervalMs ?? 1_000,
    retryMs: given.retryMs ?? 3_000,
    maxStreamMs: given.maxStreamMs ?? 300_000,
    maxStreams: given.maxStreams ?? 1_000,
    maxStreamsPerIp: given.maxStreamsPerIp ?? defaultPerIp,
  };
}

export interface SseRegistryOptions {
  heartbeatMs: number;
  maxStreams: number;
  maxStreamsPerIp: number;
  messages: { closing: string; tooMany: string; tooManyFromIp: string };
  /** The first stream opened (after it was added). */
  onFirst?: () => void;
  /** The last stream closed. */
  onLast?: () => void;
}

export interface SseRegistry<C extends SseClient> {
  readonly clients: ReadonlySet<C>;
  /** Why a new stream from `address` is refused now, or null. */
  refusal(address: string): StreamRefusal | null;
  add(client: C): void;
  /** Removes the client; false when it was not open. */
  remove(client: C): boolean;
  /** Ends every stream and refuses new ones (shutdown). */
  closeAll(): void;
}

export const addressGroup = (address: string): string => normalizeIP(address);

export function createSseRegistry<C extends SseClient>(options: SseRegistryOptions): SseRegistry<C> {
  const clients = new Set<C>();
  const perIp = new Map<string, number>();
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let closing = false;

  const remove = (client: C): boolean => {
    if (!clients.delete(client)) return false;
    const left = (perIp.get(client.ip) ?? 1) - 1;
    if (left > 0) perIp.set(client.ip, left);
    else perIp.delete(client.ip);
    if (clients.size === 0) {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      options.onLast?.();
    }
    return true;
  };

  return {
    clients,
    refusal(address) {
      if (closing) return { statusCode: 503, message: options.messages.closing };
      if (clients.size >= options.maxStreams) return { statusCode: 503, message: options.messages.tooMany };
      if ((perIp.get(addressGroup(address)) ?? 0) >= options.maxStreamsPerIp) return { statusCode: 429, message: options.messages.tooManyFromIp };
      return null;
    },
    add(client) {
      clients.add(client);
      perIp.set(client.ip, (perIp.get(client.ip) ?? 0) + 1);
      if (heartbeat === null) {
        heartbeat = setInterval(() => {
          // A congested socket is not idle; the frame waiting for it will do.
          for (const c of clients) if (!c.res.writableNeedDrain) c.res.write(': heartbeat\n\n');
        }, options.heartbeatMs);
        // The heartbeat alone must never keep the process alive.
        heartbeat.unref();
      }
      if (clients.size === 1) options.onFirst?.();
    },
    remove,
    closeAll() {
      closing = true;
      for (const client of [...clients]) {
        remove(client);
        client.res.end();
      }
    },
  };
}
