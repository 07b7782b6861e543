import { dayEnd, dayStart } from '../components/data-table/date-range.ts';
import { defineList, type ListRow } from './list-query.ts';

/**
 * The dashboard's server-paged lists (docs/behaviour.md#staff-calls): each one's path,
 * the filters its address holds ('' when unset; dates as yyyy-MM-dd), and
 * how they become the server's query. The query's names and types are the
 * server's own (schema.d.ts); an address value the server would refuse is
 * left out, like an unset filter.
 */

/** docs/behaviour.md#dates-in-calls: start dates go at 00:00:00, end dates at 23:59:59. */
const dates = (filters: { from_date: string; to_date: string }) => ({ from_date: dayStart(filters.from_date), to_date: dayEnd(filters.to_date) });

/** 'true' or 'false' from the address; anything else is no filter. */
const flag = (text: string) => (text === 'true' ? true : text === 'false' ? false : undefined);

/** One of the values the server takes, or no filter. */
const oneOf = <const T extends string>(values: readonly T[], text: string): T | undefined => values.find((value) => value === text);

const ACTIONS = ['All', 'Create', 'Update', 'Delete'] as const;

export const AUDIT_LOGS = defineList({
  path: '/rest-api/audits/list',
  filters: ['ip_or_endpoint', 'client_code', 'from_date', 'to_date', 'method', 'is_success', 'source_type'],
  query: (f) => ({
    ...f,
    ...dates(f),
    method: oneOf(['All', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], f.method),
    is_success: flag(f.is_success),
    source_type: oneOf(['Internal', 'External'], f.source_type),
  }),
});
export type AuditLogRow = ListRow<typeof AUDIT_LOGS.path>;

/** Setting Logs: the Name as typed, and the Email (matched against the staff member's email, or their username when the row has none). */
export const SETTING_LOGS = defineList({
  path: '/rest-api/setting-logs/list',
  filters: ['item', 'username'],
  query: (f) => ({ ...f, item: itemQueryValue(f.item) }),
});
export type SettingLogRow = ListRow<typeof SETTING_LOGS.path>;

/** docs/behaviour.md#staff-calls: the item goes in lowercase snake_case, so 'Fee Rate Floor' asks for fee_rate_floor. */
export function itemQueryValue(name: string): string {
  return name.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

/** Discount Logs: username is the Email filter, action '' for All. */
export const DISCOUNT_LOGS = defineList({
  path: '/rest-api/discount-logs/list',
  filters: ['client_code', 'username', 'action'],
  query: (f) => ({ ...f, action: oneOf(ACTIONS, f.action) }),
});
export type DiscountLogRow = ListRow<typeof DISCOUNT_LOGS.path>;

/** Client Logs: username is the Email filter, action '' for All. */
export const CLIENT_LOGS = defineList({
  path: '/rest-api/client-logs/list',
  filters: ['username', 'client_name', 'action'],
  query: (f) => ({ ...f, action: oneOf(ACTIONS, f.action) }),
});
export type ClientLogRow = ListRow<typeof CLIENT_LOGS.path>;

/** Discount Management: status 'true', 'false' or '' for All. */
export const DISCOUNTS = defineList({
  path: '/rest-api/client-code/view',
  filters: ['client_code', 'from_date', 'to_date', 'status'],
  query: (f) => ({ ...f, ...dates(f), status: flag(f.status) }),
});
export type DiscountRow = ListRow<typeof DISCOUNTS.path>;

/** Client Management (the same path also answers every client name: api/client-names.ts). */
export const CLIENTS = defineList({
  path: '/rest-api/client/view',
  filters: ['client_name', 'email', 'organization_name'],
  query: (f) => f,
});
export type ClientRow = ListRow<typeof CLIENTS.path>;

/** Failed Transaction: tx_status '' is the server's default, Failed (docs/behaviour.md#failed-transactions). */
export const FAILED_TXS = defineList({
  path: '/rest-api/txs/view',
  filters: ['txid', 'client_code', 'from_date', 'to_date', 'tx_status'],
  query: (f) => ({ ...f, ...dates(f), tx_status: oneOf(['Failed', 'Timeout'], f.tx_status) }),
});
export type FailedTxRow = ListRow<typeof FAILED_TXS.path>;

export const TX_REPORTS = defineList({
  path: '/rest-api/tx-reports/list',
  filters: ['txid', 'client_code', 'from_date', 'to_date'],
  query: (f) => ({ ...f, ...dates(f) }),
});
export type TxReportRow = ListRow<typeof TX_REPORTS.path>;

/** docs/behaviour.md#tx-puller: the Tx Puller's two tabs; single transactions by default. */
export const SUBMISSION_TYPES = ['tx_submissions', 'package_submissions'] as const;
export type SubmissionType = (typeof SUBMISSION_TYPES)[number];

const txPuller = (type: SubmissionType) =>
  defineList({
    path: '/rest-api/tx-puller/list',
    filters: ['client_code', 'txid', 'from_date', 'to_date'],
    query: (f) => ({ ...f, ...dates(f), submission_type: type }),
  });

/** Each tab is its own list, of the same path. */
export const TX_PULLER: Record<SubmissionType, ReturnType<typeof txPuller>> = {
  tx_submissions: txPuller('tx_submissions'),
  package_submissions: txPuller('package_submissions'),
};
export type PullerRow = ListRow<typeof TX_PULLER.tx_submissions.path>;
