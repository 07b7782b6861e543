import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CODE_ALPHABET, CODE_LENGTH, CODE_PATTERN, generateClientCode } from './discount-codes.ts';

test('codes are 10 symbols of the unambiguous alphabet', () => {
  assert.equal(CODE_ALPHABET.length, 31);
  assert.equal(new Set(CODE_ALPHABET).size, 31);
  for (const c of '01OIL') assert.ok(!CODE_ALPHABET.includes(c), c);
  for (let i = 0; i < 1000; i++) assert.match(generateClientCode(), CODE_PATTERN);
  assert.equal(generateClientCode().length, CODE_LENGTH);
});

test('codes do not repeat and use every symbol about equally at every position', () => {
  const n = 20_000;
  const codes = Array.from({ length: n }, generateClientCode);
  assert.equal(new Set(codes).size, n);
  // Each symbol is expected n/31 ≈ 645 times at each position; a chi-square
  // over the 31 symbols (30 degrees of freedom) stays under 90 except with
  // probability about 7e-8 per position, while a biased or constant generator fails it.
  for (let position = 0; position < CODE_LENGTH; position++) {
    const counts = new Map<string, number>();
    for (const code of codes) counts.set(code[position]!, (counts.get(code[position]!) ?? 0) + 1);
    const expected = n / CODE_ALPHABET.length;
    const chiSquare = [...CODE_ALPHABET].reduce((sum, c) => sum + ((counts.get(c) ?? 0) - expected) ** 2 / expected, 0);
    assert.ok(chiSquare < 90, `position ${position}: chi-square ${chiSquare.toFixed(1)}`);
  }
});
