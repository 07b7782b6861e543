import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { FailedTxHexParams, FailedTxHexResponse, FailedTxListQuery, FailedTxListResponse, FailedTxRetryBody, FailedTxRetryResponse } from './failed-txs.schemas.ts';
import type { FailedTxService } from './failed-txs.service.ts';

/**
 * Failed Transactions (docs/behaviour.md#failed-transactions). The URLs keep
 * their historical names, a public contract: GET /rest-api/txs/view is the
 * failed-tx list, GET /rest-api/txs/{id}/hex one failed tx's whole hex, and
 * POST /rest-api/retry-txs/update the failed-tx retry. The list in the staff
 * scope's signed-in part, the retry in its administrators-only part.
 */

const security = [{ bearer: [] }];

export function failedTxViewRoutes(service: FailedTxService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/txs/view', {
      schema: {
        tags: ['staff'],
        summary: 'Open failed submissions (Failed by default, or Timeout), newest first, filtered and paged (each hex shortened), with every matching id',
        security,
        querystring: FailedTxListQuery,
        response: { 200: FailedTxListResponse, 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.list(request.query));

    app.get('/txs/:id/hex', {
      schema: {
        tags: ['staff'],
        summary: "One failed submission's whole transaction hex (the list shortens it): for the copy button",
        security,
        params: FailedTxHexParams,
        response: { 200: FailedTxHexResponse, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.hex(request.params.id));
  };
}

export function failedTxAdminRoutes(service: FailedTxService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/retry-txs/update', {
      schema: {
        tags: ['staff'],
        summary:
          'Move failed transactions into retry (administrators): those still Failed or Timeout become Retrying and a retry job is ' +
          'queued for each, once however often they are asked for; the others are skipped',
        security,
        body: FailedTxRetryBody,
        response: { 200: FailedTxRetryResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.retry(request.body.ids));
  };
}
