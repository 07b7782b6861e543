import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as v from 'valibot';
import { clientSchema, discountSchema, optionalSettingSchema, settingSchema } from '../src/dashboard/sections/form-schemas.ts';

/**
 * The dashboard forms' schemas (docs/behaviour.md#validation-rules): each field's first
 * message, exactly as the docs word it, and the body a valid form sends
 * (docs/behaviour.md#staff-calls).
 */

/** Each field's first message, as the form shows it; or the schema's output. */
function check(schema: v.GenericSchema, input: unknown): unknown {
  const result = v.safeParse(schema, input);
  if (result.success) return { output: result.output };
  const messages: Record<string, string> = {};
  for (const issue of result.issues) messages[v.getDotPath(issue) ?? ''] ??= issue.message;
  return messages;
}

const day = (date: string, time = '') => ({ date, time });
const discount = (fields: Record<string, unknown>) => ({
  client_name: 'Acme',
  description: '',
  discount_percentage: '50',
  valid_from: day('2025-06-01'),
  valid_until: day('2025-06-30'),
  status: 'true',
  ...fields,
});

describe('the discount form', () => {
  const schema = discountSchema('2025-06-01');
  test('every required field says Required', () => {
    assert.deepEqual(check(schema, discount({ client_name: ' ', discount_percentage: '', valid_from: day(''), valid_until: day('') })), {
      client_name: 'Required',
      discount_percentage: 'Required',
      valid_from: 'Required',
      valid_until: 'Required',
    });
  });
  test('the percentage is digits, 0-99', () => {
    for (const text of ['100', '150', '1.5', '-1']) assert.deepEqual(check(schema, discount({ discount_percentage: text })), { discount_percentage: 'Must be between 0 and 99.' });
    assert.deepEqual(check(schema, discount({ discount_percentage: ' 0 ' })), check(schema, discount({ discount_percentage: '0' })));
  });
  test('from after until is an invalid range, on the until field, while another field is still wrong', () => {
    assert.deepEqual(check(schema, discount({ client_name: '', valid_from: day('2025-06-03'), valid_until: day('2025-06-02') })), {
      client_name: 'Required',
      valid_until: 'Invalid date range.',
    });
    assert.deepEqual(check(schema, discount({ valid_from: day('2025-06-02', '12:00'), valid_until: day('2025-06-02', '11:30') })), { valid_until: 'Invalid date range.' });
  });
  test('dates outside the pickers are not valid; the from-date no earlier than allowed', () => {
    assert.deepEqual(check(schema, discount({ valid_from: day('2025-05-31'), valid_until: day('2025-02-30') })), {
      valid_from: 'Date input not valid.',
      valid_until: 'Date input not valid.',
    });
  });
  test('a valid form sends the body of the staff calls', () => {
    assert.deepEqual(check(schema, discount({ description: 'half price', status: '' })), {
      output: {
        client_name: 'Acme',
        description: 'half price',
        discount_percentage: 50,
        valid_from: '2025-06-01 00:00:00',
        valid_until: '2025-06-30 23: 59: 59',
        status: null,
      },
    });
    const timed = check(schema, discount({ valid_from: day('2025-06-01', '10:30'), valid_until: day('2025-06-30', '18:30'), status: 'false' })) as { output: Record<string, unknown> };
    assert.equal(timed.output.valid_from, '2025-06-01 10:30:00');
    assert.equal(timed.output.valid_until, '2025-06-30 18:30:00');
    assert.equal(timed.output.status, false);
  });
});

describe('the client form', () => {
  const blank = { name: '', email: '', phone_number: '', alternate_phone: '', address: '', organization_name: '', organization_email: '', description: '' };
  test('the name is required; addresses and phone numbers are checked when given', () => {
    assert.deepEqual(check(clientSchema, { ...blank, email: 'not-an-address', phone_number: '555-1234', alternate_phone: 'call me', organization_email: 'billing@' }), {
      name: 'Name is required',
      email: 'Email is invalid',
      phone_number: 'Phone number is invalid',
      alternate_phone: 'Alternate phone number is invalid',
      organization_email: 'Organization email is invalid',
    });
  });
  test('every field is sent, trimmed', () => {
    assert.deepEqual(check(clientSchema, { ...blank, name: ' Acme ', email: 'ops@acme.example ', phone_number: '15551234567' }), {
      output: { ...blank, name: 'Acme', email: 'ops@acme.example', phone_number: '15551234567' },
    });
  });
});

describe('the setting form', () => {
  test('the value is required and not blank', () => {
    assert.deepEqual(check(settingSchema, { value: '  ', description: '' }), { value: 'Value is required' });
    assert.deepEqual(check(settingSchema, { value: ' 2 ', description: 'Floor ' }), { output: { value: '2', description: 'Floor ' } });
  });
  test('an optional setting (the pool identification) may be blank: it is sent empty', () => {
    assert.deepEqual(check(optionalSettingSchema, { value: '  ', description: '' }), { output: { value: '', description: '' } });
    assert.deepEqual(check(optionalSettingSchema, { value: ' /Pool/ ', description: '' }), { output: { value: '/Pool/', description: '' } });
  });
});
