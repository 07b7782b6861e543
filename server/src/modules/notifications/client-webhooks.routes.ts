import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { IdParams } from '../../http/forms.ts';
import {
  ClientWebhookResponse,
  DeliveryParams,
  SetClientWebhookBody,
  SetClientWebhookResponse,
  WebhookDeliveriesQuery,
  WebhookDeliveriesResponse,
} from './client-webhooks.schemas.ts';
import type { ClientWebhookService } from './client-webhooks.service.ts';

/**
 * A client's webhook on the Clients screen: staff read it and its delivery
 * log; administrators set, rotate and remove it and send an event again.
 */

const security = [{ bearer: [] }];
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse };
const RedeliverResponse = Type.Object({ status: Type.Literal('success'), message: Type.String() });

export function clientWebhookViewRoutes(service: ClientWebhookService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/client/:id/webhook', {
      schema: { tags: ['staff'], summary: "A client's webhook URL (null when it has none); the secret is never shown again", security, params: IdParams, response: { 200: ClientWebhookResponse, ...errors } },
    }, (request) => service.get(request.params.id));

    app.get('/client/:id/webhook-deliveries', {
      schema: { tags: ['staff'], summary: "The events sent to a client's webhook, newest first", security, params: IdParams, querystring: WebhookDeliveriesQuery, response: { 200: WebhookDeliveriesResponse, ...errors } },
    }, (request) => service.deliveries(request.params.id, request.query.page ?? 1, request.query.limit ?? 20));
  };
}

export function clientWebhookAdminRoutes(service: ClientWebhookService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/client/:id/webhook', {
      schema: {
        tags: ['staff'],
        summary: "Set a client's webhook URL (administrators); a new webhook, or rotate_secret, answers the signing secret this once",
        security, params: IdParams, body: SetClientWebhookBody, response: { 200: SetClientWebhookResponse, ...errors },
      },
    }, (request) => service.set(request.params.id, request.body.url, request.body.rotate_secret ?? false));

    app.delete('/client/:id/webhook', {
      schema: { tags: ['staff'], summary: "Remove a client's webhook (administrators): no more events are sent to it, those still due for transactions already followed included", security, params: IdParams, response: { 200: ClientWebhookResponse, ...errors } },
    }, (request) => service.remove(request.params.id));

    app.post('/client/:id/webhook-deliveries/:deliveryId/redeliver', {
      schema: { tags: ['staff'], summary: 'Send an event to the client\'s webhook again, with the same delivery id (administrators)', security, params: DeliveryParams, response: { 200: RedeliverResponse, ...errors } },
    }, (request) => service.redeliver(request.params.id, request.params.deliveryId));
  };
}
