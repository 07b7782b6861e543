import net from 'node:net';

/**
 * A ZMQ SUB socket, as little of one as Bitcoin Core's notifications need:
 * one TCP connection speaking ZMTP 3.0 (RFC 23/ZMTP,
 * https://rfc.zeromq.org/spec/23/) with the NULL security mechanism, no
 * dependency on libzmq.
 *
 * The exchange, as RFC 23 lays it out:
 * - greeting: each side sends 64 bytes: signature %xFF 8×%x00 %x7F, version
 *   3.0, the mechanism name "NULL" padded to 20 bytes, as-server 0, 31 bytes
 *   of filler;
 * - handshake (NULL mechanism): each side sends a READY command whose
 *   metadata names its socket type; a PUB peer answers ours ("SUB");
 * - subscription: in ZMTP 3.0 a SUB sends a one-frame message, %x01 followed
 *   by the topic prefix (RFC 23 "The Publish-Subscribe Pattern");
 * - messages: frames of flags (bit 0 MORE, bit 1 LONG, bit 2 COMMAND), a size
 *   (1 byte, or 8 bytes big-endian when LONG), and the body; a message is
 *   its frames up to one without MORE.
 *
 * A ZMQ socket reconnects by itself; this one does not: the caller decides
 * (zmq-sequence.ts reconnects and resynchronises). Greeting as 3.0 keeps a
 * 3.1 peer (libzmq 4.2+) to 3.0 behaviour, without heartbeats, which Core does
 * not enable on its publisher.
 */

export interface ZmtpSubscriberOptions {
  host: string;
  port: number;
  /** Topic prefixes to subscribe to ("" for everything). */
  topics: readonly string[];
  /** After the handshake, once the subscriptions are written. */
  onReady?: () => void;
  /** One multipart message: for Core, [topic, body, 4-byte sequence]. */
  onMessage: (frames: Buffer[]) => void;
  /** Once, when the connection ends: undefined after close(), else why. */
  onClose: (error: Error | undefined) => void;
  /** Connect and handshake must finish within this (default 5 s). */
  handshakeTimeoutMs?: number;
}

export interface ZmtpSubscriber {
  /** Ends the connection; onClose(undefined) follows. */
  close(): void;
}

export const ZMTP_GREETING_BYTES = 64;
const FLAG_MORE = 0x01;
const FLAG_LONG = 0x02;
const FLAG_COMMAND = 0x04;
/** A frame larger than this is not a Core notification: the stream is not what we expect. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Our greeting: ZMTP 3.0, NULL mechanism, as client. */
export function zmtpGreeting(): Buffer {
  const greeting = Buffer.alloc(ZMTP_GREETING_BYTES);
  greeting[0] = 0xff;
  greeting[9] = 0x7f;
  greeting[10] = 3; // version major
  greeting[11] = 0; // version minor
  greeting.write('NULL', 12, 'ascii');
  greeting[32] = 0; // as-server
  return greeting;
}

/** One frame, short or long as its size requires. */
export function zmtpFrame(body: Buffer, flags: { more?: boolean; command?: boolean } = {}): Buffer {
  const long = body.length > 255;
  const header = Buffer.alloc(long ? 9 : 2);
  header[0] = (flags.more ? FLAG_MORE : 0) | (flags.command ? FLAG_COMMAND : 0) | (long ? FLAG_LONG : 0);
  if (long) header.writeBigUInt64BE(BigInt(body.length), 1);
  else header[1] = body.length;
  return Buffer.concat([header, body]);
}

/** A command frame: name-size, name, data (RFC 23 "Commands"). */
export function zmtpCommand(name: string, data: Buffer = Buffer.alloc(0)): Buffer {
  return zmtpFrame(Buffer.concat([Buffer.from([name.length]), Buffer.from(name, 'ascii'), data]), { command: true });
}

