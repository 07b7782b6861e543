import type { Queryable } from '../../db/database.ts';
import { SqlParams, startsWith, whereAll, type Page, type PageWindow } from '../../db/sql.ts';

/** The discount_codes table (migration 002_clients_and_discounts.sql). */

export interface DiscountRecord {
  id: number;
  code: string;
  client_id: number;
  client_name: string;
  description: string | null;
  discount_percentage: number;
  valid_from: Date;
  valid_until: Date;
  status: boolean;
  created_at: Date;
}

/** A discount's own fields, as the form edits them. */
export interface DiscountFields {
  clientId: number;
  description: string | null;
  discountPercentage: number;
  validFrom: Date;
  validUntil: Date;
  status: boolean;
}

export type LockedDiscount = DiscountFields & { code: string; clientName: string };

const SELECT_ROW = `SELECT d.id, d.code, d.client_id, c.name AS client_name, d.description, d.discount_percentage,
       d.valid_from, d.valid_until, d.status, d.created_at
  FROM discount_codes d JOIN clients c ON c.id = d.client_id`;

/** The list's filters, parsed (discounts.service.ts reads them from a query). */
export interface DiscountFilters {
  /** The start of the code, ignoring case. */
  code?: string | undefined;
  /** Bounds on created_at: inclusive, and exclusive. */
  from?: Date | undefined;
  toExclusive?: Date | undefined;
  status?: boolean | undefined;
}

/**
 * One page of codes, newest first (discount_codes_created_at_idx). from_date
 * and to_date bound created_at, the Created At column. The code filter is a
 * case-insensitive prefix: staff paste or start typing a code in any case.
 * No index serves it, and none is needed: codes are issued by hand, so the
 * table stays small next to the submission tables.
 */
export async function listDiscounts(db: Queryable, filters: DiscountFilters, { limit, offset }: PageWindow): Promise<Page<DiscountRecord>> {
  const sql = new SqlParams();
  const { param } = sql;
  const conditions: string[] = [];
  if (filters.code !== undefined) conditions.push(startsWith('code', filters.code, param));
  if (filters.from) conditions.push(`created_at >= ${param(filters.from)}`);
  if (filters.toExclusive) conditions.push(`created_at < ${param(filters.toExclusive)}`);
  if (filters.status === true) conditions.push('status');
  if (filters.status === false) conditions.push('NOT status');
  const where = whereAll(conditions);
  const countParams = [...sql.values];
  const [count, page] = await Promise.all([
    db.query<{ total: number }>(`SELECT count(*) AS total FROM discount_codes ${where}`, countParams),
    db.query<DiscountRecord>(
      `SELECT p.id, p.code, p.client_id, c.name AS client_name, p.description, p.discount_percentage,
              p.valid_from, p.valid_until, p.status, p.created_at
         FROM (SELECT * FROM discount_codes ${where} ORDER BY created_at DESC, id DESC LIMIT ${param(limit)} OFFSET ${param(offset)}) AS p
         JOIN clients c ON c.id = p.client_id
        ORDER BY p.created_at DESC, p.id DESC`,
      sql.values,
    ),
  ]);
  return { records: page.rows, total: count.rows[0]?.total ?? 0 };
}

export async function findDiscount(db: Queryable, id: number): Promise<DiscountRecord | undefined> {
  const { rows } = await db.query<DiscountRecord>(`${SELECT_ROW} WHERE d.id = $1`, [id]);
  return rows[0];
}

/** The discount with its client's name, its row locked until the transaction ends. */
export async function lockDiscount(tx: Queryable, id: number): Promise<LockedDiscount | undefined> {
  const { rows } = await tx.query<DiscountRecord>(`${SELECT_ROW} WHERE d.id = $1 FOR UPDATE OF d`, [id]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    code: r.code,
    clientId: r.client_id,
    clientName: r.client_name,
    description: r.description,
    discountPercentage: r.discount_percentage,
    validFrom: r.valid_from,
    validUntil: r.valid_until,
    status: r.status,
  };
}

/**
 * The client of that exact name, its row key-share locked so that it cannot be
 * deleted before the code issued to it commits.
 */
export async function findClientForCode(tx: Queryable, name: string): Promise<{ id: number; name: string } | undefined> {
  const { rows } = await tx.query<{ id: number; name: string }>('SELECT id, name FROM clients WHERE name = $1 FOR KEY SHARE', [name]);
  return rows[0];
}

/** Inserts the code unless it is taken; the id, or undefined on a collision (which leaves the transaction usable). */
export async function insertDiscount(tx: Queryable, code: string, fields: DiscountFields): Promise<number | undefined> {
  const { rows } = await tx.query<{ id: number }>(
    `INSERT INTO discount_codes (code, client_id, description, discount_percentage, valid_from, valid_until, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (code) DO NOTHING
     RETURNING id`,
    [code, fields.clientId, fields.description, fields.discountPercentage, fields.validFrom, fields.validUntil, fields.status],
  );
  return rows[0]?.id;
}

export async function updateDiscount(tx: Queryable, id: number, fields: DiscountFields): Promise<void> {
  await tx.query(
    `UPDATE discount_codes
        SET client_id = $2, description = $3, discount_percentage = $4, valid_from = $5, valid_until = $6, status = $7, updated_at = now()
      WHERE id = $1`,
    [id, fields.clientId, fields.description, fields.discountPercentage, fields.validFrom, fields.validUntil, fields.status],
  );
}

export async function deleteDiscount(tx: Queryable, id: number): Promise<void> {
  await tx.query('DELETE FROM discount_codes WHERE id = $1', [id]);
}

/** A discount code's row as pricing reads it (discount-lookup.ts). */
export interface DiscountCodeRow {
  id: number;
  code: string;
  discount_percentage: number;
  valid_from: Date;
  valid_until: Date;
  status: boolean;
}

/** The discount code `code`, exactly as written; undefined when there is none. */
export async function discountByCode(db: Queryable, code: string): Promise<DiscountCodeRow | undefined> {
  const { rows } = await db.query<DiscountCodeRow>(
    'SELECT id, code, discount_percentage, valid_from, valid_until, status FROM discount_codes WHERE code = $1',
    [code],
  );
  return rows[0];
}
