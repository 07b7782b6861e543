import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../http/errors.ts';
import type { SettingsStore } from './settings.store.ts';

const SiteInfoResponse = Type.Object({
  maintenance: Type.Boolean({ description: 'True while submissions are paused: the public pages show the maintenance screen' }),
  contact_email: Type.String({ description: 'Where to ask for custom blocks and special requests' }),
  company_url: Type.String({ description: "The pool operator's website" }),
  email_notifications: Type.Boolean({ description: 'True when the status page may offer "email me when it is mined" (the portal has SMTP configured)' }),
});

/**
 * What the public pages show around the submit form, from the settings staff
 * edit (docs/behaviour.md#settings): the maintenance switch and the contact line.
 * Read through the settings cache, so a change reaches every instance within
 * seconds and costs no query per visitor. A public route: registered in the
 * public scope, whose hook spends the caller's rate-limit budget (app.ts).
 */
export function siteInfoRoutes(deps: { settings: SettingsStore; emailNotifications: boolean }): FastifyPluginAsyncTypebox {
  const { settings, emailNotifications } = deps;
  return async (app) => {
    app.get('/site-info', {
      schema: {
        tags: ['public'],
        summary: 'Maintenance switch and contact details for the public pages',
        response: { 200: SiteInfoResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, async () => {
      const current = await settings.get();
      return { maintenance: current.maintenanceMode, contact_email: current.contactEmail, company_url: current.companyUrl, email_notifications: emailNotifications };
    });
  };
}