/** READY's metadata: name-size (1 byte), name, value-size (4 bytes, big-endian), value. */
export function zmtpMetadata(properties: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const size = Buffer.alloc(4);
    size.writeUInt32BE(Buffer.byteLength(value));
    parts.push(Buffer.from([name.length]), Buffer.from(name, 'ascii'), size, Buffer.from(value));
  }
  return Buffer.concat(parts);
}

export function parseZmtpMetadata(data: Buffer): Record<string, string> {
  const properties: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const nameSize = data[at]!;
    const name = data.toString('ascii', at + 1, at + 1 + nameSize);
    at += 1 + nameSize;
    if (at + 4 > data.length) throw new Error('Truncated ZMTP metadata');
    const valueSize = data.readUInt32BE(at);
    at += 4;
    if (at + valueSize > data.length) throw new Error('Truncated ZMTP metadata');
    properties[name.toLowerCase()] = data.toString('utf8', at, at + valueSize);
    at += valueSize;
  }
  return properties;
}

export type ZmtpUnit =
  | { kind: 'greeting'; major: number; minor: number; mechanism: string }
  | { kind: 'command'; name: string; data: Buffer }
  | { kind: 'message'; frames: Buffer[] };

/**
 * The byte stream of a ZMTP connection to greeting, commands and messages,
 * however TCP splits it. Pure, so the parsing is tested without sockets.
 */
export class ZmtpReader {
  private buffer: Buffer = Buffer.alloc(0);
  private greeted = false;
  private frames: Buffer[] = [];

  /** Feeds bytes; returns every unit they complete. Throws on a malformed stream. */
  push(chunk: Buffer): ZmtpUnit[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const units: ZmtpUnit[] = [];
    let at = 0;
    if (!this.greeted) {
      if (this.buffer.length >= 1 && this.buffer[0] !== 0xff) throw new Error('Not a ZMTP peer: bad greeting signature');
      if (this.buffer.length < ZMTP_GREETING_BYTES) return units;
      // Byte 9 is %x7F; its low bit is what tells ZMTP 2.0+ from 1.0 (RFC 23 "Version Negotiation").
      if ((this.buffer[9]! & 0x01) === 0) throw new Error('Not a ZMTP 3 peer: bad greeting signature');
      const major = this.buffer[10]!;
      if (major < 3) throw new Error(`ZMTP version ${major} is not supported (3.0 or later needed)`);
      const mechanism = this.buffer.toString('ascii', 12, 32).replace(/\0+$/, '');
      units.push({ kind: 'greeting', major, minor: this.buffer[11]!, mechanism });
      this.greeted = true;
      at = ZMTP_GREETING_BYTES;
    }
    for (;;) {
      if (this.buffer.length - at < 2) break;
      const flags = this.buffer[at]!;
      if (flags & 0xf8) throw new Error(`Malformed ZMTP frame flags 0x${flags.toString(16)}`);
      const long = (flags & FLAG_LONG) !== 0;
      const headerBytes = long ? 9 : 2;
      if (this.buffer.length - at < headerBytes) break;
      const sizeBig = long ? this.buffer.readBigUInt64BE(at + 1) : BigInt(this.buffer[at + 1]!);
      if (sizeBig > BigInt(MAX_FRAME_BYTES)) throw new Error(`ZMTP frame of ${sizeBig} bytes is too large`);
      const size = Number(sizeBig);
      if (this.buffer.length - at < headerBytes + size) break;
      // A copy: the frame outlives this buffer, which the next push replaces.
      const body = Buffer.from(this.buffer.subarray(at + headerBytes, at + headerBytes + size));
      at += headerBytes + size;
      if (flags & FLAG_COMMAND) {
        if (flags & FLAG_MORE || this.frames.length > 0) throw new Error('A ZMTP command inside a message');
        const nameSize = body[0] ?? 0;
        units.push({ kind: 'command', name: body.toString('ascii', 1, 1 + nameSize), data: body.subarray(1 + nameSize) });
        continue;
      }
      this.frames.push(body);
      if (!(flags & FLAG_MORE)) {
        units.push({ kind: 'message', frames: this.frames });
        this.frames = [];
      }
    }
    this.buffer = at === this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(at);
    return units;
  }
}

