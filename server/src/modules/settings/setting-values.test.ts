import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSettingValue, VALUE_REQUIRED, type SettingKind } from './setting-values.ts';

const kind = (value_type: SettingKind['value_type'], min_value: number | null = null, max_value: number | null = null): SettingKind => ({ value_type, min_value, max_value, required: true });
const refused = (k: SettingKind, raw: Parameters<typeof checkSettingValue>[1]) => {
  const checked = checkSettingValue(k, raw);
  return checked.ok ? undefined : checked.message;
};

test('an optional setting accepts blank, stored as empty text, and still checks a value that is not blank', () => {
  for (const type of ['text', 'email', 'url'] as const) {
    for (const raw of ['', '   ', null, undefined]) assert.deepEqual(checkSettingValue({ ...kind(type), required: false }, raw), { ok: true, value: '' }, `${type} ${String(raw)}`);
  }
  assert.deepEqual(checkSettingValue({ ...kind('text'), required: false }, ' /Pool/ '), { ok: true, value: '/Pool/' });
  assert.equal(refused({ ...kind('email'), required: false }, 'nope'), 'Value must be an email address');
});

test('a blank value is refused for every type of required setting', () => {
  for (const type of ['number', 'boolean', 'text', 'email', 'url'] as const) {
    for (const raw of ['', '   ', null, undefined]) assert.equal(refused(kind(type), raw), VALUE_REQUIRED, `${type} ${String(raw)}`);
  }
});

test('numbers: decimal text within the bounds, trimmed', () => {
  assert.deepEqual(checkSettingValue(kind('number', 0), ' 2.5 '), { ok: true, value: '2.5' });
  assert.deepEqual(checkSettingValue(kind('number', 1, 100), 100), { ok: true, value: '100' });
  assert.deepEqual(checkSettingValue(kind('number'), '-3'), { ok: true, value: '-3' });
  for (const raw of ['abc', '1e3', '+1', '.5', '1.', '0x10', 'Infinity', '1,5', true, `1${'0'.repeat(400)}`]) {
    assert.equal(refused(kind('number'), raw), 'Value must be a number, e.g. 2 or 2.5', String(raw));
  }
  assert.equal(refused(kind('number', 0), '-0.01'), 'Value must be at least 0');
  assert.equal(refused(kind('number', null, 10), '10.5'), 'Value must be at most 10');
  assert.equal(refused(kind('number', 1, 100), '0.99'), 'Value must be between 1 and 100');
  assert.equal(refused(kind('number', 1, 100), '101'), 'Value must be between 1 and 100');
});

test('booleans: true or false in any case, stored in lower case', () => {
  assert.deepEqual(checkSettingValue(kind('boolean'), 'TRUE'), { ok: true, value: 'true' });
  assert.deepEqual(checkSettingValue(kind('boolean'), false), { ok: true, value: 'false' });
  for (const raw of ['yes', '1', 0]) assert.equal(refused(kind('boolean'), raw), "Value must be 'true' or 'false'", String(raw));
});

test('email and URL settings must look like one', () => {
  assert.deepEqual(checkSettingValue(kind('email'), ' blocks@pool.example '), { ok: true, value: 'blocks@pool.example' });
  for (const raw of ['blocks', 'a@b', 'a b@c.d', 'a@@b.c']) assert.equal(refused(kind('email'), raw), 'Value must be an email address', raw);
  assert.deepEqual(checkSettingValue(kind('url'), 'https://pool.example/about'), { ok: true, value: 'https://pool.example/about' });
  for (const raw of ['pool.example', 'javascript:alert(1)', 'ftp://pool.example', 'http//x']) {
    assert.equal(refused(kind('url'), raw), 'Value must be a web address starting with http:// or https://', raw);
  }
});

test('text: anything not blank, trimmed', () => {
  assert.deepEqual(checkSettingValue(kind('text'), '  /Slipstream/  '), { ok: true, value: '/Slipstream/' });
});
