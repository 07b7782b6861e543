import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Queryable } from '../../db/database.ts';
import { ErrorResponse } from '../../http/errors.ts';
import { listClientLogs, listDiscountLogs, listSettingLogs } from './change-logs.repository.ts';
import {
  ClientLogListQuery,
  ClientLogListResponse,
  DiscountLogListQuery,
  DiscountLogListResponse,
  SettingLogListQuery,
  SettingLogListResponse,
} from './change-logs.schemas.ts';

/** The Setting, Discount and Client Logs tabs (SPEC.md section 2, Logs): any signed-in staff member. */
export function changeLogRoutes(deps: { db: Queryable }): FastifyPluginAsyncTypebox {
  const { db } = deps;
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
    }, (request) => listSettingLogs(db, request.query));

    app.get('/discount-logs/list', {
      schema: {
        tags: ['staff'],
        summary: 'Discount codes created, updated and deleted, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: DiscountLogListQuery,
        response: { 200: DiscountLogListResponse, ...errors },
      },
    }, (request) => listDiscountLogs(db, request.query));

    app.get('/client-logs/list', {
      schema: {
        tags: ['staff'],
        summary: 'Clients created, updated and deleted, newest first, filtered and paged',
        security: [{ bearer: [] }],
        querystring: ClientLogListQuery,
        response: { 200: ClientLogListResponse, ...errors },
      },
    }, (request) => listClientLogs(db, request.query));
  };
}
