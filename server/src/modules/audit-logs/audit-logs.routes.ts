import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Queryable } from '../../db/database.ts';
import { ErrorResponse } from '../../http/errors.ts';
import { listAuditLogs } from './audit-logs.repository.ts';
import { AuditListQuery, AuditListResponse } from './audit-logs.schemas.ts';

/**
 * The audit trail for any signed-in staff member (SPEC.md section 2, Logs).
 * A factory rather than plugin options because the staff scope registers its
 * view routes as plain plugins.
 */
export function auditLogRoutes(db: Queryable): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/audits/list', {
      schema: {
        tags: ['staff'],
        summary: 'The request audit trail, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: AuditListQuery,
        response: { 200: AuditListResponse, 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => listAuditLogs(db, request.query));
  };
}
