import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { DeletedResponse, IdParams, ValidationErrorResponse } from '../../http/forms.ts';
import { DiscountBody, DiscountListQuery, DiscountListResponse, DiscountRow } from './discounts.schemas.ts';
import type { DiscountService } from './discounts.service.ts';

/**
 * Discount Management (docs/behaviour.md#discount-management). The URLs keep
 * their historical name, /rest-api/client-code/*, a public contract the
 * dashboard has always called (docs/glossary.md#client-code-and-discount);
 * in the code the records are discounts. The list for every signed-in staff
 * member; add, update and delete in the administrators-only scope.
 */

const security = [{ bearer: [] }];

export function discountViewRoutes(service: DiscountService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/client-code/view', {
      schema: {
        tags: ['staff'],
        summary: 'Discount codes, newest first, filtered and paged',
        security,
        querystring: DiscountListQuery,
        response: { 200: DiscountListResponse, 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.list(request.query));
  };
}

export function discountAdminRoutes(service: DiscountService): FastifyPluginAsyncTypebox {
  const errors = { 400: ValidationErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse };
  return async (app) => {
    app.post('/client-code/add', {
      schema: {
        tags: ['staff'],
        summary: 'Issue a discount code to a client (administrators); the server makes the code',
        security,
        body: DiscountBody,
        response: { 200: DiscountRow, ...errors },
      },
    }, (request) => service.add(request.body, request.staff!));

    app.post('/client-code/update/:id', {
      schema: {
        tags: ['staff'],
        summary: 'Change a discount (administrators); its code never changes',
        security,
        params: IdParams,
        body: DiscountBody,
        response: { 200: DiscountRow, ...errors },
      },
    }, (request) => service.update(request.params.id, request.body, request.staff!));

    app.delete('/client-code/delete/:id', {
      schema: {
        tags: ['staff'],
        summary: 'Delete a discount code (administrators)',
        security,
        params: IdParams,
        response: { 200: DeletedResponse, ...errors },
      },
    }, (request) => service.remove(request.params.id, request.staff!));
  };
}
