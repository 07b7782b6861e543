import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
  connectZmtpSubscriber,
  parseZmqTcpUrl,
  parseZmtpMetadata,
  zmtpCommand,
  zmtpFrame,
  zmtpGreeting,
  zmtpMetadata,
  ZmtpReader,
  type ZmtpUnit,
} from './zmtp-subscriber.ts';

/**
 * ZMTP 3.0 framing (RFC 23) byte for byte, and the subscriber against a
 * publisher written here from the RFC: greeting, NULL handshake, the
 * subscription message, multipart messages. (test/mempool-mirror.test.ts
 * runs it against the real node's libzmq.)
 */

function publisherGreeting(mechanism = 'NULL', major = 3): Buffer {
  const greeting = zmtpGreeting();
  greeting[10] = major;
  greeting.fill(0, 12, 32);
  greeting.write(mechanism, 12, 'ascii');
  greeting[32] = 1; // as-server
  return greeting;
}

test('the greeting is the RFC 23 signature, version 3.0, NULL, as client', () => {
  const greeting = zmtpGreeting();
  assert.equal(greeting.length, 64);
  assert.equal(greeting[0], 0xff);
  assert.equal(greeting[9], 0x7f);
  assert.deepEqual([greeting[10], greeting[11]], [3, 0]);
  assert.equal(greeting.toString('ascii', 12, 16), 'NULL');
  assert.ok(greeting.subarray(16, 64).every((b) => b === 0));
});

test('frames: short and long sizes, MORE and COMMAND flags', () => {
  assert.deepEqual([...zmtpFrame(Buffer.from('ab'))], [0x00, 2, 0x61, 0x62]);
  assert.deepEqual([...zmtpFrame(Buffer.from('ab'), { more: true })], [0x01, 2, 0x61, 0x62]);
  const long = zmtpFrame(Buffer.alloc(300, 7));
  assert.equal(long[0], 0x02);
  assert.equal(long.readBigUInt64BE(1), 300n);
  assert.equal(long.length, 309);
  const ready = zmtpCommand('READY', zmtpMetadata({ 'Socket-Type': 'SUB' }));
  assert.equal(ready[0], 0x04);
  assert.equal(ready.toString('ascii', 3, 8), 'READY');
  assert.deepEqual(parseZmtpMetadata(ready.subarray(8)), { 'socket-type': 'SUB' });
});

test('the reader reassembles whatever way TCP splits the stream', () => {
  const stream = Buffer.concat([
    publisherGreeting(),
    zmtpCommand('READY', zmtpMetadata({ 'Socket-Type': 'PUB' })),
    zmtpFrame(Buffer.from('sequence'), { more: true }),
    zmtpFrame(Buffer.alloc(300, 9), { more: true }),
    zmtpFrame(Buffer.from([1, 0, 0, 0])),
    zmtpFrame(Buffer.from('one')),
  ]);
  for (const step of [1, 3, 7, 64, 65, stream.length]) {
    const reader = new ZmtpReader();
    const units: ZmtpUnit[] = [];
    for (let at = 0; at < stream.length; at += step) units.push(...reader.push(stream.subarray(at, at + step)));
    assert.deepEqual(units.map((u) => u.kind), ['greeting', 'command', 'message', 'message'], `chunks of ${step}`);
    const [greeting, command, message, single] = units as [Extract<ZmtpUnit, { kind: 'greeting' }>, Extract<ZmtpUnit, { kind: 'command' }>, Extract<ZmtpUnit, { kind: 'message' }>, Extract<ZmtpUnit, { kind: 'message' }>];
    assert.deepEqual([greeting.major, greeting.mechanism], [3, 'NULL']);
    assert.equal(command.name, 'READY');
    assert.deepEqual(message.frames.map((f) => f.length), [8, 300, 4]);
    assert.equal(single.frames[0]!.toString(), 'one');
  }
});

test('the reader refuses what is not ZMTP 3', () => {
  assert.throws(() => new ZmtpReader().push(Buffer.from('HTTP/1.1 200 OK\r\n')), /signature/);
  assert.throws(() => new ZmtpReader().push(publisherGreeting('NULL', 2)), /version 2/);
  const reader = new ZmtpReader();
  reader.push(publisherGreeting());
  assert.throws(() => reader.push(Buffer.from([0x80, 0])), /flags/);
});

