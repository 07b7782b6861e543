import { isIP } from 'node:net';
import type { Queryable } from '../../db/database.ts';
import { escapeLike, SqlParams, whereAll, type Page, type PageWindow, type Param } from '../../db/sql.ts';
import type { AuditLogListQuery } from './audit-logs.schemas.ts';

/**
 * Reads the audit trail for the staff list (docs/behaviour.md#staff-calls, /rest-api/audits/list).
 * Every filter maps onto one of the indexes of migration 005_audit.sql, except
 * an endpoint search, which no btree index can serve (see ipOrEndpoint).
 *
 * The totals come from the per-day counts of migration 009_audit_log_counts.sql
 * whenever the filters are ones it counts by (endpoint, method, source type,
 * success, dates): counting the rows themselves takes longer than the list's
 * 100 ms budget once they number in the hundreds of thousands (docs/architecture.md#performance-budgets;
 * server/bench/audit-list.ts). The same counts say on which day a page
 * starts, so a deep page is read from there instead of by stepping over
 * every newer row. Filters on an address or a client code select few rows
 * and are counted on audit_logs itself, through their indexes.
 */

export interface AuditLogRecord {
  id: number;
  ip_address: string | null;
  endpoint: string | null;
  http_method: string | null;
  client_code: string | null;
  request_at: Date;
  request_payload: string | null;
  response_payload: string | null;
  response_time_ms: number | null;
  error_message: string | null;
  source_type: 'Internal' | 'External' | null;
  is_success: boolean;
  client_name: string | null;
  discount_percentage: number | null;
}

/** The list's filters, parsed (audit-logs.service.ts reads them from a query); text trimmed, blank meaning none. */
export interface AuditLogFilters {
  /** An IP address (looked up exactly) or a part of an endpoint (see ipOrEndpoint). */
  ipOrEndpoint?: string | undefined;
  clientCode?: string | undefined;
  method?: Exclude<AuditLogListQuery['method'], 'All'> | undefined;
  isSuccess?: boolean | undefined;
  sourceType?: AuditLogListQuery['source_type'];
  /** Inclusive. */
  from?: Date | undefined;
  /** Exclusive. */
  toExclusive?: Date | undefined;
}

/** The filters as SQL conditions, split by whether audit_log_counts can count them. */
interface Filters {
  /** Conditions on columns audit_log_counts counts by: endpoint, http_method, source_type, is_success. */
  counted: string[];
  /** Conditions on ip_address or client_code, which only audit_logs has. */
  uncounted: string[];
  params: unknown[];
  /** Inclusive. */
  from?: Date | undefined;
  toExclusive?: Date | undefined;
}

interface DayCount {
  /** 'yyyy-MM-dd', a UTC day. */
  day: string;
  records: number;
}

/** The rows of a page: those at or after `from` and before `before`, newest first, after skipping `skip`. */
interface Slice {
  from?: Date | undefined;
  before?: Date | undefined;
  skip: number;
}

/**
 * An IP address is looked up exactly in ip_address (audit_logs_ip_address_idx).
 * An IPv4 address also matches its IPv4-mapped IPv6 form, which is what Node
 * reports for IPv4 clients when the portal listens on '::'.
 *
 * Any other text is searched for inside endpoint, ignoring case. A substring
 * rather than a prefix because every audited endpoint starts with /rest-api/,
 * so staff look for 'submit-tx', not the full path. No btree index can serve a
 * substring or a case-folded match (audit_logs_endpoint_idx serves exact paths
 * only, and the database collation is not known to be C), so this is a filter
 * on the rows the other conditions select: the page query walks
 * audit_logs_request_at_idx newest first and stops once the page is full, and
 * the count comes from audit_log_counts, whose rows carry each endpoint.
 * Splitting on the term's shape keeps the common "what did this IP do" search
 * on its index, where `ip_address = $1 OR endpoint ILIKE $2` would scan the
 * table for every search; an IP address inside an endpoint path is not
 * something the portal's routes produce.
 */
