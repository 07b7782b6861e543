import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ChainVerification } from '../../audit/audit-chain.ts';
import { ApiError, ErrorResponse } from '../../http/errors.ts';
import { AuditLogListQuery, AuditLogListResponse, AuditLogVerifyQuery, AuditLogVerifyResponse } from './audit-logs.schemas.ts';
import type { AuditLogService } from './audit-logs.service.ts';

/**
 * The audit logs (docs/behaviour.md#logs): the list for any signed-in staff
 * member, the chain check for administrators. The URLs keep their historical
 * name, /rest-api/audits/*, a public contract.
 */
export function auditLogViewRoutes(service: AuditLogService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/audits/list', {
      schema: {
        tags: ['staff'],
        summary: 'The request audit trail, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: AuditLogListQuery,
        response: { 200: AuditLogListResponse, 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.list(request.query));
  };
}

function verifyAnswer(result: ChainVerification): AuditLogVerifyResponse {
  const common = { status: 'success' as const, verified: result.verified, head_id: result.headId, head_hash: result.headHash };
  if (result.ok) return { ...common, ok: true };
  return { ...common, ok: false, first_broken_id: result.firstBrokenId, last_intact_id: result.lastIntactId, reason: result.reason, message: result.message };
}

/**
 * Administrators only: walks the audit trail's hash chain (src/audit/audit-chain.ts)
 * and says whether any row was changed or removed since it was written, and
 * with an anchor (a head_id and head_hash noted earlier) whether the chain
 * up to it was recomputed. No route changes or deletes audit rows.
 */
export function auditLogAdminRoutes(service: AuditLogService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/audits/verify', {
      schema: {
        tags: ['staff'],
        summary: "Verify the audit trail's hash chain: every row as written, none removed (administrators)",
        security: [{ bearer: [] }],
        querystring: AuditLogVerifyQuery,
        response: { 200: AuditLogVerifyResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    }, async (request, reply) => {
      const { anchor_id: id, anchor_hash: hash } = request.query;
      if ((id === undefined) !== (hash === undefined)) throw new ApiError(400, 'anchor_id and anchor_hash go together: a head_id and the head_hash an earlier verification answered with it.');
      void reply.header('cache-control', 'no-store');
      return verifyAnswer(await service.verify(id === undefined || hash === undefined ? undefined : { id, hash }));
    });
  };
}
