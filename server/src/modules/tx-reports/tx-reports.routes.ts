import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { jsonOrCsv, sendCsv } from '../../http/csv.ts';
import { ErrorResponse } from '../../http/errors.ts';
import { TxReportListResponse, TxReportQuery } from './tx-reports.schemas.ts';
import type { TxReportService } from './tx-reports.service.ts';

/**
 * TX Reports (docs/behaviour.md#tx-reports) for any signed-in staff member: viewing
 * and downloading are open to every dashboard user (docs/behaviour.md#roles-and-permissions).
 */
export function txReportRoutes(service: TxReportService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/tx-reports/list', {
      schema: {
        tags: ['staff'],
        summary: 'Revenue and premium of accepted transactions and packages, newest first, filtered and paged; or all of them as CSV',
        security: [{ bearer: [] }],
        querystring: TxReportQuery,
        response: {
          200: jsonOrCsv(TxReportListResponse, 'A page of rows; with download=true, tx-report-{yyyy-mm-dd-hh-mm-ss}.csv'),
          400: ErrorResponse,
          401: ErrorResponse,
          503: ErrorResponse,
        },
      },
    }, async (request, reply) => (request.query.download ? sendCsv(reply, await service.download(request.query)) : service.list(request.query)));
  };
}
