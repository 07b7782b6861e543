import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../http/errors.ts';
import { StaffMeResponse } from './staff.schemas.ts';

/** Who the signed-in staff member is, and whether they may change data (docs/behaviour.md#staff-session, docs/behaviour.md#roles-and-permissions). */
export function staffMeRoutes(): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/staff/me', {
      schema: {
        tags: ['staff'],
        summary: 'The signed-in staff member and their admin flag',
        security: [{ bearer: [] }],
        response: { 200: StaffMeResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => {
      const staff = request.staff!;
      return { username: staff.username, email: staff.email ?? null, groups: staff.groups, is_admin: staff.isAdmin };
    });
  };
}
