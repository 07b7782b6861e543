import type { Queryable } from '../../db/database.ts';
import { filterText, pageWindow, totalPages } from '../../http/list-query.ts';
import { listClientLogs, listDiscountLogs, listSettingLogs } from './change-logs.repository.ts';
import type {
  ChangeAction,
  ClientLogListQuery,
  ClientLogListResponse,
  DiscountLogListQuery,
  DiscountLogListResponse,
  SettingLogListQuery,
  SettingLogListResponse,
} from './change-logs.schemas.ts';

/** The Setting, Discount and Client Logs tabs' lists: queries read as filters, records written as the wire's rows. */
export interface ChangeLogService {
  settings(query: SettingLogListQuery): Promise<SettingLogListResponse>;
  discounts(query: DiscountLogListQuery): Promise<DiscountLogListResponse>;
  clients(query: ClientLogListQuery): Promise<ClientLogListResponse>;
}

/**
 * What staff type in the Name filter, as the item it names: the dashboard
 * sends lowercase snake_case, and 'Fee Rate Floor' (as the table shows it)
 * reads the same.
 */
export function settingItemFilter(value: string | undefined): string | undefined {
  const text = filterText(value);
  return text === undefined ? undefined : text.toLowerCase().replace(/\s+/g, '_');
}

const actionFilter = (value: ChangeAction | 'All' | undefined): ChangeAction | undefined => (value === 'All' ? undefined : value);

/** The { result, total_pages, total_records } wrapper around a page of records. */
function listAnswer<R, W>(page: { records: R[]; total: number }, limit: number, row: (record: R) => W) {
  return { result: page.records.map(row), total_pages: totalPages(page.total, limit), total_records: page.total };
}

export function createChangeLogService(db: Queryable): ChangeLogService {
  return {
    async settings(query) {
      const window = pageWindow(query);
      const page = await listSettingLogs(db, { item: settingItemFilter(query.item), staff: filterText(query.username) }, window);
      return listAnswer(page, window.limit, (r) => ({ ...r, updated_time: r.updated_time.toISOString() }));
    },
    async discounts(query) {
      const window = pageWindow(query);
      const filters = { clientCode: filterText(query.client_code), staff: filterText(query.username), action: actionFilter(query.action) };
      const page = await listDiscountLogs(db, filters, window);
      return listAnswer(page, window.limit, (r) => ({ ...r, action_time: r.action_time.toISOString() }));
    },
    async clients(query) {
      const window = pageWindow(query);
      const filters = { staff: filterText(query.username), clientName: filterText(query.client_name), action: actionFilter(query.action) };
      const page = await listClientLogs(db, filters, window);
      return listAnswer(page, window.limit, (r) => ({ ...r, timestamp: r.timestamp.toISOString() }));
    },
  };
}
