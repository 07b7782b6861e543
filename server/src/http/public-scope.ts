import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { pathReachesApi } from '../audit/audit-endpoint.ts';
import { PUBLIC_ROUTE_NODE_CALLS, type NodeCallMeter } from './node-call-budget.ts';

/**
 * The public API's rate limit is one budget per client address (README:
 * RATE_LIMIT_MAX, "Public API requests per client IP per window"), spent by
 * every public route alike: spreading requests over several endpoints buys
 * no more of them. createPublicRateLimit() makes the one limiter (one
 * counter store, keyed by the client's address as TRUST_PROXY resolves it);
 * every public scope runs that same limiter on onRequest, before any body is
 * read. A second public API (`/api/*`) joins the budget by registering its
 * routes in a publicScope given the same limiter.
 *
 * Strangers' requests outside the public routes spend it too, as each costs
 * a row in the audit trail: requests under the API that no route takes
 * (limitUnroutedApiRequests) and staff requests refused for a missing or
 * invalid token (staff-scope.ts). Signed-in staff are not limited by it.
 */

export type PublicRateLimit = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Needs @fastify/rate-limit registered on `app` (its answer to an exceeded budget: 429, Retry-After). */
export function createPublicRateLimit(app: FastifyInstance, limit: { max: number; windowMs: number }): PublicRateLimit {
  const handler = app.rateLimit({ max: limit.max, timeWindow: limit.windowMs });
  return (request, reply) => handler.call(app, request, reply);
}

export interface PublicScopeOptions {
  rateLimit: PublicRateLimit;
  /** Marks the scope's routes as public for CORS (http/cors-policy.ts): any origin, no credentials. */
  cors?: { markPublic(scope: FastifyInstance): void };
  /** Holds each route PUBLIC_ROUTE_NODE_CALLS lists to its node calls per request (http/node-call-budget.ts). */
  nodeCalls?: NodeCallMeter;
  /** Registers the scope's routes. */
  routes: (scope: FastifyInstance) => Promise<unknown>;
}

export const publicScope: FastifyPluginAsync<PublicScopeOptions> = async (scope, { rateLimit, cors, nodeCalls, routes }) => {
  cors?.markPublic(scope);
  scope.addHook('onRequest', rateLimit);
  if (nodeCalls) meterNodeCalls(scope, nodeCalls);
  await routes(scope);
};

/** Each handler of a route with a node call budget answers inside it: the one place the budget is enforced. */
function meterNodeCalls(scope: FastifyInstance, meter: NodeCallMeter): void {
  scope.addHook('onRoute', (route) => {
    // Fastify adds a HEAD route beside each GET, with the same handler.
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => (m === 'HEAD' ? 'GET' : m));
    const key = methods.map((m) => `${m} ${route.url}`).find((k) => PUBLIC_ROUTE_NODE_CALLS[k] !== undefined);
    if (key === undefined) return;
    const limit = PUBLIC_ROUTE_NODE_CALLS[key]!;
    const handler = route.handler;
    route.handler = function metered(this: FastifyInstance, request, reply) {
      return meter.run(key, limit, () => handler.call(this, request, reply));
    };
  });
}

/**
 * Requests whose path lies under the API (as the audit trail reads it) but
 * that no route takes spend the public budget, before their body is read;
 * once it is spent they get its 429. Registered on the root instance, whose
 * hooks the not-found handler runs.
 */
export function limitUnroutedApiRequests(app: FastifyInstance, rateLimit: PublicRateLimit): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404 && pathReachesApi(request.url)) await rateLimit(request, reply);
  });
}
