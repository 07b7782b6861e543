import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { ErrorResponse } from '../../http/errors.ts';
import { StatusQuery } from './status.schemas.ts';
import type { StatusService } from './status.service.ts';
import { createStatusStreams } from './status-stream.ts';
import { streamLimits, type StreamLimits } from '../../http/sse-registry.ts';

/** The stream limits default to the shared ones (http/sse-registry.ts), 4 streams per address: a status page or two per visitor. */
export interface StatusStreamRoutesDeps extends Partial<StreamLimits> {
  status: StatusService;
  feed: MempoolFeed;
}

const StreamResponse = {
  description:
    'Server-Sent Events: `event: status` with the answer of GET /rest-api/status-check as one JSON data line, ' +
    'at once, then whenever it changes (the projection or the chain tip moved; at most one a second); ' +
    'a comment line every 15 s keeps the stream open; the stream ends after 5 minutes (reconnect).',
  content: { 'text/event-stream': { schema: Type.String() } },
};

/**
 * A public route: registered in the public scope, whose hook spends the
 * caller's rate-limit budget on every (re)connection (app.ts); open streams
 * are capped per address and in all.
 */
export function statusStreamRoutes(deps: StatusStreamRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { status } = deps;
    const streams = createStatusStreams({ feed: deps.feed, check: (txid) => status.check(txid), ...streamLimits(deps, 4), log: app.log });
    // preClose, not onClose: the server stops only once every connection has ended.
    app.addHook('preClose', async () => streams.closeAll());

    app.get('/status-stream', {
      schema: {
        tags: ['public'],
        summary: 'Where a transaction is, live: Server-Sent Events of the status-check answer',
        querystring: StatusQuery,
        response: { 200: StreamResponse, 400: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, async (request, reply) => {
      const refusal = streams.refusal(request.ip);
      if (refusal) return reply.status(refusal.statusCode).header('retry-after', '10').send({ status: 'error', message: refusal.message });
      // The first answer before the stream opens: a bad or unknown txid gets the status check's own error.
      const txid = request.query.tx_id.trim().toLowerCase();
      const first = await status.check(txid);
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
      // Fastify's hooks never see a hijacked response end: its audit row is written when the stream ends.
      streams.attach(reply.raw, request.ip, txid, first, headers, request.auditStreamStarted?.());
      return reply.hijack();
    });
  };
}
