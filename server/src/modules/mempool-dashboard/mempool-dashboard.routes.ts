import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../http/errors.ts';
import type { MempoolFeed } from '@slipstream/mempool-engine/queries/mempool-feed';
import { MempoolStateResponse } from './mempool-dashboard.schemas.ts';
import { createStateStreams } from './state-stream.ts';
import { streamLimits, type StreamLimits } from '../../http/sse-registry.ts';

/**
 * The live data behind the /mempool/ dashboard (docs/behaviour.md#mempool-view): the current state,
 * and a Server-Sent Events stream of every update. Register with the prefix
 * `/mempool`; the page itself is web/dist/mempool/index.html, served by the
 * app's static files.
 *
 * The pool's mempool is private until mined (docs/behaviour.md#private-until-mined), and these
 * aggregates of it too: `authorize` decides, before anything is read or a
 * stream opens (auth/mempool-view-access.ts: signed-in staff, or everyone
 * when the public mempool view setting is on). The page is static and
 * public; it sends the staff token it finds as a Bearer header, never in a
 * URL. An open stream is checked once, when it opens, so streams end after
 * `maxStreamMs`: the page reconnects with the token it holds then, and a
 * token that expired or a view made private takes effect within that time.
 * No per-request rate limit: the state is computed by the engine anyway,
 * and a read serialises one small object. What a stranger could exhaust is
 * sockets, so open streams are capped, in all and per address. Not in the
 * audit trail either, which records /rest-api calls.
 */

/** The stream limits default to the shared ones (http/sse-registry.ts), 16 streams per address: one per open dashboard tab, and a whole office may share an address. */
export interface MempoolDashboardOptions extends Partial<StreamLimits> {
  feed: MempoolFeed;
  /** Throws (an ApiError: 401, 503) when the request may not see the view; runs on onRequest, before the route. */
  authorize: (request: FastifyRequest) => Promise<void>;
}

export const NO_STATE_YET_MESSAGE = 'The mempool view is not ready yet: the first projection is still being computed. Please try again shortly.';

// A staff token, or none when the public mempool view setting is on (the document is the same whatever the setting).
const security: Array<Record<string, string[]>> = [{ bearer: [] }, {}];

const StreamResponse = {
  description:
    'Server-Sent Events: `event: state` with the state as one JSON data line (the shape of GET /mempool/api/state), ' +
    'the current state at once when there is one, then each update (at most one a second, the newest); ' +
    'a comment line every 15 s keeps the stream open; the stream ends after 5 minutes (reconnect, sending the token again).',
  content: { 'text/event-stream': { schema: Type.String() } },
};

export function mempoolDashboardRoutes(options: MempoolDashboardOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { feed } = options;
    const streams = createStateStreams({ feed, ...streamLimits(options, 16), log: app.log });
    // preClose, not onClose: the server stops only once every connection has
    // ended, and onClose hooks run after that. Streams never end on their own.
    app.addHook('preClose', async () => streams.closeAll());

    // A bare /mempool is the same page; its assets are absolute, but the
    // canonical address keeps links and the frame's src in one form.
    // (Without a prefix there is no bare form, and '/' must not redirect to itself.)
    if (app.prefix !== '') {
      app.get('', { schema: { hide: true } }, (request, reply) => {
        const query = request.url.indexOf('?');
        return reply.redirect(`${app.prefix}/${query === -1 ? '' : request.url.slice(query)}`, 301);
      });
    }

    app.get('/api/state', {
      onRequest: (request) => options.authorize(request),
      schema: {
        tags: ['mempool'],
        summary: 'The /mempool/ dashboard: projected blocks, fee histogram, recent blocks, the pool\'s share',
        security,
        response: { 200: MempoolStateResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, async (_request, reply) => {
      const state = feed.current();
      void reply.header('cache-control', 'no-cache');
      if (state === null) return reply.status(503).header('retry-after', '2').send({ status: 'error', message: NO_STATE_YET_MESSAGE });
      return state;
    });

    app.get('/api/stream', {
      onRequest: (request) => options.authorize(request),
      schema: {
        tags: ['mempool'],
        summary: 'The /mempool/ dashboard, live: Server-Sent Events of every new state',
        security,
        response: { 200: StreamResponse, 401: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, (request, reply) => {
      const refusal = streams.refusal(request.ip);
      if (refusal) {
        void reply.status(refusal.statusCode).header('retry-after', '10').send({ status: 'error', message: refusal.message });
        return;
      }
      // Headers other hooks set on the reply still go out with the stream.
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
      streams.attach(reply.raw, request.ip, headers);
      reply.hijack();
    });
  };
}
