import { connectZmtpSubscriber, parseZmqTcpUrl, type ZmtpSubscriber } from './zmtp-subscriber.ts';

/**
 * Bitcoin Core's `sequence` notifications (-zmqpubsequence; doc/zmq.md), kept
 * flowing across disconnections, with lost messages detected.
 *
 * Each notification is a three-frame message: the topic "sequence"; a body of
 * a 32-byte hash (in display order: Core reverses it before sending), a label
 * and, for transactions, the 8-byte little-endian mempool sequence:
 * - `A`: the transaction entered the mempool, `R`: it left for any reason but
 *   a block (replaced, evicted, expired, conflicted: Core does not say which);
 * - `C` / `D`: a block was connected / disconnected (no mempool sequence; the
 *   transactions a block takes leave the mempool silently, though each still
 *   advances the mempool sequence);
 * and a 4-byte little-endian message sequence, counted per topic from 0 at
 * the node's start. A message sequence that skips means messages were lost
 * (ZMQ drops on a full send queue, -zmqpubsequencehwm): the caller must
 * resynchronise. Every (re)connection is reported too, for the same reason:
 * whatever happened while disconnected is unknown.
 */

export type SequenceEvent =
  | { label: 'A' | 'R'; txid: string; mempoolSequence: number }
  | { label: 'C' | 'D'; blockHash: string };

export const SEQUENCE_TOPIC = 'sequence';

/** One notification's frames to its event and message sequence; undefined for another topic. Throws on a malformed one. */
export function parseSequenceMessage(frames: readonly Buffer[]): { event: SequenceEvent; messageSequence: number } | undefined {
  if (frames.length !== 3) throw new Error(`A ZMQ notification has ${frames.length} frames, 3 expected`);
  const [topic, body, sequence] = frames as [Buffer, Buffer, Buffer];
  if (topic.toString('ascii') !== SEQUENCE_TOPIC) return undefined;
  if (sequence.length !== 4) throw new Error(`A ZMQ message sequence of ${sequence.length} bytes, 4 expected`);
  const messageSequence = sequence.readUInt32LE(0);
  if (body.length < 33) throw new Error(`A sequence notification of ${body.length} bytes`);
  const hash = body.toString('hex', 0, 32);
  const label = String.fromCharCode(body[32]!);
  if (label === 'A' || label === 'R') {
    if (body.length !== 41) throw new Error(`A sequence '${label}' notification of ${body.length} bytes, 41 expected`);
    return { event: { label, txid: hash, mempoolSequence: Number(body.readBigUInt64LE(33)) }, messageSequence };
  }
  if (label === 'C' || label === 'D') {
    if (body.length !== 33) throw new Error(`A sequence '${label}' notification of ${body.length} bytes, 33 expected`);
    return { event: { label, blockHash: hash }, messageSequence };
  }
  throw new Error(`Unknown sequence notification label '${label}'`);
}

export interface SequenceStreamHandlers {
  /** Subscribed, on the first connection and every reconnection: what happened in between is unknown. */
  onConnected(): void;
  onEvent(event: SequenceEvent, receivedAtMs: number): void;
  /** A message sequence skipped: notifications were lost. */
  onGap(gap: { expected: number; received: number }): void;
  /** The connection ended, or could not be made (once per outage; the stream reconnects by itself until closed). */
  onDisconnected(error: Error | undefined): void;
}

export interface SequenceStreamOptions {
  /** The node's -zmqpubsequence endpoint, tcp://host:port. */
  url: string;
  /** First delay before reconnecting; doubles up to maxReconnectMs (defaults 250 ms and 5 s). */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /**
   * Tests only: return true to drop a notification as if it were lost on the
   * way, to exercise gap detection against a real node.
   */
  dropMessage?: (messageSequence: number, event: SequenceEvent) => boolean;
  now?: () => number;
}

export interface SequenceStream {
  readonly connected: boolean;
  /** Stops for good: no more reconnections or handlers. */
  close(): void;
}

export function openSequenceStream(options: SequenceStreamOptions, handlers: SequenceStreamHandlers): SequenceStream {
  const { host, port } = parseZmqTcpUrl(options.url);
  const now = options.now ?? Date.now;
  const firstDelay = options.reconnectMs ?? 250;
  const maxDelay = options.maxReconnectMs ?? 5_000;
  let delay = firstDelay;
  let socket: ZmtpSubscriber | undefined;
  let timer: NodeJS.Timeout | undefined;
  let connected = false;
  let closed = false;
  /** One onDisconnected per outage, not one per failed reconnection attempt. */
  let outageReported = false;
  /** The last message sequence seen on this connection. */
  let last: number | undefined;

  function connect(): void {
    last = undefined;
    let unreadable: Error | undefined;
    socket = connectZmtpSubscriber({
      host,
      port,
      topics: [SEQUENCE_TOPIC],
      onReady() {
        connected = true;
        outageReported = false;
        delay = firstDelay;
        handlers.onConnected();
      },
      onMessage(frames) {
        let parsed: ReturnType<typeof parseSequenceMessage>;
        try {
          parsed = parseSequenceMessage(frames);
        } catch (error) {
          // A stream we cannot read is a stream we cannot trust: reconnect and resynchronise.
          unreadable ??= error as Error;
          socket?.close();
          return;
        }
        if (!parsed) return;
        const { event, messageSequence } = parsed;
        if (options.dropMessage?.(messageSequence, event)) return;
        if (last !== undefined && messageSequence !== ((last + 1) >>> 0)) handlers.onGap({ expected: (last + 1) >>> 0, received: messageSequence });
        last = messageSequence;
        handlers.onEvent(event, now());
      },
      onClose(closeError) {
        const error = unreadable ?? closeError;
        const was = connected;
        connected = false;
        socket = undefined;
        if (closed) return;
        if (was || !outageReported) handlers.onDisconnected(error);
        outageReported = true;
        timer = setTimeout(connect, delay);
        timer.unref();
        delay = Math.min(maxDelay, delay * 2);
      },
    });
  }
  connect();

  return {
    get connected() {
      return connected;
    },
    close() {
      closed = true;
      connected = false;
      clearTimeout(timer);
      socket?.close();
    },
  };
}
