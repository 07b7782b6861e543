import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { addressGroup, createSseRegistry, type SseClient, type StreamLimits, type StreamRefusal } from '../../http/sse-registry.ts';
import type { MempoolDashboardState, MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import type { MempoolStateResponse } from './mempool-dashboard.schemas.ts';

/**
 * Fans the mempool feed out to the dashboard's Server-Sent Events streams
 * (WHATWG HTML, "Server-sent events"). One subscription to the feed however
 * many viewers there are, taken with the first stream and dropped with the
 * last; each state is serialised once and the same frame written to all.
 *
 * The state is replaced whole on every update, so a viewer that cannot keep
 * up needs only the newest one: while a socket is congested, newer frames
 * overwrite the one waiting for it instead of piling up in memory. For the
 * same reason updates faster than a person can read are thinned to one per
 * `minIntervalMs`, the newest (a new viewer still gets the current state at once).
 */

export interface StateStreamOptions extends StreamLimits {
  feed: MempoolFeed;
  log: FastifyBaseLogger;
}

export type { StreamRefusal };

export const STREAMS_CLOSING_MESSAGE = 'The server is shutting down. Please reconnect shortly.';
export const TOO_MANY_STREAMS_MESSAGE = 'Too many live mempool views are open right now. Please try again shortly.';
export const TOO_MANY_STREAMS_FROM_IP_MESSAGE = 'Too many live mempool views are open from your address. Close some and try again.';

export const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform: a compressing proxy would hold frames back to fill its buffers.
  'cache-control': 'no-cache, no-transform',
  // nginx buffers proxied responses unless told not to.
  'x-accel-buffering': 'no',
};

interface Client extends SseClient {
  /** The state this client last got, so that a state is never sent twice to it. */
  lastSent: MempoolDashboardState | null;
  /** The newest frame not yet written because the socket was congested. */
  pending: string | null;
}

export interface StateStreams {
  /** Why a new stream from this address (or its IPv6 /64) may not open now, or null when it may. */
  refusal(ip: string): StreamRefusal | null;
  /** Takes over the raw response (the route then hijacks the reply): the headers and the current state, then every update. Throws, having written nothing, when the feed does. */
  attach(res: ServerResponse, ip: string, headers: OutgoingHttpHeaders): void;
  /** Ends every stream and refuses new ones (the server is closing). */
  closeAll(): void;
  /** How many streams are open. */
  size(): number;
}

/** Only the contract's fields go on the wire, as the state route's response schema sends them. */
export function toWire(state: MempoolDashboardState): MempoolStateResponse {
  return {
    network: state.network,
    updatedAtMs: state.updatedAtMs,
    lagMs: state.lagMs,
    mempool: { txCount: state.mempool.txCount, vsize: state.mempool.vsize, totalFees: state.mempool.totalFees },
    projectedBlocks: state.projectedBlocks.map((b) => ({
      index: b.index,
      txCount: b.txCount,
      weight: b.weight,
      vsize: b.vsize,
      totalFees: b.totalFees,
      minRate: b.minRate,
      maxRate: b.maxRate,
      medianRate: b.medianRate,
    })),
    histogram: state.histogram.map((h) => ({ minRate: h.minRate, txCount: h.txCount, vsize: h.vsize })),
    recentBlocks: state.recentBlocks.map((b) => ({ height: b.height, hash: b.hash, time: b.time, txCount: b.txCount, ours: b.ours })),
    poolShare: {
      last24h: state.poolShare.last24h,
      last7d: state.poolShare.last7d,
      expectedNextBlockSeconds: state.poolShare.expectedNextBlockSeconds,
    },
  };
}

export function createStateStreams(options: StateStreamOptions): StateStreams {
  const { feed, log } = options;
  let unsubscribe: (() => void) | null = null;
  const streams = createSseRegistry<Client>({
    ...options,
    messages: { closing: STREAMS_CLOSING_MESSAGE, tooMany: TOO_MANY_STREAMS_MESSAGE, tooManyFromIp: TOO_MANY_STREAMS_FROM_IP_MESSAGE },
    // The feed is subscribed in attach, before anything is written (a failure there is the route's error).
    onLast: () => {
      unsubscribe?.();
      unsubscribe = null;
      if (trailing) clearTimeout(trailing);
      trailing = null;
      queued = null;
      framedState = null;
      frame = '';
    },
  });
  const clients = streams.clients;

  // The frame of the latest state, built once however many clients get it.
  let framedState: MempoolDashboardState | null = null;
  let frame = '';
  const frameOf = (state: MempoolDashboardState): string => {
    if (state !== framedState) {
      // JSON.stringify escapes line breaks, so the data is one line (an SSE field ends at a line break).
      frame = `event: state\ndata: ${JSON.stringify(toWire(state))}\n\n`;
      framedState = state;
    }
    return frame;
  };

  const deliver = (client: Client, state: MempoolDashboardState) => {
    if (client.lastSent === state) return;
    client.lastSent = state;
    if (client.res.writableNeedDrain) client.pending = frameOf(state);
    else client.res.write(frameOf(state));
  };

  let lastBroadcastAt = Number.NEGATIVE_INFINITY;
  let queued: MempoolDashboardState | null = null;
  let trailing: ReturnType<typeof setTimeout> | null = null;

  const broadcast = () => {
    trailing = null;
    const state = queued;
    queued = null;
    if (state === null) return;
    lastBroadcastAt = Date.now();
    for (const client of clients) deliver(client, state);
  };

  const publish = (state: MempoolDashboardState) => {
    queued = state;
    if (trailing !== null) return;
    const wait = lastBroadcastAt + options.minIntervalMs - Date.now();
    if (wait <= 0) broadcast();
    else trailing = setTimeout(broadcast, wait);
  };

  const detach = (client: Client) => {
    streams.remove(client);
  };

  return {
    refusal: (address) => streams.refusal(address),

    attach(res, address, headers) {
      const ip = addressGroup(address);
      // The viewer may have gone before the route ran; a closed socket never reports its close again.
      if (res.socket === null || res.socket.destroyed) return;
      // The feed first: should it fail, nothing has been written and the app's error handler answers.
      const wasSubscribed = unsubscribe !== null;
      let current: MempoolDashboardState | null;
      try {
        unsubscribe ??= feed.subscribe(publish);
        current = feed.current();
      } catch (error) {
        if (!wasSubscribed && clients.size === 0) {
          unsubscribe?.();
          unsubscribe = null;
        }
        throw error;
      }

      const client: Client = { res, ip, lastSent: null, pending: null };
      // Access was checked when the stream opened: ending it now and then has the viewer checked again when it reconnects.
      const expiry = options.maxStreamMs > 0 ? setTimeout(() => {
        detach(client);
        res.end();
      }, options.maxStreamMs) : undefined;
      expiry?.unref();
      res.on('close', () => {
        clearTimeout(expiry);
        detach(client);
      });
      res.on('drain', () => {
        const pending = client.pending;
        client.pending = null;
        if (pending !== null) res.write(pending);
      });
      // A viewer going away mid-write is routine; it is noted, and the close that follows detaches it.
      res.on('error', (error) => log.debug({ err: error }, 'mempool stream write failed'));
      // Frames are small and must not wait for Nagle's algorithm.
      res.socket.setNoDelay(true);
      res.writeHead(200, { ...headers, ...SSE_HEADERS });
      // The first bytes go out at once, so the browser knows it is connected even before the first state.
      res.write(`retry: ${options.retryMs}\n: connected\n\n`);

      streams.add(client);
      if (current) deliver(client, current);
    },

    closeAll: () => streams.closeAll(),

    size: () => clients.size,
  };
}
