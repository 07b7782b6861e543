import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { jsonOrCsv, sendCsv } from '../../http/csv.ts';
import { ErrorResponse } from '../../http/errors.ts';
import { PulledHexParams, PulledHexQuery, PulledHexResponse, TxPullerListResponse, TxPullerQuery } from './tx-puller.schemas.ts';
import type { TxPullerService } from './tx-puller.service.ts';

/**
 * The Tx Puller (docs/behaviour.md#tx-puller) for any signed-in staff member: viewing
 * and downloading are open to every dashboard user (docs/behaviour.md#roles-and-permissions).
 */
export function txPullerRoutes(service: TxPullerService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/tx-puller/list', {
      schema: {
        tags: ['staff'],
        summary: 'Accepted submissions, single transactions or packages, newest first, filtered and paged (each hex shortened); or all of them as CSV (each hex whole)',
        security: [{ bearer: [] }],
        querystring: TxPullerQuery,
        response: {
          200: jsonOrCsv(TxPullerListResponse, 'A page of rows; with download=true, tx-puller-{submission_type}-report-{yyyy-mm-dd-hh-mm-ss}.csv'),
          400: ErrorResponse,
          401: ErrorResponse,
          503: ErrorResponse,
        },
      },
    }, async (request, reply) => (request.query.download ? sendCsv(reply, await service.download(request.query)) : service.list(request.query)));

    app.get('/tx-puller/:id/hex', {
      schema: {
        tags: ['staff'],
        summary: "One accepted submission's whole transaction hex, or a package's every member (pages shorten them): for the copy button",
        security: [{ bearer: [] }],
        params: PulledHexParams,
        querystring: PulledHexQuery,
        response: { 200: PulledHexResponse, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.hex(request.params.id, request.query.submission_type ?? 'tx_submissions'));
  };
}
