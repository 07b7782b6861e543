import * as v from 'valibot';
import type { paths } from '../../api/schema.d.ts';
import { DATE_INPUT_NOT_VALID, isValidDate, type DateTimeValue } from '../../components/data-table/date-range.ts';

/**
 * The dashboard forms' rules (docs/behaviour.md#validation-rules) as schemas, with the
 * documented messages; the server checks the same and answers with the same messages.
 * Each schema's output is the body its call sends.
 */

export const REQUIRED = 'Required';
export const PERCENTAGE_RANGE = 'Must be between 0 and 99.';
export const INVALID_DATE_RANGE = 'Invalid date range.';
export const VALUE_REQUIRED = 'Value is required';

type DiscountBody = paths['/rest-api/client-code/add']['post']['requestBody']['content']['application/json'];
type ClientBody = paths['/rest-api/client/add']['post']['requestBody']['content']['application/json'];

const trimmed = v.pipe(v.string(), v.trim());
const required = (message: string) => v.pipe(v.string(), v.trim(), v.nonEmpty(message));

// Discount Management.

/** The discount dates are UTC text; a date alone means the whole day (docs/behaviour.md#dates-in-calls). */
export const DAY_START = '00:00:00';
export const DAY_END = '23:59:59';

/** What the server gets: 'date HH:mm:ss'; no time is the whole day. */
export function joinDateTime(value: DateTimeValue, wholeDay: string): string {
  const time = value.time === '' ? wholeDay : value.time.length === 5 ? `${value.time}:00` : value.time;
  return `${value.date} ${time}`;
}

/** docs/behaviour.md#dates-in-calls: a date-only end is sent as 'date 23: 59: 59' (the server reads it as 23:59:59). */
const untilText = (value: DateTimeValue) => (value.time === '' ? `${value.date} 23: 59: 59` : joinDateTime(value, DAY_END));

/** A picked date (and time), required; the date no earlier than `earliest`. */
const dateTime = (earliest = '') =>
  v.pipe(
    v.object({ date: v.string(), time: v.string() }),
    v.check(({ date }) => date !== '', REQUIRED),
    v.check(({ date }) => date === '' || (isValidDate(date) && date >= earliest), DATE_INPUT_NOT_VALID),
  );

/** The discount form; the from-date may not be before `earliestFrom`. */
export const discountSchema = (earliestFrom: string) =>
  v.pipe(
    v.object({
      client_name: required(REQUIRED),
      description: v.string(),
      // Digits only, 0-99.
      discount_percentage: v.pipe(required(REQUIRED), v.digits(PERCENTAGE_RANGE), v.toNumber(), v.maxValue(99, PERCENTAGE_RANGE)),
      valid_from: dateTime(earliestFrom),
      valid_until: dateTime(),
      // The select's empty placeholder lets a new code start active.
      status: v.picklist(['', 'true', 'false']),
    }),
    v.forward(
      v.partialCheck(
        [['valid_from'], ['valid_until']],
        (input) => joinDateTime(input.valid_from, DAY_START) <= joinDateTime(input.valid_until, DAY_END),
        INVALID_DATE_RANGE,
      ),
      ['valid_until'],
    ),
    v.transform(
      (input): DiscountBody => ({
        ...input,
        valid_from: joinDateTime(input.valid_from, DAY_START),
        valid_until: untilText(input.valid_until),
        status: input.status === '' ? null : input.status === 'true',
      }),
    ),
  );

// Client Management.

/** "Looks like an address" as the server checks it: one @, no blanks, a dot inside the domain. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/** Digits only; the server allows at most 20. */
const PHONE = /^[0-9]{1,20}$/;

/** Blank, or text that matches. */
const blankOr = (pattern: RegExp, message: string) => v.pipe(trimmed, v.check((text) => text === '' || pattern.test(text), message));

/** The client form; an update replaces every field, so it always sends them all, trimmed. */
export const clientSchema = v.pipe(
  v.object({
    name: required('Name is required'),
    email: blankOr(EMAIL, 'Email is invalid'),
    phone_number: blankOr(PHONE, 'Phone number is invalid'),
    alternate_phone: blankOr(PHONE, 'Alternate phone number is invalid'),
    address: trimmed,
    organization_name: trimmed,
    organization_email: blankOr(EMAIL, 'Organization email is invalid'),
    description: trimmed,
  }),
  v.transform((input): ClientBody => input),
);

// Settings.

/** The one rule the setting form checks itself; the server checks the value's type and bounds. */
export const settingSchema = v.object({ value: required(VALUE_REQUIRED), description: v.string() });

/** An optional setting (the pool identification): blank is a value, meaning "not set". */
export const optionalSettingSchema = v.object({ value: trimmed, description: v.string() });
