import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { DeletedResponse, IdParams, ValidationErrorResponse } from '../../http/forms.ts';
import { ClientBody, ClientListQuery, ClientListResponse, ClientNamesResponse, ClientRow } from './clients.schemas.ts';
import type { ClientService } from './clients.service.ts';

/**
 * Client Management (docs/behaviour.md#client-management): the view routes in
 * the staff scope's signed-in part, the admin routes in its administrators-only part.
 */

const security = [{ bearer: [] }];

export function clientViewRoutes(service: ClientService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/client/view', {
      schema: {
        tags: ['staff'],
        summary: 'Clients, newest first, filtered and paged; or, with ?list_clients, every client name',
        security,
        querystring: ClientListQuery,
        response: { 200: Type.Union([ClientListResponse, ClientNamesResponse]), 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.list(request.query));
  };
}

export function clientAdminRoutes(service: ClientService): FastifyPluginAsyncTypebox {
  const errors = { 400: ValidationErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 503: ErrorResponse };
  return async (app) => {
    app.post('/client/add', {
      schema: { tags: ['staff'], summary: 'Add a client (administrators)', security, body: ClientBody, response: { 200: ClientRow, ...errors } },
    }, (request) => service.add(request.body, request.staff!));

    app.post('/client/update/:id', {
      schema: {
        tags: ['staff'],
        summary: 'Replace every field of a client (administrators); a field left out is cleared',
        security,
        params: IdParams,
        body: ClientBody,
        response: { 200: ClientRow, ...errors },
      },
    }, (request) => service.update(request.params.id, request.body, request.staff!));

    app.delete('/client/delete/:id', {
      schema: {
        tags: ['staff'],
        summary: 'Delete a client (administrators); refused with 409 while it is not is_deletable',
        security,
        params: IdParams,
        response: { 200: DeletedResponse, ...errors },
      },
    }, (request) => service.remove(request.params.id, request.staff!));
  };
}
