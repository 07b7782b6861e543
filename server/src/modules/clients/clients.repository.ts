import type { Queryable } from '../../db/database.ts';
import { SqlParams, startsWith, whereAll, type Page, type PageWindow } from '../../db/sql.ts';
import type { ClientRow } from './clients.schemas.ts';

/** The clients table (migration 002_clients_and_discounts.sql). */

/** A client's own fields: what the form edits and the client log records. */
export interface ClientFields {
  name: string;
  email: string | null;
  phone_number: string | null;
  alternate_phone: string | null;
  address: string | null;
  organization_name: string | null;
  organization_email: string | null;
  description: string | null;
}

export const CLIENT_FIELDS = ['name', 'email', 'phone_number', 'alternate_phone', 'address', 'organization_name', 'organization_email', 'description'] as const;

/**
 * The deletion rule (docs/behaviour.md#client-management): a client stays while any discount
 * code is issued to it. discount_codes.client_id is the only reference to a
 * client in the schema; submissions (tx_submissions, package_submissions,
 * failed_txs) name a client only through one of its codes, by
 * discount_code_id or client_code, so any submission of the client implies a
 * code of the client that already blocks the delete. Deleting the code (which
 * sets the submissions' discount_code_id to null and leaves their client_code
 * text) severs that link, and the client becomes deletable.
 * Served by discount_codes_client_id_idx.
 */
const IS_DELETABLE = 'NOT EXISTS (SELECT 1 FROM discount_codes d WHERE d.client_id = c.id)';

const ROW_COLUMNS = `c.id, ${CLIENT_FIELDS.map((f) => `c.${f}`).join(', ')}, ${IS_DELETABLE} AS is_deletable`;

/** The list's filters: the start of each field, ignoring case; text already trimmed, blank meaning none (clients.service.ts reads them from a query). */
export interface ClientFilters {
  name?: string | undefined;
  email?: string | undefined;
  organizationName?: string | undefined;
}

/**
 * The WHERE clause of the list's filters: lower(col) LIKE lower('text%'),
 * served by the lower(...) text_pattern_ops indexes of migration 002 whatever
 * the database collation, with % _ and \ in the text matching themselves.
 */
export function clientFilters(filters: ClientFilters, sql = new SqlParams()): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  if (filters.name !== undefined) conditions.push(startsWith('c.name', filters.name, sql.param));
  if (filters.email !== undefined) conditions.push(startsWith('c.email', filters.email, sql.param));
  if (filters.organizationName !== undefined) conditions.push(startsWith('c.organization_name', filters.organizationName, sql.param));
  return { where: whereAll(conditions), params: sql.values };
}

export async function listClients(db: Queryable, filters: ClientFilters, { limit, offset }: PageWindow): Promise<Page<ClientRow>> {
  const sql = new SqlParams();
  const { where } = clientFilters(filters, sql);
  const countParams = [...sql.values];
  const [count, page] = await Promise.all([
    db.query<{ total: number }>(`SELECT count(*) AS total FROM clients c ${where}`, countParams),
    // Newest first, in the order of clients_created_at_idx.
    db.query<ClientRow>(`SELECT ${ROW_COLUMNS} FROM clients c ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT ${sql.param(limit)} OFFSET ${sql.param(offset)}`, sql.values),
  ]);
  return { records: page.rows, total: count.rows[0]?.total ?? 0 };
}

/** Every name, sorted ignoring case; byte order after that, so both engines agree whatever their collation. */
export async function clientNames(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM clients ORDER BY lower(name) COLLATE "C", name COLLATE "C"');
  return rows.map((r) => r.name);
}

export async function findClientRow(db: Queryable, id: number): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>(`SELECT ${ROW_COLUMNS} FROM clients c WHERE c.id = $1`, [id]);
  return rows[0];
}

/** The client's fields, its row locked until the transaction ends. */
export async function lockClient(tx: Queryable, id: number): Promise<ClientFields | undefined> {
  const { rows } = await tx.query<ClientFields>(`SELECT ${CLIENT_FIELDS.join(', ')} FROM clients WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0];
}

export async function insertClient(tx: Queryable, fields: ClientFields): Promise<number> {
  const { rows } = await tx.query<{ id: number }>(
    `INSERT INTO clients (${CLIENT_FIELDS.join(', ')}) VALUES (${CLIENT_FIELDS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
    CLIENT_FIELDS.map((f) => fields[f]),
  );
  return rows[0]!.id;
}

export async function updateClient(tx: Queryable, id: number, fields: ClientFields): Promise<void> {
  await tx.query(
    `UPDATE clients SET ${CLIENT_FIELDS.map((f, i) => `${f} = $${i + 2}`).join(', ')}, updated_at = now() WHERE id = $1`,
    [id, ...CLIENT_FIELDS.map((f) => fields[f])],
  );
}

export async function countDiscountCodes(tx: Queryable, clientId: number): Promise<number> {
  const { rows } = await tx.query<{ n: number }>('SELECT count(*) AS n FROM discount_codes WHERE client_id = $1', [clientId]);
  return rows[0]?.n ?? 0;
}

export async function deleteClient(tx: Queryable, id: number): Promise<void> {
  await tx.query('DELETE FROM clients WHERE id = $1', [id]);
}
