import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { MempoolDashboardState, MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { SSE_HEADERS } from '../mempool-dashboard/state-stream.ts';
import { addressGroup, createSseRegistry, type SseClient, type StreamEnding, type StreamLimits, type StreamRefusal } from '../../http/sse-registry.ts';
import type { StatusResponse } from './status.schemas.ts';

/**
 * The status page, live: one Server-Sent Events stream per page, pushing
 * the status-check answer for one transaction whenever it changes. The
 * mempool engine's feed publishes after every projection, and a new block
 * is one (the mined transactions leave the mirror and the rest is projected
 * again), so a feed update is the one signal to look again; the answer is
 * sent only when it differs from the last one sent.
 *
 * Answers are shared: streams watching the same transaction under the same
 * feed state get the one answer computed for it. Updates are thinned to one
 * per `minIntervalMs` (the last of a burst always goes out), except a new
 * block's: it is what a watcher waits for, and comes once in ten minutes,
 * so it goes out at once, even to a stream updated a moment before. Each stream
 * ends after `maxStreamMs`; the browser reconnects and spends the public
 * rate-limit budget again, as every public request does.
 */

export interface StatusStreamOptions extends StreamLimits {
  feed: MempoolFeed;
  check: (txid: string) => Promise<StatusResponse>;
  log: FastifyBaseLogger;
}

export const STATUS_STREAMS_CLOSING_MESSAGE = 'The server is shutting down. Please reconnect shortly.';
export const TOO_MANY_STATUS_STREAMS_MESSAGE = 'Too many live status pages are open right now. Please try again shortly.';
export const TOO_MANY_STATUS_STREAMS_FROM_IP_MESSAGE = 'Too many live status pages are open from your address. Close some and try again.';

interface Client extends SseClient {
  txid: string;
  lastFrame: string;
  timer: ReturnType<typeof setTimeout> | null;
  lastCheckAt: number;
  checking: boolean;
  again: boolean;
  /** The check to run after the one in flight is a new block's: not thinned. */
  urgent: boolean;
  /** Why the server ended it, once it has. */
  ending?: StreamEnding;
}

export interface StatusStreams {
  refusal(ip: string): StreamRefusal | null;
  /**
   * Takes over the raw response with `first` (the answer the route already
   * computed), then every change; `onEnd` is told once how the stream ended
   * (its audit row: the route took the response over, so no hook sees it end).
   */
  attach(res: ServerResponse, ip: string, txid: string, first: StatusResponse, headers: OutgoingHttpHeaders, onEnd?: (ending: StreamEnding, error?: Error) => void): void;
  closeAll(): void;
  size(): number;
}

export const statusFrame = (answer: StatusResponse) => `event: status\ndata: ${JSON.stringify(answer)}\n\n`;

export function createStatusStreams(options: StatusStreamOptions): StatusStreams {
  const { feed, log } = options;
  let unsubscribe: (() => void) | null = null;
  const streams = createSseRegistry<Client>({
    ...options,
    messages: { closing: STATUS_STREAMS_CLOSING_MESSAGE, tooMany: TOO_MANY_STATUS_STREAMS_MESSAGE, tooManyFromIp: TOO_MANY_STATUS_STREAMS_FROM_IP_MESSAGE },
    onFirst: () => {
      unsubscribe ??= feed.subscribe(onFeed);
    },
    onLast: () => {
      unsubscribe?.();
      unsubscribe = null;
      answers.clear();
      answersOf = null;
    },
  });
  const clients = streams.clients;

  // One answer per transaction per feed state, however many pages watch it.
  let answersOf: MempoolDashboardState | null = null;
  const answers = new Map<string, Promise<string>>();
  const frameFor = (txid: string): Promise<string> => {
    const state = feed.current();
    if (state !== answersOf) {
      answers.clear();
      answersOf = state;
    }
    let frame = answers.get(txid);
    if (!frame) {
      frame = options.check(txid).then(statusFrame);
      answers.set(txid, frame);
      // A failure is not kept: the next update asks again.
      const asked = frame;
      asked.catch(() => {
        if (answers.get(txid) === asked) answers.delete(txid);
      });
    }
    return frame;
  };

  const refresh = async (client: Client) => {
    if (client.checking) {
      client.again = true;
      return;
    }
    client.checking = true;
    client.lastCheckAt = Date.now();
    try {
      const frame = await frameFor(client.txid);
      if (clients.has(client) && frame !== client.lastFrame && !client.res.writableNeedDrain) {
        client.lastFrame = frame;
        client.res.write(frame);
      }
    } catch (error) {
      // The node or engine failed for a moment: the page keeps its last answer (and its poll as the fallback).
      log.warn({ err: error, txid: client.txid }, 'status stream: status check failed');
    } finally {
      client.checking = false;
      if (client.again && clients.has(client)) {
        client.again = false;
        if (client.urgent) refreshNow(client);
        else schedule(client);
      }
    }
  };

  const schedule = (client: Client) => {
    if (client.timer !== null) return;
    const wait = client.lastCheckAt + options.minIntervalMs - Date.now();
    if (wait <= 0) void refresh(client);
    else client.timer = setTimeout(() => {
      client.timer = null;
      void refresh(client);
    }, wait);
  };

  /** A new block's update: past the throttle (a check in flight is followed by another at once). */
  const refreshNow = (client: Client) => {
    if (client.timer !== null) {
      clearTimeout(client.timer);
      client.timer = null;
    }
    client.urgent = client.checking;
    void refresh(client);
  };

  let seenTip: string | undefined = feed.current()?.recentBlocks[0]?.hash;
  const onFeed = () => {
    const tip = feed.current()?.recentBlocks[0]?.hash;
    const newBlock = tip !== undefined && seenTip !== undefined && tip !== seenTip;
    seenTip = tip ?? seenTip;
    for (const client of clients) {
      if (newBlock) refreshNow(client);
      else schedule(client);
    }
  };

  const detach = (client: Client) => {
    if (client.timer) clearTimeout(client.timer);
    streams.remove(client);
  };

  return {
    refusal: (address) => streams.refusal(address),

    attach(res, address, txid, first, headers, onEnd) {
      // The client left while its first answer was computed.
      if (res.socket === null || res.socket.destroyed) return onEnd?.('client_closed');
      const client: Client = { res, ip: addressGroup(address), txid, lastFrame: statusFrame(first), timer: null, lastCheckAt: Date.now(), checking: false, again: false, urgent: false };
      streams.add(client);
      res.writeHead(200, { ...headers, ...SSE_HEADERS });
      res.write(`retry: ${options.retryMs}\n\n${client.lastFrame}`);
      const end = setTimeout(() => {
        client.ending ??= 'time_limit';
        res.end();
      }, options.maxStreamMs);
      end.unref();
      let failure: Error | undefined;
      res.once('error', (error) => {
        client.ending ??= 'error';
        failure = error;
      });
      res.on('close', () => {
        clearTimeout(end);
        detach(client);
        // Closed before the server ended it: the client left.
        onEnd?.(client.ending ?? (res.writableFinished ? 'server_closed' : 'client_closed'), failure);
      });
    },

    closeAll() {
      for (const client of clients) {
        if (client.timer) clearTimeout(client.timer);
        client.ending ??= 'server_shutdown';
      }
      streams.closeAll();
    },

    size: () => clients.size,
  };
}