/** `tcp://host:port` (what -zmqpubsequence takes); a wildcard host means this machine. */
export function parseZmqTcpUrl(url: string): { host: string; port: number } {
  const match = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})$/.exec(url);
  const port = Number(match?.[2]);
  if (!match || !(port >= 1 && port <= 65535)) throw new Error(`Not a ZMQ TCP endpoint: ${url} (expected tcp://host:port)`);
  const host = match[1]!.replace(/^\[|\]$/g, '');
  return { host: host === '*' || host === '0.0.0.0' ? '127.0.0.1' : host, port };
}

export function connectZmtpSubscriber(options: ZmtpSubscriberOptions): ZmtpSubscriber {
  const reader = new ZmtpReader();
  const socket = net.connect({ host: options.host, port: options.port });
  // Notifications must never keep the process alive on their own.
  socket.unref();
  socket.setNoDelay(true);
  let state: 'greeting' | 'handshake' | 'ready' = 'greeting';
  let finished = false;
  let closedByUs = false;
  let failure: Error | undefined;

  const fail = (error: Error) => {
    failure ??= error;
    socket.destroy();
  };
  const handshakeTimer = setTimeout(() => fail(new Error(`No ZMTP handshake from ${options.host}:${options.port} within ${options.handshakeTimeoutMs ?? 5_000} ms`)), options.handshakeTimeoutMs ?? 5_000);
  handshakeTimer.unref();

  socket.on('connect', () => {
    socket.write(zmtpGreeting());
  });
  socket.on('data', (chunk: Buffer) => {
    let units: ZmtpUnit[];
    try {
      units = reader.push(chunk);
    } catch (error) {
      fail(error as Error);
      return;
    }
    for (const unit of units) {
      if (socket.destroyed) return; // closed by a handler: nothing more is delivered
      if (unit.kind === 'greeting') {
        if (unit.mechanism !== 'NULL') return fail(new Error(`The ZMQ publisher asks for the ${unit.mechanism} mechanism; only NULL is supported`));
        state = 'handshake';
        socket.write(zmtpCommand('READY', zmtpMetadata({ 'Socket-Type': 'SUB' })));
      } else if (unit.kind === 'command') {
        if (unit.name === 'ERROR') return fail(new Error(`The ZMQ publisher refused the connection: ${unit.data.toString('utf8', 1)}`));
        if (unit.name !== 'READY' || state !== 'handshake') continue; // other commands (PING in 3.1) are not ours to answer in 3.0
        let peerType: string | undefined;
        try {
          peerType = parseZmtpMetadata(unit.data)['socket-type'];
        } catch (error) {
          return fail(error as Error);
        }
        if (peerType !== 'PUB' && peerType !== 'XPUB') return fail(new Error(`The ZMQ peer is a ${peerType ?? 'socket of unknown type'}, not a publisher`));
        state = 'ready';
        clearTimeout(handshakeTimer);
        for (const topic of options.topics) socket.write(zmtpFrame(Buffer.concat([Buffer.from([0x01]), Buffer.from(topic, 'utf8')])));
        options.onReady?.();
      } else if (state === 'ready') {
        options.onMessage(unit.frames);
      }
    }
  });
  socket.on('error', (error) => {
    failure ??= error;
  });
  socket.on('close', () => {
    clearTimeout(handshakeTimer);
    if (finished) return;
    finished = true;
    options.onClose(closedByUs ? undefined : (failure ?? new Error(`The ZMQ publisher at ${options.host}:${options.port} closed the connection`)));
  });

  return {
    close() {
      closedByUs = true;
      socket.destroy();
    },
  };
}
