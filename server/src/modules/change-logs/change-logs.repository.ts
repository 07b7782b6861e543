import type { Queryable } from '../../db/database.ts';
import { escapeLike, SqlParams, startsWith, whereAll, type Page, type PageWindow } from '../../db/sql.ts';
import type { ChangeAction } from './change-logs.schemas.ts';

/**
 * The change logs of settings, discount codes and clients (migration
 * 006_change_logs.sql). The writers take the transaction of the change itself,
 * so a change and its log entry commit or roll back together.
 */

export type LoggedValues = Record<string, string | number | boolean | null>;

/**
 * Who made a change: the username the token names them by, and their email
 * when the token has one (an identity provider's; a local account has none).
 * The Logs tabs show and match the email, the username beside it.
 */
export interface ChangeActor {
  username: string;
  email?: string | undefined;
}

/** A service's caller as given: the actor, or (older callers, tests) a bare username. */
export const actorOf = (who: string | ChangeActor): ChangeActor => (typeof who === 'string' ? { username: who } : who);

const json = (values: LoggedValues | null): string | null => (values === null ? null : JSON.stringify(values));

async function insertOne(tx: Queryable, sql: string, params: unknown[]): Promise<void> {
  const { rowCount } = await tx.query(sql, params);
  // A trigger or rule that swallows the row would leave a change without its log.
  if (rowCount !== 1) throw new Error('The change log entry was not written');
}

export async function logSettingChange(
  tx: Queryable,
  entry: { settingId: number; item: string; username: string; email?: string | undefined; previousValue: string; updatedValue: string },
): Promise<void> {
  await insertOne(
    tx,
    'INSERT INTO setting_logs (setting_id, item, username, email, previous_value, updated_value) VALUES ($1, $2, $3, $4, $5, $6)',
    [entry.settingId, entry.item, entry.username, entry.email ?? null, entry.previousValue, entry.updatedValue],
  );
}

export async function logDiscountChange(
  tx: Queryable,
  entry: { username: string; email?: string | undefined; action: ChangeAction; clientCode: string; previous: LoggedValues | null; updated: LoggedValues | null },
): Promise<void> {
  await insertOne(
    tx,
    'INSERT INTO discount_logs (username, email, action, client_code, previous_values, updated_values) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)',
    [entry.username, entry.email ?? null, entry.action, entry.clientCode, json(entry.previous), json(entry.updated)],
  );
}

export async function logClientChange(
  tx: Queryable,
  entry: { username: string; email?: string | undefined; action: ChangeAction; clientName: string; previous: LoggedValues | null; updated: LoggedValues | null },
): Promise<void> {
  await insertOne(
    tx,
    'INSERT INTO client_logs (username, email, client_name, action, previous_values, updated_values) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)',
    [entry.username, entry.email ?? null, entry.clientName, entry.action, json(entry.previous), json(entry.updated)],
  );
}

// ---------------------------------------------------------------------------
// Lists. Each is ordered by its table's time index (newest first, id breaking
// ties so pages neither repeat nor skip rows), and each filter maps onto an
// index of 006_change_logs.sql.

/** Filters every change log has; text already trimmed, blank meaning none (change-logs.service.ts reads them from a query). */
interface StaffFilter {
  /** The Email filter: the start of the staff member's email or, for rows without one, their username. */
  staff?: string | undefined;
}

export interface SettingLogFilters extends StaffFilter {
  /** The setting's item, exactly (setting_logs_item_idx). */
  item?: string | undefined;
}

export interface DiscountLogFilters extends StaffFilter {
  /** Exactly, as in the audit list (discount_logs_client_code_idx). */
  clientCode?: string | undefined;
  action?: ChangeAction | undefined;
}

export interface ClientLogFilters extends StaffFilter {
  /** The start of the client's name. */
  clientName?: string | undefined;
  action?: ChangeAction | undefined;
}

export interface SettingLogRecord {
  id: number;
  item: string;
  username: string;
  email: string | null;
  previous_value: string | null;
  updated_value: string | null;
  updated_time: Date;
}

export interface DiscountLogRecord {
  id: number;
  username: string;
  email: string | null;
  action: ChangeAction;
  client_code: string | null;
  previous_values: string | null;
  updated_values: string | null;
  action_time: Date;
}

export interface ClientLogRecord {
  id: number;
  username: string;
  email: string | null;
  client_name: string | null;
  action: ChangeAction;
  previous_values: string | null;
  updated_values: string | null;
  timestamp: Date;
}

/**
 * The conditions every change log shares. The Email filter matches the
 * staff member's email or, for rows without one (local accounts, rows from
 * before emails were kept), their username; "starts with", ignoring case,
 * on the lower(email) and lower(username) indexes.
 */
function staffConditions(filters: StaffFilter & { action?: ChangeAction | undefined }, param: SqlParams['param']): string[] {
  const conditions: string[] = [];
  if (filters.staff !== undefined) {
    const pattern = param(`${escapeLike(filters.staff)}%`);
    conditions.push(`(lower(email) LIKE lower(${pattern}) OR lower(username) LIKE lower(${pattern}))`);
  }
  if (filters.action !== undefined) conditions.push(`action = ${param(filters.action)}`);
  return conditions;
}

async function page<R>(db: Queryable, table: string, columns: string, orderBy: string, sql: SqlParams, conditions: string[], { limit, offset }: PageWindow): Promise<Page<R>> {
  const where = whereAll(conditions);
  const countParams = [...sql.values];
  const [count, rows] = await Promise.all([
    db.query<{ total: number }>(`SELECT count(*) AS total FROM ${table} ${where}`, countParams),
    db.query<R>(`SELECT ${columns} FROM ${table} ${where} ORDER BY ${orderBy} LIMIT ${sql.param(limit)} OFFSET ${sql.param(offset)}`, sql.values),
  ]);
  return { records: rows.rows, total: count.rows[0]?.total ?? 0 };
}

export function listSettingLogs(db: Queryable, filters: SettingLogFilters, window: PageWindow): Promise<Page<SettingLogRecord>> {
  const sql = new SqlParams();
  const conditions = [...(filters.item !== undefined ? [`item = ${sql.param(filters.item)}`] : []), ...staffConditions(filters, sql.param)];
  return page(db, 'setting_logs', 'id, item, username, email, previous_value, updated_value, updated_time', 'updated_time DESC, id DESC', sql, conditions, window);
}

export function listDiscountLogs(db: Queryable, filters: DiscountLogFilters, window: PageWindow): Promise<Page<DiscountLogRecord>> {
  const sql = new SqlParams();
  const conditions = [...(filters.clientCode !== undefined ? [`client_code = ${sql.param(filters.clientCode)}`] : []), ...staffConditions(filters, sql.param)];
  return page(
    db,
    'discount_logs',
    'id, username, email, action, client_code, previous_values::text AS previous_values, updated_values::text AS updated_values, action_time',
    'action_time DESC, id DESC',
    sql,
    conditions,
    window,
  );
}

export function listClientLogs(db: Queryable, filters: ClientLogFilters, window: PageWindow): Promise<Page<ClientLogRecord>> {
  const sql = new SqlParams();
  const conditions = staffConditions(filters, sql.param);
  // "Starts with", served by the lower(client_name) text_pattern_ops index.
  if (filters.clientName !== undefined) conditions.push(startsWith('client_name', filters.clientName, sql.param));
  return page(
    db,
    'client_logs',
    'id, username, email, client_name, action, previous_values::text AS previous_values, updated_values::text AS updated_values, timestamp',
    'timestamp DESC, id DESC',
    sql,
    conditions,
    window,
  );
}
