import { isEmailAddress } from '../../http/forms.ts';
import type { SettingType } from './settings.schemas.ts';

/**
 * A setting's value is text whatever its type (migration 001_settings.sql);
 * value_type, min_value and max_value say what text is allowed. The checks
 * here agree with the table's own CHECK constraints and say what is wrong in
 * words; the constraints remain the last line of defence.
 */

export interface SettingKind {
  value_type: SettingType;
  /** False for an optional setting (migration 017): blank is then a value, "not set". */
  required: boolean;
  min_value: number | null;
  max_value: number | null;
}

export const VALUE_REQUIRED = 'Value is required';

/** The same decimal syntax as the settings_value_matches_type constraint: no exponent, no '+', no bare '.5'. */
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

export type CheckedValue = { ok: true; value: string } | { ok: false; message: string };

/** The value to store for `raw`, normalised, or why it is refused. */
export function checkSettingValue(kind: SettingKind, raw: string | number | boolean | null | undefined): CheckedValue {
  const text = raw === null || raw === undefined ? '' : String(raw).trim();
  if (text === '') return kind.required ? { ok: false, message: VALUE_REQUIRED } : { ok: true, value: '' };
  switch (kind.value_type) {
    case 'number': {
      const n = Number(text);
      if (!DECIMAL.test(text) || !Number.isFinite(n)) return { ok: false, message: 'Value must be a number, e.g. 2 or 2.5' };
      const { min_value: min, max_value: max } = kind;
      if ((min !== null && n < min) || (max !== null && n > max)) {
        const range =
          min !== null && max !== null ? `between ${min} and ${max}` : min !== null ? `at least ${min}` : `at most ${max}`;
        return { ok: false, message: `Value must be ${range}` };
      }
      return { ok: true, value: text };
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (lower !== 'true' && lower !== 'false') return { ok: false, message: "Value must be 'true' or 'false'" };
      return { ok: true, value: lower };
    }
    case 'email':
      return isEmailAddress(text) ? { ok: true, value: text } : { ok: false, message: 'Value must be an email address' };
    case 'url': {
      const protocol = URL.canParse(text) ? new URL(text).protocol : '';
      return protocol === 'http:' || protocol === 'https:'
        ? { ok: true, value: text }
        : { ok: false, message: 'Value must be a web address starting with http:// or https://' };
    }
    case 'text':
      return { ok: true, value: text };
  }
}
