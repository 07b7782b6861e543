import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcError, RpcTransportError } from '../../bitcoin/rpc-client.ts';
import { isRetryableFailure } from './failure-policy.ts';

test('an unreachable or slow node is always worth a retry', () => {
  assert.equal(isRetryableFailure(new RpcTransportError('sendrawtransaction', 'unreachable', 'down')), true);
  assert.equal(isRetryableFailure(new RpcTransportError('sendrawtransaction', 'timeout', 'slow')), true);
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -28, 'Loading wallet…')), true, 'a node still starting after a restart');
});

test('rejections that pass with time are kept, final ones are not', () => {
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -26, 'mempool min fee not met, 100 < 200')), true);
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -26, 'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]')), true);
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -26, 'non-final')), true);
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -26, 'non-BIP68-final')), true);
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -26, 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)')), false);
  assert.equal(isRetryableFailure(new RpcError('sendrawtransaction', -25, 'bad-txns-inputs-missingorspent')), false);
  assert.equal(isRetryableFailure(new Error('anything else')), false);
});
