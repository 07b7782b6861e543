import type { Queryable } from '../../db/database.ts';

/**
 * Resolves a client code presented with a public submission. Only an active
 * code whose validity window contains "now" gives a discount; any other code
 * gives none, with a notice saying why, and the submission goes on unpriced by it.
 */
export type DiscountLookup =
  | { kind: 'none' }
  | { kind: 'applied'; code: string; discountCodeId: number; discountPercentage: number }
  | { kind: 'refused'; code: string; notice: string };

interface DiscountRow {
  id: number;
  code: string;
  discount_percentage: number;
  valid_from: Date;
  valid_until: Date;
  status: boolean;
}

export async function lookupDiscount(db: Queryable, code: string | undefined, now: Date): Promise<DiscountLookup> {
  if (code === undefined || code.trim() === '') return { kind: 'none' };
  const trimmed = code.trim();
  const { rows } = await db.query<DiscountRow>(
    'SELECT id, code, discount_percentage, valid_from, valid_until, status FROM discount_codes WHERE code = $1',
    [trimmed],
  );
  const row = rows[0];
  const refuse = (why: string): DiscountLookup => ({ kind: 'refused', code: trimmed, notice: `Client code ${trimmed} ${why}; no discount was applied.` });
  if (!row) return refuse('is not recognised');
  if (!row.status) return refuse('is inactive');
  if (now < row.valid_from) return refuse('is not valid yet');
  if (now > row.valid_until) return refuse('has expired');
  return { kind: 'applied', code: row.code, discountCodeId: row.id, discountPercentage: row.discount_percentage };
}
