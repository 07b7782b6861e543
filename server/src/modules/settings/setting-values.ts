import { checkAddress, isAddressNetwork } from '../../bitcoin/address.ts';
import { isEmailAddress } from '../../http/forms.ts';
import type { SettingType } from './settings.schemas.ts';

/**
 * A setting's value is text whatever its type (migration 001_settings.sql);
 * value_type, min_value and max_value say what text is allowed. The checks
 * here agree with the table's own CHECK constraints and say what is wrong in
 * words; the constraints remain the last line of defence.
 */

export interface SettingKind {
  /** The setting's name: some settings have a rule of their own beyond their type (ITEM_RULES). */
  item?: string;
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

/** What a value is checked against beyond itself: the network of the node the portal runs on. */
export interface SettingContext {
  network: string;
}

/**
 * A coinbase's scriptSig is at most 100 bytes (consensus: Core's
 * CheckTransaction, "bad-cb-length"), and BIP 34 puts the block height first
 * (a push of up to 4 bytes plus its opcode): a longer tag could never appear
 * in a coinbase, and the pool's blocks would never be recognised.
 */
export const MAX_COINBASE_TAG_BYTES = 95;
/** How many refused addresses a message names; the rest are counted. */
const NAMED_ADDRESSES = 3;

type ItemRule = (text: string, context: SettingContext | undefined) => CheckedValue;

/** Settings whose text must also make sense as what it stands for (migration 001's pool identification). */
const ITEM_RULES: Record<string, ItemRule> = {
  pool_coinbase_tag(text) {
    const bytes = Buffer.byteLength(text, 'utf8');
    return bytes <= MAX_COINBASE_TAG_BYTES
      ? { ok: true, value: text }
      : { ok: false, message: `The coinbase tag is ${bytes} bytes; a coinbase has room for ${MAX_COINBASE_TAG_BYTES} at most beside the block height` };
  },
  pool_payout_addresses(text, context) {
    const network = context?.network;
    // Without a known network nothing can be checked; the pool identity ignores what it cannot match (pool-identity.ts).
    if (network === undefined || !isAddressNetwork(network)) return { ok: true, value: text };
    const canonical: string[] = [];
    const refused: string[] = [];
    for (const item of text.split(',').map((a) => a.trim()).filter((a) => a !== '')) {
      const checked = checkAddress(item, network);
      if (!checked.ok) refused.push(`'${item.length > 100 ? `${item.slice(0, 100)}…` : item}' ${checked.reason}`);
      else if (!canonical.includes(checked.address)) canonical.push(checked.address);
    }
    if (refused.length === 0) return { ok: true, value: canonical.join(', ') };
    const more = refused.length > NAMED_ADDRESSES ? ` (and ${refused.length - NAMED_ADDRESSES} more)` : '';
    return { ok: false, message: `Value must be ${network} addresses separated by commas: ${refused.slice(0, NAMED_ADDRESSES).join('; ')}${more}` };
  },
};

/** The value to store for `raw`, normalised, or why it is refused. */
export function checkSettingValue(kind: SettingKind, raw: string | number | boolean | null | undefined, context?: SettingContext): CheckedValue {
  const checked = checkByType(kind, raw);
  const rule = kind.item !== undefined && Object.hasOwn(ITEM_RULES, kind.item) ? ITEM_RULES[kind.item] : undefined;
  if (!checked.ok || checked.value === '' || !rule) return checked;
  return rule(checked.value, context);
}

function checkByType(kind: SettingKind, raw: string | number | boolean | null | undefined): CheckedValue {
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
