import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { routerPath } from '../audit/audit-endpoint.ts';
import type { PublicRateLimit } from './public-scope.ts';

/**
 * Cross-origin access (README, "Using an existing Slipstream client").
 *
 * The public API (every route of a public scope: `/api/*` and the public
 * `/rest-api/*` ones) answers CORS for any origin, or only for those of
 * CORS_ORIGINS when it is set: a page elsewhere may read rates, submit and
 * poll from the user's browser tab. Never with credentials: no public answer
 * depends on cookies, and `*` keeps a browser from sending them. A
 * preflight may ask for POST with `content-type: application/json` (and
 * `authorization`, for the dry run's key); `Retry-After` is exposed so that
 * a page can honour a 429.
 *
 * Everything else (staff routes, login, metrics, health, the mempool view,
 * the docs) gives no CORS to another origin at all, whatever CORS_ORIGINS
 * says: the staff dashboard is served by the portal itself, same-origin.
 *
 * A preflight is a request a stranger can make like any other, and costs a
 * row in the audit trail: it spends the public per-address budget
 * (http/public-scope.ts) before it is answered. The plugin therefore only
 * sets the headers (it would otherwise answer a preflight in its own hook,
 * before any limit could run) and the hook below answers, once the budget
 * allowed it.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by @fastify/cors on a preflight it approved (its own request decorator, untyped there). */
    corsPreflightEnabled?: boolean;
  }
}

export interface CorsPolicy {
  /** Marks the routes registered in `scope` as public (a hook on route registration). */
  markPublic(scope: FastifyInstance): void;
}

/** The `/api` tree is public throughout, routed or not: a preflight to a path no route takes gets a 404 it can read. */
const SLIPSTREAM_API_PATH = /^\/api(\/|$)/;

export async function registerCorsPolicy(app: FastifyInstance, corsOrigins: readonly string[], budget: PublicRateLimit): Promise<CorsPolicy> {
  const publicPatterns = new Set<string>();
  const allowed = new Set(corsOrigins);
  const isPublic = (request: FastifyRequest): boolean => {
    const pattern = request.routeOptions.url;
    // A real request is judged by the route it reached; a preflight (CORS's catch-all OPTIONS *) or an unrouted one by its path.
    if (pattern !== undefined && pattern !== '*' && pattern !== '/*' && !request.is404) return publicPatterns.has(pattern);
    const path = routerPath(request.url);
    return SLIPSTREAM_API_PATH.test(path) || publicPatterns.has(path);
  };
  await app.register(cors, {
    // For a request it refuses, the plugin adds nothing at all, and its preflight falls through to a 404.
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      const open = isPublic(request) && (allowed.size === 0 || (origin !== undefined && allowed.has(origin)));
      callback(null, {
        origin: open ? (allowed.size === 0 ? '*' : origin!) : false,
        credentials: false,
        methods: ['GET', 'HEAD', 'POST'],
        allowedHeaders: ['content-type', 'authorization'],
        exposedHeaders: ['retry-after'],
        maxAge: 600,
        // Headers only: the preflight is answered below, after the budget.
        preflightContinue: true,
        strictPreflight: false,
      });
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.corsPreflightEnabled) return;
    await budget(request, reply);
    // What the plugin answers itself: a preflight names its origin and method (Fetch standard, "CORS-preflight request");
    // a 204 with Content-Length 0, which some browsers wait for.
    if (!request.headers.origin || !request.headers['access-control-request-method']) return reply.status(400).type('text/plain').send('Invalid Preflight Request');
    return reply.status(204).header('content-length', '0').send();
  });
  return {
    markPublic(scope) {
      scope.addHook('onRoute', (route) => {
        publicPatterns.add(route.url);
      });
    },
  };
}
