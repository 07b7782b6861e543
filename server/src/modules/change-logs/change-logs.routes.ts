import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import {
  ClientLogListQuery,
  ClientLogListResponse,
  DiscountLogListQuery,
  DiscountLogListResponse,
  SettingLogListQuery,
  SettingLogListResponse,
} from './change-logs.schemas.ts';
import type { ChangeLogService } from './change-logs.service.ts';

/** The Setting, Discount and Client Logs tabs (docs/behaviour.md#logs): any signed-in staff member. */
export function changeLogRoutes(service: ChangeLogService): FastifyPluginAsyncTypebox {
  const errors = { 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse };
  return async (app) => {
    app.get('/setting-logs/list', {
      schema: {
        tags: ['staff'],
        summary: 'Changes to settings, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: SettingLogListQuery,
        response: { 200: SettingLogListResponse, ...errors },
      },
    }, (request) => service.settings(request.query));

    app.get('/discount-logs/list', {
      schema: {
        tags: ['staff'],
        summary: 'Discount codes created, updated and deleted, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: DiscountLogListQuery,
        response: { 200: DiscountLogListResponse, ...errors },
      },
    }, (request) => service.discounts(request.query));

    app.get('/client-logs/list', {
      schema: {
        tags: ['staff'],
        summary: 'Clients created, updated and deleted, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: ClientLogListQuery,
        response: { 200: ClientLogListResponse, ...errors },
      },
    }, (request) => service.clients(request.query));
  };
}
