import { createAuditChainVerifier, type ChainAnchor, type ChainVerification } from '../../audit/audit-chain.ts';
import type { Queryable } from '../../db/database.ts';
import { filterText, pageWindow, parseDateRange, totalPages } from '../../http/list-query.ts';
import { listAuditLogs, type AuditLogFilters, type AuditLogRecord } from './audit-logs.repository.ts';
import type { AuditLogListQuery, AuditLogListResponse, AuditLogRow } from './audit-logs.schemas.ts';

/** The audit trail as staff read it: the filtered list, and the hash chain's check. */
export interface AuditLogService {
  list(query: AuditLogListQuery): Promise<AuditLogListResponse>;
  /** Walks the hash chain, up to `anchor` (a head noted earlier) when given. */
  verify(anchor: ChainAnchor | undefined): Promise<ChainVerification>;
}

/** The filters of a query; bad dates and an inverted range are 400s (parseDateRange). */
function auditFilters(query: AuditLogListQuery): AuditLogFilters {
  return {
    ipOrEndpoint: filterText(query.ip_or_endpoint),
    clientCode: filterText(query.client_code),
    method: query.method === 'All' ? undefined : query.method,
    isSuccess: query.is_success,
    sourceType: query.source_type,
    ...parseDateRange(query),
  };
}

function toRow(record: AuditLogRecord): AuditLogRow {
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

export function createAuditLogService(db: Queryable): AuditLogService {
  const verifier = createAuditChainVerifier(db);
  return {
    async list(query) {
      const window = pageWindow(query);
      const { records, total } = await listAuditLogs(db, auditFilters(query), window);
      return { result: records.map(toRow), total_pages: totalPages(total, window.limit), total_records: total };
    },
    verify: (anchor) => verifier.verify(anchor),
  };
}
