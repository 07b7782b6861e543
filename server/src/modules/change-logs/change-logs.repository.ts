import type { Queryable } from '../../db/database.ts';
import { escapeLike, filterText, pageWindow, totalPages } from '../../http/list-query.ts';
import type {
  ChangeAction,
  ClientLogListQuery,
  ClientLogListResponse,
  DiscountLogListQuery,
  DiscountLogListResponse,
  SettingLogListQuery,
  SettingLogListResponse,
} from './change-logs.schemas.ts';

/**
 * The change logs of settings, discount codes and clients (migration
 * 006_change_logs.sql). The writers take the transaction of the change itself,
 * so a change and its log entry commit or roll back together.
 */

export type LoggedValues = Record<string, string | number | boolean | null>;

const json = (values: LoggedValues | null): string | null => (values === null ? null : JSON.stringify(values));

async function insertOne(tx: Queryable, sql: string, params: unknown[]): Promise<void> {
  const { rowCount } = await tx.query(sql, params);
  // A trigger or rule that swallows the row would leave a change without its log.
  if (rowCount !== 1) throw new Error('The change log entry was not written');
}

export async function logSettingChange(
  tx: Queryable,
  entry: { settingId: number; item: string; username: string; previousValue: string; updatedValue: string },
): Promise<void> {
  await insertOne(
    tx,
    'INSERT INTO setting_logs (setting_id, item, username, previous_value, updated_value) VALUES ($1, $2, $3, $4, $5)',
    [entry.settingId, entry.item, entry.username, entry.previousValue, entry.updatedValue],
  );
}

export async function logDiscountChange(
  tx: Queryable,
  entry: { username: string; action: ChangeAction; clientCode: string; previous: LoggedValues | null; updated: LoggedValues | null },
): Promise<void> {
  await insertOne(
    tx,
    'INSERT INTO discount_logs (username, action, client_code, previous_values, updated_values) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)',
    [entry.username, entry.action, entry.clientCode, json(entry.previous), json(entry.updated)],
  );
}

export async function logClientChange(
  tx: Queryable,
  entry: { username: string; action: ChangeAction; clientName: string; previous: LoggedValues | null; updated: LoggedValues | null },
): Promise<void> {
  await insertOne(
    tx,
    'INSERT INTO client_logs (username, client_name, action, previous_values, updated_values) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)',
    [entry.username, entry.clientName, entry.action, json(entry.previous), json(entry.updated)],
  );
}

// ---------------------------------------------------------------------------
// Lists. Each is ordered by its table's time index (newest first, id breaking
// ties so pages neither repeat nor skip rows), and each filter maps onto an
// index of 006_change_logs.sql.

class Filters {
  readonly params: unknown[] = [];
  readonly #conditions: string[] = [];

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(condition: string): void {
    this.#conditions.push(condition);
  }

  /**
   * Case-insensitive "starts with" on `column`, served by the
   * lower(column) text_pattern_ops indexes whatever the database collation.
   */
  prefix(column: string, value: string | undefined): void {
    const text = filterText(value);
    if (text !== undefined) this.add(`lower(${column}) LIKE lower(${this.param(`${escapeLike(text)}%`)})`);
  }

  action(value: string | undefined): void {
    if (value !== undefined && value !== 'All') this.add(`action = ${this.param(value)}`);
  }

  get where(): string {
    return this.#conditions.length > 0 ? `WHERE ${this.#conditions.join(' AND ')}` : '';
  }
}

async function page<Row>(
  db: Queryable,
  table: string,
  columns: string,
  orderBy: string,
  filters: Filters,
  request: { page?: number | undefined; limit?: number | undefined },
): Promise<{ result: Row[]; total_pages: number; total_records: number }> {
  const { limit, offset } = pageWindow(request);
  const n = filters.params.length;
  const [count, rows] = await Promise.all([
    db.query<{ total: number }>(`SELECT count(*) AS total FROM ${table} ${filters.where}`, filters.params),
    db.query<Row>(`SELECT ${columns} FROM ${table} ${filters.where} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, [...filters.params, limit, offset]),
  ]);
  const totalRecords = count.rows[0]?.total ?? 0;
  return { result: rows.rows, total_pages: totalPages(totalRecords, limit), total_records: totalRecords };
}

const iso = (date: Date) => date.toISOString();

/**
 * What staff type in the Name filter, as the item it names: the dashboard
 * sends lowercase snake_case, and 'Fee Rate Floor' (as the table shows it)
 * reads the same.
 */
export function settingItemFilter(value: string | undefined): string | undefined {
  const text = filterText(value);
  return text === undefined ? undefined : text.toLowerCase().replace(/\s+/g, '_');
}

export async function listSettingLogs(db: Queryable, query: SettingLogListQuery): Promise<SettingLogListResponse> {
  const filters = new Filters();
  const item = settingItemFilter(query.item);
  // Exact: setting_logs_item_idx (item, updated_time).
  if (item !== undefined) filters.add(`item = ${filters.param(item)}`);
  filters.prefix('username', query.username);
  const res = await page<{ id: number; item: string; username: string; previous_value: string | null; updated_value: string | null; updated_time: Date }>(
    db,
    'setting_logs',
    'id, item, username, previous_value, updated_value, updated_time',
    'updated_time DESC, id DESC',
    filters,
    query,
  );
  return { ...res, result: res.result.map((r) => ({ ...r, updated_time: iso(r.updated_time) })) };
}

export async function listDiscountLogs(db: Queryable, query: DiscountLogListQuery): Promise<DiscountLogListResponse> {
  const filters = new Filters();
  const code = filterText(query.client_code);
  // Exact, as in the audit list: discount_logs_client_code_idx (client_code, action_time).
  if (code !== undefined) filters.add(`client_code = ${filters.param(code)}`);
  filters.prefix('username', query.username);
  filters.action(query.action);
  const res = await page<{ id: number; username: string; action: ChangeAction; client_code: string | null; previous_values: string | null; updated_values: string | null; action_time: Date }>(
    db,
    'discount_logs',
    'id, username, action, client_code, previous_values::text AS previous_values, updated_values::text AS updated_values, action_time',
    'action_time DESC, id DESC',
    filters,
    query,
  );
  return { ...res, result: res.result.map((r) => ({ ...r, action_time: iso(r.action_time) })) };
}

export async function listClientLogs(db: Queryable, query: ClientLogListQuery): Promise<ClientLogListResponse> {
  const filters = new Filters();
  filters.prefix('username', query.username);
  filters.prefix('client_name', query.client_name);
  filters.action(query.action);
  const res = await page<{ id: number; username: string; client_name: string | null; action: ChangeAction; previous_values: string | null; updated_values: string | null; timestamp: Date }>(
    db,
    'client_logs',
    'id, username, client_name, action, previous_values::text AS previous_values, updated_values::text AS updated_values, timestamp',
    'timestamp DESC, id DESC',
    filters,
    query,
  );
  return { ...res, result: res.result.map((r) => ({ ...r, timestamp: iso(r.timestamp) })) };
}