test('tcp:// endpoints, with a wildcard host meaning this machine', () => {
  assert.deepEqual(parseZmqTcpUrl('tcp://127.0.0.1:28332'), { host: '127.0.0.1', port: 28332 });
  assert.deepEqual(parseZmqTcpUrl('tcp://0.0.0.0:28332'), { host: '127.0.0.1', port: 28332 });
  assert.deepEqual(parseZmqTcpUrl('tcp://[::1]:28332'), { host: '::1', port: 28332 });
  assert.throws(() => parseZmqTcpUrl('ipc:///tmp/bitcoind.zmq'), /tcp:\/\/host:port/);
});

/** A one-connection PUB written from RFC 23: what it received, and a way to publish. */
async function fakePublisher(behaviour: { mechanism?: string; socketType?: string; error?: string } = {}) {
  const received: Buffer[] = [];
  let peer: net.Socket | undefined;
  let connected!: () => void;
  const connection = new Promise<void>((resolve) => (connected = resolve));
  const server = net.createServer((socket) => {
    peer = socket;
    const reader = new ZmtpReader();
    socket.write(publisherGreeting(behaviour.mechanism));
    socket.on('data', (chunk: Buffer) => {
      for (const unit of reader.push(chunk)) {
        if (unit.kind === 'greeting') {
          if (behaviour.error) socket.write(zmtpCommand('ERROR', Buffer.concat([Buffer.from([behaviour.error.length]), Buffer.from(behaviour.error)])));
          else socket.write(zmtpCommand('READY', zmtpMetadata({ 'Socket-Type': behaviour.socketType ?? 'PUB' })));
        } else if (unit.kind === 'message') {
          received.push(...unit.frames);
          connected();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    subscribed: connection,
    publish: (frames: Buffer[]) => peer!.write(Buffer.concat(frames.map((f, i) => zmtpFrame(f, { more: i < frames.length - 1 })))),
    drop: () => peer?.destroy(),
    close: () => new Promise<void>((resolve) => {
      peer?.destroy();
      server.close(() => resolve());
    }),
  };
}

const servers: Array<{ close(): Promise<void> }> = [];
after(async () => {
  for (const s of servers) await s.close();
});

test('against a publisher: handshake, the subscription, then multipart messages in order', async () => {
  const publisher = await fakePublisher();
  servers.push(publisher);
  const messages: Buffer[][] = [];
  let closed: ((error: Error | undefined) => void) | undefined;
  const closedWith = new Promise<Error | undefined>((resolve) => (closed = resolve));
  const ready = Promise.withResolvers<void>();
  const subscriber = connectZmtpSubscriber({ host: '127.0.0.1', port: publisher.port, topics: ['sequence'], onReady: () => ready.resolve(), onMessage: (frames) => messages.push(frames), onClose: (e) => closed!(e) });
  await ready.promise;
  await publisher.subscribed;
  assert.deepEqual(publisher.received.map((f) => f.toString('latin1')), ['\x01sequence']);
  publisher.publish([Buffer.from('sequence'), Buffer.alloc(41, 1), Buffer.from([0, 0, 0, 0])]);
  publisher.publish([Buffer.from('sequence'), Buffer.alloc(33, 2), Buffer.from([1, 0, 0, 0])]);
  const deadline = Date.now() + 2_000;
  while (messages.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(messages.map((m) => m.map((f) => f.length)), [[8, 41, 4], [8, 33, 4]]);
  publisher.drop();
  assert.match((await closedWith)?.message ?? '', /closed the connection/);
  subscriber.close();
});

test('a publisher that is not a NULL-mechanism PUB is refused with the reason', async () => {
  for (const [behaviour, reason] of [[{ mechanism: 'CURVE' }, /CURVE mechanism/], [{ socketType: 'REQ' }, /not a publisher/], [{ error: 'no access' }, /refused the connection: no access/]] as const) {
    const publisher = await fakePublisher(behaviour);
    servers.push(publisher);
    const closed = Promise.withResolvers<Error | undefined>();
    connectZmtpSubscriber({ host: '127.0.0.1', port: publisher.port, topics: ['sequence'], onMessage: () => {}, onClose: (e) => closed.resolve(e) });
    assert.match((await closed.promise)?.message ?? '', reason);
  }
});

test('nothing listening: the close says why', async () => {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const closed = Promise.withResolvers<Error | undefined>();
  connectZmtpSubscriber({ host: '127.0.0.1', port, topics: [''], onMessage: () => {}, onClose: (e) => closed.resolve(e) });
  assert.match((await closed.promise)?.message ?? '', /ECONNREFUSED/);
});
