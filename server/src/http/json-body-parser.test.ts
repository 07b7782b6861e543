import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createJsonBodyParser } from './json-body-parser.ts';

const parser = createJsonBodyParser({ offThreadAboveBytes: 1024 });
after(() => parser.close());

const big = (value: object) => Buffer.from(JSON.stringify({ ...value, pad: 'x'.repeat(4096) }));

test('small and large bodies parse to the same values', async () => {
  assert.deepEqual(await parser.parse(Buffer.from('{"tx_hex":"00ff"}')), { tx_hex: '00ff' });
  const large = (await parser.parse(big({ tx_hexes: ['ab', 'cd'] }))) as { tx_hexes: string[]; pad: string };
  assert.deepEqual(large.tx_hexes, ['ab', 'cd']);
  assert.equal(large.pad.length, 4096);
});

test('invalid JSON is a 400 on both paths', async () => {
  for (const body of [Buffer.from('{"tx_hex": '), Buffer.from(`{"pad":"${'x'.repeat(4096)}"`)]) {
    await assert.rejects(parser.parse(body), (error: Error & { statusCode?: number }) => {
      assert.equal(error.statusCode, 400);
      assert.match(error.message, /^Body is not valid JSON/);
      return true;
    });
  }
});

test('prototype and constructor poisoning are refused on both paths, as by Fastify', async () => {
  const payloads = ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}'];
  for (const payload of payloads) {
    await assert.rejects(parser.parse(Buffer.from(payload)), { statusCode: 400 });
    await assert.rejects(parser.parse(Buffer.from(payload.replace(/}$/, `,"pad":"${'x'.repeat(4096)}"}`))), { statusCode: 400 });
  }
});

test('an empty body is refused', async () => {
  await assert.rejects(parser.parse(Buffer.alloc(0)), { statusCode: 400 });
});

test('many large bodies in flight at once each get their own answer', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => parser.parse(big({ n: i }))));
  assert.deepEqual(results.map((r) => (r as { n: number }).n), Array.from({ length: 20 }, (_, i) => i));
});

test('too many large bodies waiting at once get a 503 instead of unbounded memory', async () => {
  const small = createJsonBodyParser({ offThreadAboveBytes: 1024, maxQueuedBytes: 10_000 });
  try {
    const body = big({ n: 1 });
    const first = small.parse(body);
    const second = small.parse(body);
    await assert.rejects(small.parse(body), { statusCode: 503 });
    assert.deepEqual(((await first) as { n: number }).n, 1);
    await second;
    // Capacity comes back once the queue drains.
    assert.deepEqual(((await small.parse(body)) as { n: number }).n, 1);
  } finally {
    await small.close();
  }
});

test('closing the parser settles every pending parse', async () => {
  const closing = createJsonBodyParser({ offThreadAboveBytes: 1024 });
  const waiting = assert.rejects(closing.parse(big({ n: 2 })), /shutting down/);
  await closing.close();
  await waiting;
});
