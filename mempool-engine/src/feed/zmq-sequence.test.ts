import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { openSequenceStream, parseSequenceMessage, type SequenceEvent } from './zmq-sequence.ts';
import { zmtpCommand, zmtpFrame, zmtpGreeting, zmtpMetadata, ZmtpReader } from './zmtp-subscriber.ts';

/**
 * Core's `sequence` notifications (doc/zmq.md): the body's layout, and the
 * stream's promises: every (re)connection reported, lost messages detected
 * by the message sequence. Against the real node: test/mempool-mirror.test.ts.
 */

const hash = (byte: number) => Buffer.alloc(32, byte);
const le32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const body = (byte: number, label: string, mempoolSequence?: bigint) => {
  const parts = [hash(byte), Buffer.from(label, 'ascii')];
  if (mempoolSequence !== undefined) {
    const seq = Buffer.alloc(8);
    seq.writeBigUInt64LE(mempoolSequence);
    parts.push(seq);
  }
  return Buffer.concat(parts);
};

test('A and R carry a txid and the mempool sequence; C and D a block hash', () => {
  assert.deepEqual(parseSequenceMessage([Buffer.from('sequence'), body(0xab, 'A', 7n), le32(3)]), { event: { label: 'A', txid: 'ab'.repeat(32), mempoolSequence: 7 }, messageSequence: 3 });
  assert.deepEqual(parseSequenceMessage([Buffer.from('sequence'), body(0x01, 'R', 2n ** 40n), le32(0xffffffff)])?.event, { label: 'R', txid: '01'.repeat(32), mempoolSequence: 2 ** 40 });
  assert.deepEqual(parseSequenceMessage([Buffer.from('sequence'), body(0xcd, 'C'), le32(4)])?.event, { label: 'C', blockHash: 'cd'.repeat(32) });
  assert.deepEqual(parseSequenceMessage([Buffer.from('sequence'), body(0xcd, 'D'), le32(5)])?.event, { label: 'D', blockHash: 'cd'.repeat(32) });
  assert.equal(parseSequenceMessage([Buffer.from('hashblock'), hash(1), le32(0)]), undefined);
  assert.throws(() => parseSequenceMessage([Buffer.from('sequence'), body(1, 'A'), le32(0)]), /41 expected/);
  assert.throws(() => parseSequenceMessage([Buffer.from('sequence'), body(1, 'X'), le32(0)]), /label 'X'/);
  assert.throws(() => parseSequenceMessage([Buffer.from('sequence'), body(1, 'C')]), /2 frames/);
});

/** A PUB that takes any number of connections; publish() goes to the latest. */
async function publisher() {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const reader = new ZmtpReader();
    socket.write(Buffer.concat([zmtpGreeting()]));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      for (const unit of reader.push(chunk)) if (unit.kind === 'greeting') socket.write(zmtpCommand('READY', zmtpMetadata({ 'Socket-Type': 'PUB' })));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    publish(frames: Buffer[]) {
      sockets.at(-1)!.write(Buffer.concat(frames.map((f, i) => zmtpFrame(f, { more: i < frames.length - 1 }))));
    },
    dropConnections: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => {
      sockets.forEach((s) => s.destroy());
      server.close(() => resolve());
    }),
  };
}

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('events in order; a skipped message sequence is a gap; a dropped connection comes back and says so', async () => {
  const pub = await publisher();
  cleanups.push(pub.close);
  const log: string[] = [];
  const events: SequenceEvent[] = [];
  const stream = openSequenceStream(
    { url: pub.url, reconnectMs: 10, dropMessage: (n) => n === 4 },
    {
      onConnected: () => log.push('connected'),
      onEvent: (event) => events.push(event),
      onGap: ({ expected, received }) => log.push(`gap ${expected}→${received}`),
      onDisconnected: () => log.push('disconnected'),
    },
  );
  cleanups.push(() => stream.close());
  await until(() => stream.connected, 'the connection');
  // Give the publisher the subscription before publishing (a ZMQ publisher filters by it).
  await new Promise((r) => setTimeout(r, 20));
  for (const [n, seq] of [[0, 10n], [1, 11n], [2, 12n]] as const) pub.publish([Buffer.from('sequence'), body(n + 1, 'A', seq), le32(n)]);
  // 3 arrives; 4 is "lost" by the test hook; 5 arrives: the stream sees 3 then 5.
  for (const n of [3, 4, 5]) pub.publish([Buffer.from('sequence'), body(9, 'C'), le32(n)]);
  await until(() => events.length === 5, 'five events');
  assert.deepEqual(events.slice(0, 3).map((e) => e.label === 'A' && e.mempoolSequence), [10, 11, 12]);
  assert.deepEqual(log, ['connected', 'gap 4→5']);

  pub.dropConnections();
  await until(() => log.filter((l) => l === 'connected').length === 2, 'the reconnection');
  assert.deepEqual(log, ['connected', 'gap 4→5', 'disconnected', 'connected']);
  // A new connection starts its count afresh (the node may have restarted).
  await new Promise((r) => setTimeout(r, 20));
  pub.publish([Buffer.from('sequence'), body(7, 'R', 1n), le32(0)]);
  await until(() => events.length === 6, 'the event after reconnecting');
  assert.equal(log.length, 4, 'no gap across connections');
});