function ipOrEndpoint(term: string, param: Param): string {
  switch (isIP(term)) {
    case 4:
      return `ip_address IN (${param(term)}, ${param(`::ffff:${term}`)})`;
    case 6:
      // Node reports IPv6 addresses in lower case.
      return `ip_address = ${param(term.toLowerCase())}`;
    default:
      return `endpoint ILIKE ${param(`%${escapeLike(term)}%`)}`;
  }
}

function auditConditions(filters: AuditLogFilters): Filters {
  const { param, values } = new SqlParams();
  const counted: string[] = [];
  const uncounted: string[] = [];

  const term = filters.ipOrEndpoint;
  if (term !== undefined) (isIP(term) ? uncounted : counted).push(ipOrEndpoint(term, param));

  if (filters.clientCode !== undefined) uncounted.push(`client_code = ${param(filters.clientCode)}`);

  if (filters.method !== undefined) counted.push(`http_method = ${param(filters.method)}`);

  // Written out rather than `is_success = $n`, so that the planner can match
  // NOT is_success against the partial index audit_logs_failures_idx.
  if (filters.isSuccess === true) counted.push('is_success');
  if (filters.isSuccess === false) counted.push('NOT is_success');

  if (filters.sourceType !== undefined) counted.push(`source_type = ${param(filters.sourceType)}`);

  return { counted, uncounted, params: values, from: filters.from, toExclusive: filters.toExclusive };
}

/** The conditions' parameters, and a function that appends one more and returns its placeholder. */
function withParams(filters: Filters): { params: unknown[]; param: Param } {
  const sql = new SqlParams(filters.params);
  return { params: sql.values, param: sql.param };
}

const DAY_MS = 86_400_000;
/** The UTC day boundary at or before `time`, and at or after it. Days are UTC, as the database session is. */
const floorDay = (time: Date) => new Date(Math.floor(time.getTime() / DAY_MS) * DAY_MS);
const ceilDay = (time: Date) => new Date(Math.ceil(time.getTime() / DAY_MS) * DAY_MS);
const dayText = (time: Date) => time.toISOString().slice(0, 10);
const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);

/**
 * The rows matching counted filters only, per UTC day, newest first (days
 * with none left out). Whole days inside the date range come from
 * audit_log_counts; a day the range cuts (from_date or to_date other than
 * midnight) is counted on audit_logs, within the range: at most two days of
 * rows, found through audit_logs_request_at_idx.
 */
async function countDays(db: Queryable, filters: Filters): Promise<DayCount[]> {
  const { params, param } = withParams(filters);
  const { from, toExclusive } = filters;
  const rowsPerDay = (lo: Date | undefined, hi: Date | undefined) => {
    const conditions = [...filters.counted];
    if (lo) conditions.push(`request_at >= ${param(lo)}`);
    if (hi) conditions.push(`request_at < ${param(hi)}`);
    return `SELECT (request_at AT TIME ZONE 'UTC')::date AS day, count(*) AS records FROM audit_logs ${whereAll(conditions)} GROUP BY 1`;
  };
  const parts: string[] = [];
  const wholeFrom = from ? ceilDay(from) : undefined;
  const wholeTo = toExclusive ? floorDay(toExclusive) : undefined;
  if (from && toExclusive && wholeFrom && wholeTo && wholeFrom >= wholeTo) {
    // No whole day inside the range.
    parts.push(rowsPerDay(from, toExclusive));
  } else {
    const conditions = [...filters.counted];
    if (wholeFrom) conditions.push(`day >= ${param(dayText(wholeFrom))}::date`);
    if (wholeTo) conditions.push(`day < ${param(dayText(wholeTo))}::date`);
    parts.push(`SELECT day, records FROM audit_log_counts ${whereAll(conditions)}`);
    if (from && wholeFrom && from < wholeFrom) parts.push(rowsPerDay(from, wholeFrom));
    if (toExclusive && wholeTo && wholeTo < toExclusive) parts.push(rowsPerDay(wholeTo, toExclusive));
  }
  const { rows } = await db.query<DayCount>(
    `SELECT day, sum(records)::bigint AS records FROM (${parts.join(' UNION ALL ')}) AS d
      GROUP BY day HAVING sum(records) > 0 ORDER BY day DESC`,
    params,
  );
  return rows;
}

