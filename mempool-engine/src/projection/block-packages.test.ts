import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { belowMinimumFee, minimumFee } from './block-packages.ts';

test('below the minimum fee, asked without dividing, is fee < minimumFee(), rounding and 1-sat floor included', () => {
  assert.equal(minimumFee(1, 100), 1, 'a tenth of a sat rounds up to 1');
  assert.equal(belowMinimumFee(0, 1, 100), true);
  assert.equal(belowMinimumFee(1, 1, 100), false);
  assert.equal(belowMinimumFee(0, 0, 100), false, 'no minimum without a rate');
  assert.equal(belowMinimumFee(-1, 0, 100), true, 'a negative prioritisation is below any minimum');
  assert.equal(belowMinimumFee(99, 1_000, 100), true);
  assert.equal(belowMinimumFee(100, 1_000, 100), false);
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: -2_000, max: 2_000_000 }), fc.constantFrom(2 ** 53, 2 ** 60, -(2 ** 55))),
      fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(0.5, 1_234.5, 2 ** 40)),
      fc.integer({ min: 0, max: 4_000_000 }),
      (fee, rate, size) => belowMinimumFee(fee, rate, size) === fee < minimumFee(rate, size),
    ),
    { numRuns: 20_000 },
  );
});
