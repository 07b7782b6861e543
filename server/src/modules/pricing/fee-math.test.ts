import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearsThreshold, feeRate, functionalClears, functionalRate, thresholdRate } from './fee-math.ts';

test('threshold is the market rate times the multiplier, floored by the setting', () => {
  assert.equal(thresholdRate({ feeRateFloor: 2, multiplier: 2, marketRate: 5, discountPercentage: 0 }), 10);
  assert.equal(thresholdRate({ feeRateFloor: 2, multiplier: 2, marketRate: 0.5, discountPercentage: 0 }), 2);
});

test('a discount lowers the threshold proportionally but never below the floor', () => {
  assert.equal(thresholdRate({ feeRateFloor: 2, multiplier: 2, marketRate: 10, discountPercentage: 25 }), 15);
  assert.equal(thresholdRate({ feeRateFloor: 2, multiplier: 2, marketRate: 10, discountPercentage: 99 }), 2);
});

test('threshold comparison is exact at the boundary', () => {
  // 141 vB at 2 sat/vB needs exactly 282 sats.
  assert.equal(clearsThreshold(282, 141, 2), true);
  assert.equal(clearsThreshold(281, 141, 2), false);
  // 0.1 + 0.2 style float noise must not flip a boundary decision.
  assert.equal(clearsThreshold(3, 10, 0.1 + 0.2), true);
});

test('functional rate is the own rate without ancestors', () => {
  assert.equal(functionalRate({ feeSats: 1000, vsize: 100 }, []), 10);
});

test('a high-fee child lifts a low-fee parent to the package rate', () => {
  // parent 1 sat/vB over 100 vB, child 19 sat/vB over 100 vB: package 10 sat/vB.
  assert.equal(functionalRate({ feeSats: 1900, vsize: 100 }, [{ feeSats: 100, vsize: 100 }]), 10);
});

test('a low-fee child does not ride on a high-fee parent', () => {
  assert.equal(functionalRate({ feeSats: 100, vsize: 100 }, [{ feeSats: 5000, vsize: 100 }]), 1);
});

test('fee rate refuses a non-positive size', () => {
  assert.throws(() => feeRate(1, 0), RangeError);
  assert.equal(feeRate(250, 100), 2.5);
});

test('functional clearance needs both the own and the package rate', () => {
  const parent = { feeSats: 100, vsize: 100 };
  assert.equal(functionalClears({ feeSats: 1900, vsize: 100 }, [parent], 10), true);
  assert.equal(functionalClears({ feeSats: 1899, vsize: 100 }, [parent], 10), false);
  assert.equal(functionalClears({ feeSats: 900, vsize: 100 }, [], 10), false);
});
