import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { StatusQuery, StatusResponse } from './status.schemas.ts';
import type { StatusService } from './status.service.ts';

/** A public route: registered in the public scope, whose hook spends the caller's rate-limit budget (app.ts). */
export function statusRoutes(status: StatusService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/status-check', {
      schema: {
        tags: ['public'],
        summary: 'Where a transaction is: in the mempool, mined, or gone',
        querystring: StatusQuery,
        response: { 200: StatusResponse, 400: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => status.check(request.query.tx_id));
  };
}
