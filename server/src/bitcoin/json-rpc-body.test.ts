import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeJsonRpcBody, validatedHex } from './json-rpc-body.ts';

const asText = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'));

test('payloads without validated hex are plain JSON.stringify', () => {
  const payload = { jsonrpc: '1.0', id: 1, method: 'getblockcount', params: ['x'.repeat(100_000)] };
  assert.equal(encodeJsonRpcBody(payload), JSON.stringify(payload));
});

test('large validated hex is spliced in byte for byte as JSON.stringify would write the string', () => {
  const a = 'ab'.repeat(50_000);
  const b = 'CD'.repeat(40_000);
  const body = encodeJsonRpcBody([
    { jsonrpc: '1.0', id: 7, method: 'testmempoolaccept', params: [[validatedHex(a), validatedHex(b)], 'ünïcode "quoted"'] },
    { jsonrpc: '1.0', id: 8, method: 'sendrawtransaction', params: [validatedHex(a)] },
  ]);
  assert.ok(Buffer.isBuffer(body));
  assert.equal(
    asText(body),
    JSON.stringify([
      { jsonrpc: '1.0', id: 7, method: 'testmempoolaccept', params: [[a, b], 'ünïcode "quoted"'] },
      { jsonrpc: '1.0', id: 8, method: 'sendrawtransaction', params: [a] },
    ]),
  );
});

test('small validated hex is written as an ordinary string', () => {
  assert.equal(encodeJsonRpcBody({ params: [validatedHex('00ff')] }), JSON.stringify({ params: ['00ff'] }));
});

test('any mix of strings, numbers and validated hex encodes exactly as JSON.stringify of the plain values', () => {
  const hexString = fc.stringMatching(/^[0-9a-f]{0,8}$/).map((s) => s.repeat(20_000));
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string(), hexString.map((h) => ({ wrapped: h })), fc.integer()), { maxLength: 5 }), (params) => {
      const wrapped = params.map((p) => (typeof p === 'object' ? validatedHex(p.wrapped) : p));
      const plain = params.map((p) => (typeof p === 'object' ? p.wrapped : p));
      assert.equal(asText(encodeJsonRpcBody({ id: 1, method: 'x', params: wrapped })), JSON.stringify({ id: 1, method: 'x', params: plain }));
    }),
    { numRuns: 50 },
  );
});
