import { isIP } from 'node:net';
import type { Queryable } from '../../db/database.ts';
import { escapeLike, filterText, pageWindow, parseDateRange, totalPages } from '../../http/list-query.ts';
import type { AuditListQuery, AuditListResponse, AuditRow } from './audit-logs.schemas.ts';

/**
 * Reads the audit trail for the staff list (SPEC.md section 7, /rest-api/audits/list).
 * Every filter maps onto one of the indexes of migration 005_audit.sql, except
 * an endpoint search, which no btree index can serve (see ipOrEndpoint).
 */

interface AuditLogRecord {
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

interface Where {
  sql: string;
  params: unknown[];
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
 * the count reads the rows left by the other filters, a date range above all.
 * Splitting on the term's shape keeps the common "what did this IP do" search
 * on its index, where `ip_address = $1 OR endpoint ILIKE $2` would scan the
 * table for every search; an IP address inside an endpoint path is not
 * something the portal's routes produce.
 */
function ipOrEndpoint(term: string, param: (value: unknown) => string): string {
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

function auditFilters(query: AuditListQuery): Where {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions: string[] = [];

  const term = filterText(query.ip_or_endpoint);
  if (term !== undefined) conditions.push(ipOrEndpoint(term, param));

  const clientCode = filterText(query.client_code);
  if (clientCode !== undefined) conditions.push(`client_code = ${param(clientCode)}`);

  const { from, toExclusive } = parseDateRange(query);
  if (from) conditions.push(`request_at >= ${param(from)}`);
  if (toExclusive) conditions.push(`request_at < ${param(toExclusive)}`);

  if (query.method !== undefined && query.method !== 'All') conditions.push(`http_method = ${param(query.method)}`);

  // Written out rather than `is_success = $n`, so that the planner can match
  // NOT is_success against the partial index audit_logs_failures_idx.
  if (query.is_success === true) conditions.push('is_success');
  if (query.is_success === false) conditions.push('NOT is_success');

  if (query.source_type !== undefined) conditions.push(`source_type = ${param(query.source_type)}`);

  return { sql: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

function toRow(record: AuditLogRecord): AuditRow {
  return {
    id: record.id,
    ip_address: record.ip_address,
    endpoint: record.endpoint,
    http_method: record.http_method,
    client_code: record.client_code,
    // The LEFT JOIN found no discount code when client_name is null (clients.name is NOT NULL).
    client_code_info:
      record.client_name === null || record.discount_percentage === null
        ? null
        : { client_name: record.client_name, discount_percentage: record.discount_percentage },
    request_at: record.request_at.toISOString(),
    request_payload: record.request_payload,
    response_payload: record.response_payload,
    response_time: record.response_time_ms,
    error_message: record.error_message,
    source_type: record.source_type,
    is_success: record.is_success,
  };
}

/** One page of the audit trail, newest first, with the totals over all pages. */
export async function listAuditLogs(db: Queryable, query: AuditListQuery): Promise<AuditListResponse> {
  const where = auditFilters(query);
  const { limit, offset } = pageWindow(query);
  const n = where.params.length;
  const [count, page] = await Promise.all([
    db.query<{ total: number }>(`SELECT count(*) AS total FROM audit_logs ${where.sql}`, where.params),
    // The page is cut first and joined to the discount codes after, so the
    // join never changes how the filtered, ordered scan is planned. The order
    // is that of audit_logs_request_at_idx; id breaks ties between rows of the
    // same instant so that pages neither repeat nor skip rows.
    db.query<AuditLogRecord>(
      `SELECT a.id, a.ip_address, a.endpoint, a.http_method, a.client_code, a.request_at, a.request_payload,
              a.response_payload, a.response_time_ms, a.error_message, a.source_type, a.is_success,
              c.name AS client_name, d.discount_percentage
         FROM (SELECT * FROM audit_logs ${where.sql}
                ORDER BY request_at DESC, id DESC
                LIMIT $${n + 1} OFFSET $${n + 2}) AS a
         LEFT JOIN discount_codes d ON d.code = a.client_code
         LEFT JOIN clients c ON c.id = d.client_id
        ORDER BY a.request_at DESC, a.id DESC`,
      [...where.params, limit, offset],
    ),
  ]);
  const totalRecords = count.rows[0]?.total ?? 0;
  return { result: page.rows.map(toRow), total_pages: totalPages(totalRecords, limit), total_records: totalRecords };
}
