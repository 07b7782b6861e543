import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { SynchroTableResponse } from './synchro-table.schemas.ts';
import type { SynchroTableService } from './synchro-table.service.ts';

/** GET /rest-api/synchro/table (docs/behaviour.md#synchro-table): any signed-in staff member. */
export function synchroTableRoutes(service: SynchroTableService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/synchro/table', {
      schema: {
        tags: ['staff'],
        summary: "What the pool has synchronised from its node: the mempool mirror's and the block tracker's state",
        security: [{ bearer: [] }],
        response: { 200: SynchroTableResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, () => service.table());
  };
}
