import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { IdParams } from '../../http/forms.ts';
import type { ApiKeyService } from './api-keys.service.ts';
import { ApiKeyListResponse, ApiKeyParams, ApiKeyRow, IssuedApiKeyResponse } from './api-keys.schemas.ts';

/**
 * API keys a client uses for the public API's authorised endpoints (POST
 * /api/mempool/tests), issued and revoked from the Clients screen.
 * Administrators only, listing included: a key is a credential, and who
 * holds one is an administrator's business.
 */

const security = [{ bearer: [] }];
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse };

export function clientApiKeyAdminRoutes(service: ApiKeyService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/client/:id/api-keys', {
      schema: { tags: ['staff'], summary: "A client's API keys, newest first (administrators); the keys themselves are never shown again", security, params: IdParams, response: { 200: ApiKeyListResponse, ...errors } },
    }, async (request) => ({ result: await service.list(request.params.id) }));

    app.post('/client/:id/api-keys', {
      schema: { tags: ['staff'], summary: 'Issue an API key to a client (administrators): the answer holds the key, shown this once', security, params: IdParams, response: { 200: IssuedApiKeyResponse, ...errors } },
    }, async (request) => {
      const { key, row } = await service.issue(request.params.id, request.staff!.username);
      return { secret: key, api_key: row };
    });

    app.delete('/client/:id/api-keys/:keyId', {
      schema: { tags: ['staff'], summary: "Revoke a client's API key (administrators): it stops working at once", security, params: ApiKeyParams, response: { 200: ApiKeyRow, ...errors } },
    }, (request) => service.revoke(request.params.id, request.params.keyId, request.staff!.username));
  };
}
