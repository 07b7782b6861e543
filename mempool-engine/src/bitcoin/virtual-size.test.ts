import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BYTES_PER_SIGOP, sigopAdjustedVsize } from './virtual-size.ts';

test('sigopAdjustedVsize is policy.cpp GetVirtualTransactionSize', () => {
  assert.equal(DEFAULT_BYTES_PER_SIGOP, 20);
  assert.equal(sigopAdjustedVsize(1_000, 0), 250);
  assert.equal(sigopAdjustedVsize(1_001, 0), 251); // rounds up like ceil(weight / 4)
  assert.equal(sigopAdjustedVsize(1_000, 50), 250); // 50 × 20 = 1,000: a tie, weight stands
  assert.equal(sigopAdjustedVsize(1_000, 51), 255); // 1,020 / 4
  assert.equal(sigopAdjustedVsize(1_000, 80), 400); // one bare multisig output outweighs a kilo-weight transaction
  assert.equal(sigopAdjustedVsize(1_000, 81), 405);
  assert.equal(sigopAdjustedVsize(1_000, 81, 21), 426); // ceil(1,701 / 4)
  assert.equal(sigopAdjustedVsize(1_000, 81, 0), 250);
});
