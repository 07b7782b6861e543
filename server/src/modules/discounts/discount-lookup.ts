import type { Queryable } from '../../db/database.ts';
import { discountByCode } from './discounts.repository.ts';

/**
 * Resolves a client code presented with a public submission. Only an active
 * code whose validity window contains "now" gives a discount; any other code
 * gives none, with a notice saying why, and the submission goes on unpriced by it.
 */
export type DiscountLookup =
  | { kind: 'none' }
  | { kind: 'applied'; code: string; discountCodeId: number; discountPercentage: number }
  | { kind: 'refused'; code: string; notice: string };

/**
 * A client code as the caller gave it, without surrounding whitespace (a
 * code pasted with a space or a line break around it is the code itself);
 * undefined for none, or whitespace alone. Every path that takes a code from
 * a caller goes through this, so it is looked up, priced and recorded as one.
 */
export function normaliseClientCode(code: string | null | undefined): string | undefined {
  const trimmed = code?.trim();
  return trimmed ? trimmed : undefined;
}

export async function lookupDiscount(db: Queryable, code: string | undefined, now: Date): Promise<DiscountLookup> {
  const trimmed = normaliseClientCode(code);
  if (trimmed === undefined) return { kind: 'none' };
  const row = await discountByCode(db, trimmed);
  const refuse = (why: string): DiscountLookup => ({ kind: 'refused', code: trimmed, notice: `Client code ${trimmed} ${why}; no discount was applied.` });
  if (!row) return refuse('is not recognised');
  if (!row.status) return refuse('is inactive');
  if (now < row.valid_from) return refuse('is not valid yet');
  if (now > row.valid_until) return refuse('has expired');
  return { kind: 'applied', code: row.code, discountCodeId: row.id, discountPercentage: row.discount_percentage };
}
