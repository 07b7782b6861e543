import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ASSUMED_CHILD_VSIZE, childVsizeFor } from './bump-advice.ts';

test("a child's size by the script of the output it spends: one input of that kind, one P2WPKH output", () => {
  assert.equal(childVsizeFor('witness_v0_keyhash'), 110); // 10.5 + 68 + 31 = 109.5
  assert.equal(childVsizeFor('witness_v1_taproot'), 99); // 10.5 + 57.5 + 31
  assert.equal(childVsizeFor('pubkeyhash'), 190); // 10.5 + 148 + 31 = 189.5
  assert.equal(childVsizeFor('scripthash'), 133); // 10.5 + 91 + 31 = 132.5
  assert.equal(childVsizeFor('witness_v0_scripthash'), ASSUMED_CHILD_VSIZE, 'unknown spend: the P2WPKH-sized assumption');
  assert.equal(childVsizeFor('nonstandard'), ASSUMED_CHILD_VSIZE);
});
