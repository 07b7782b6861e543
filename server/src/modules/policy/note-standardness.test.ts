import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packageVerdict, reasonCode } from './note-standardness.ts';

const standard = { verdict: 'standard' as const };
const unknown = { verdict: 'unknown' as const };
const dust = { verdict: 'non-standard' as const, reason: 'dust', explanation: 'An output is too small.' };
const version = { verdict: 'non-standard' as const, reason: 'version' };

test("a package's verdict: the first non-standard member's, else unknown when any is, else standard", () => {
  assert.deepEqual(packageVerdict([standard, standard]), standard);
  assert.deepEqual(packageVerdict([standard, unknown]), unknown);
  assert.deepEqual(packageVerdict([unknown, dust, version]), dust);
  assert.deepEqual(packageVerdict([version, dust]), version);
  assert.deepEqual(packageVerdict([]), unknown, 'no member judged: nothing known');
});

test("a reason's code: the table's, or the node's words before their details", () => {
  assert.equal(reasonCode('dust'), 'dust');
  assert.equal(reasonCode('min relay fee not met, 100 < 141'), 'min relay fee not met');
  assert.equal(reasonCode('something new (detail)'), 'something new');
});
