import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeJsonRpcBody } from './json-rpc-body.ts';

const asText = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'));

test('small payloads are plain JSON.stringify', () => {
  const payload = { jsonrpc: '1.0', id: 1, method: 'getblockcount', params: [] };
  assert.equal(encodeJsonRpcBody(payload), JSON.stringify(payload));
});

test('large hex strings are spliced in byte for byte as JSON.stringify would write them', () => {
  const a = 'ab'.repeat(50_000);
  const b = 'CD'.repeat(40_000);
  const payload = [
    { jsonrpc: '1.0', id: 7, method: 'testmempoolaccept', params: [[a, b], 'ünïcode "quoted"'] },
    { jsonrpc: '1.0', id: 8, method: 'sendrawtransaction', params: [a] },
  ];
  const body = encodeJsonRpcBody(payload);
  assert.ok(Buffer.isBuffer(body));
  assert.equal(asText(body), JSON.stringify(payload));
});

test('large strings that are not hex go through JSON escaping', () => {
  const payload = { params: ['"\n'.repeat(40_000)] };
  assert.equal(asText(encodeJsonRpcBody(payload)), JSON.stringify(payload));
});

test('any payload of strings and numbers encodes exactly as JSON.stringify', () => {
  const hexString = fc.stringMatching(/^[0-9a-f]{0,8}$/).map((s) => s.repeat(20_000));
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string(), hexString, fc.integer()), { maxLength: 5 }), (params) => {
      const payload = { id: 1, method: 'x', params };
      assert.equal(asText(encodeJsonRpcBody(payload)), JSON.stringify(payload));
    }),
    { numRuns: 50 },
  );
});
