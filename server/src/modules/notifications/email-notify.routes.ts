import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { addressGroup } from '../../http/sse-registry.ts';
import type { EmailNotifyService } from './email-notify.service.ts';

/**
 * "Email me when it is mined", from the status page: a public route (in the
 * public scope, spending the caller's rate-limit budget), for transactions
 * the portal recorded only, like status-check, and within the caller's
 * address group's day's share of new ones (429 past it). The field is `notify_email`
 * so the audit trail stores it redacted: the address is kept nowhere but the
 * subscription row, which is deleted once the final event is mailed.
 */

const NotifyEmailBody = Type.Object(
  {
    txid: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'A transaction submitted through this portal' }),
    notify_email: Type.String({ minLength: 3, maxLength: 254, description: 'Where to send one email when the transaction is mined (or leaves the mempool for good)' }),
  },
  { additionalProperties: false },
);

const NotifyEmailResponse = Type.Object({ status: Type.Literal('success'), message: Type.String() });

export function emailNotifyRoutes(emailNotify: EmailNotifyService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/notify-email', {
      schema: {
        tags: ['public'],
        summary: 'Ask for one email when a transaction submitted here is mined',
        body: NotifyEmailBody,
        response: { 200: NotifyEmailResponse, 400: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => emailNotify.subscribe(request.body.txid, request.body.notify_email, addressGroup(request.ip)));
  };
}
