import { test } from 'node:test';
import assert from 'node:assert/strict';
import { btcPerKvbToSatPerVb, btcToSats, MAX_MONEY_SATS, satsToBtc } from './amounts.ts';

test('btcToSats rounds float noise away', () => {
  assert.equal(btcToSats(0.1), 10_000_000);
  assert.equal(btcToSats(0.00000001), 1);
  assert.equal(btcToSats(0.29), 29_000_000); // 0.29 * 1e8 = 28999999.999999996
  assert.equal(btcToSats(1.1 + 2.2), 330_000_000);
  assert.equal(btcToSats(21_000_000), MAX_MONEY_SATS);
  assert.equal(btcToSats(-0.5), -50_000_000);
  assert.ok(Object.is(btcToSats(-0.000000001), 0));
});

test('btcToSats refuses non-amounts', () => {
  assert.throws(() => btcToSats(Number.NaN), RangeError);
  assert.throws(() => btcToSats(Number.POSITIVE_INFINITY), RangeError);
  assert.throws(() => btcToSats(21_000_001), RangeError);
});

test('satsToBtc gives an exact 8-decimal string', () => {
  assert.equal(satsToBtc(0), '0.00000000');
  assert.equal(satsToBtc(1), '0.00000001');
  assert.equal(satsToBtc(12_345), '0.00012345');
  assert.equal(satsToBtc(100_000_000), '1.00000000');
  assert.equal(satsToBtc(2_099_999_997_690_000n), '20999999.97690000');
  assert.equal(satsToBtc(-150_000_000), '-1.50000000');
});

test('satsToBtc refuses fractions and out-of-range amounts', () => {
  assert.throws(() => satsToBtc(0.5), RangeError);
  assert.throws(() => satsToBtc(MAX_MONEY_SATS + 1), RangeError);
});

test('the two conversions round-trip', () => {
  for (const sats of [0, 1, 546, 99_999_999, 100_000_001, 123_456_789_012, MAX_MONEY_SATS]) {
    assert.equal(btcToSats(Number(satsToBtc(sats))), sats);
  }
});

test('converts BTC/kvB to sat/vB without float noise', () => {
  assert.equal(btcPerKvbToSatPerVb(0.00001), 1);
  assert.equal(btcPerKvbToSatPerVb(0.00000100), 0.1);
  assert.equal(btcPerKvbToSatPerVb(0.00012345), 12.345);
});
