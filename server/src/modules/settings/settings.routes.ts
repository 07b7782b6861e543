import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { ValidationErrorResponse } from '../../http/forms.ts';
import { SettingsResponse, SettingsUpdateBody } from './settings.schemas.ts';
import type { SettingsService } from './settings.service.ts';

/**
 * The Settings screen (docs/behaviour.md#settings): every staff member sees the
 * settings; administrators change them.
 */

const security = [{ bearer: [] }];

export function settingsViewRoutes(service: SettingsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/settings/view', {
      schema: {
        tags: ['staff'],
        summary: 'Every setting, with its type and bounds for the edit form',
        security,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: SettingsResponse, 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, () => service.view());
  };
}

export function settingsAdminRoutes(service: SettingsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/settings/update', {
      schema: {
        tags: ['staff'],
        summary: 'Change settings (administrators): all of them or none; answers the settings as changed',
        security,
        body: SettingsUpdateBody,
        response: { 200: SettingsResponse, 400: ValidationErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.update(request.body, request.staff!));
  };
}
