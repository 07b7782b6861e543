import type { ServerResponse } from 'node:http';
import { normalizeIP } from '@fastify/rate-limit';

/**
 * The open Server-Sent Events streams of one endpoint: the caps (in all and
 * per address: an IPv4 address, or an IPv6 client's /64, grouped as the
 * public rate limit groups them), one heartbeat comment for all of them
 * (idle proxies close silent connections), and a hook when the first stream
 * opens and the last one closes, so a feed is followed only while someone
 * watches. The endpoint's own module decides what each stream is sent.
 */

export interface SseClient {
  res: ServerResponse;
  /** The address group the client counts against. */
  ip: string;
}

export interface StreamRefusal {
  statusCode: 429 | 503;
  message: string;
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