/**
 * Where rows offset .. offset + limit - 1 (newest first) lie, from the
 * counts per day: the page reads from the end of the day its first row
 * falls on, skipping only that day's newer rows, and stops at the start of
 * the day its last row falls on. Exact, because every matching row at or
 * after the end of that first day is counted in the days before it.
 * `offset` must be less than the total.
 */
function pageSlice(days: DayCount[], total: number, filters: Filters, offset: number, limit: number): Slice {
  const lastRow = Math.min(offset + limit, total) - 1;
  let newer = 0;
  let first: DayCount | undefined;
  let last: DayCount | undefined;
  let skip = offset;
  for (const day of days) {
    if (!first && newer + day.records > offset) {
      first = day;
      skip = offset - newer;
    }
    if (newer + day.records > lastRow) {
      last = day;
      break;
    }
    newer += day.records;
  }
  if (!first || !last) throw new Error(`Offset ${offset} is not below the total ${total}`);
  const firstDayEnd = new Date(dayStart(first.day).getTime() + DAY_MS);
  const lastDayStart = dayStart(last.day);
  return {
    before: filters.toExclusive && filters.toExclusive < firstDayEnd ? filters.toExclusive : firstDayEnd,
    from: filters.from && filters.from > lastDayStart ? filters.from : lastDayStart,
    skip,
  };
}

async function countRows(db: Queryable, filters: Filters): Promise<number> {
  const { params, param } = withParams(filters);
  const conditions = [...filters.counted, ...filters.uncounted];
  if (filters.from) conditions.push(`request_at >= ${param(filters.from)}`);
  if (filters.toExclusive) conditions.push(`request_at < ${param(filters.toExclusive)}`);
  const { rows } = await db.query<{ total: number }>(`SELECT count(*) AS total FROM audit_logs ${whereAll(conditions)}`, params);
  return rows[0]?.total ?? 0;
}

async function pageRows(db: Queryable, filters: Filters, slice: Slice, limit: number): Promise<AuditLogRecord[]> {
  const { params, param } = withParams(filters);
  const conditions = [...filters.counted, ...filters.uncounted];
  if (slice.from) conditions.push(`request_at >= ${param(slice.from)}`);
  if (slice.before) conditions.push(`request_at < ${param(slice.before)}`);
  // The page is cut first and joined to the discount codes after, so the
  // join never changes how the filtered, ordered scan is planned. The order
  // is that of audit_logs_request_at_idx; id breaks ties between rows of the
  // same instant so that pages neither repeat nor skip rows.
  const { rows } = await db.query<AuditLogRecord>(
    `SELECT a.id, a.ip_address, a.endpoint, a.http_method, a.client_code, a.request_at, a.request_payload,
            a.response_payload, a.response_time_ms, a.error_message, a.source_type, a.is_success,
            c.name AS client_name, d.discount_percentage
       FROM (SELECT * FROM audit_logs ${whereAll(conditions)}
              ORDER BY request_at DESC, id DESC
              LIMIT ${param(limit)} OFFSET ${param(slice.skip)}) AS a
       LEFT JOIN discount_codes d ON d.code = a.client_code
       LEFT JOIN clients c ON c.id = d.client_id
      ORDER BY a.request_at DESC, a.id DESC`,
    params,
  );
  return rows;
}

/** One page of the audit trail, newest first, with the totals over all pages. */
export async function listAuditLogs(db: Queryable, auditFilters: AuditLogFilters, { limit, offset }: PageWindow): Promise<Page<AuditLogRecord>> {
  const filters = auditConditions(auditFilters);
  const answer = (records: AuditLogRecord[], total: number): Page<AuditLogRecord> => ({ records, total });
  if (filters.uncounted.length > 0) {
    const [total, records] = await Promise.all([
      countRows(db, filters),
      pageRows(db, filters, { from: filters.from, before: filters.toExclusive, skip: offset }, limit),
    ]);
    return answer(records, total);
  }
  const days = await countDays(db, filters);
  const total = days.reduce((sum, day) => sum + day.records, 0);
  // Nothing to read: a page past the end, or a search that matches nothing
  // (which the page query would otherwise look for in every row).
  if (offset >= total) return answer([], total);
  return answer(await pageRows(db, filters, pageSlice(days, total, filters, offset, limit), limit), total);
}
