import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeIP, type RateLimitPluginOptions } from '@fastify/rate-limit';
import { auditEndpoint } from '../audit/audit-endpoint.ts';
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
 * The rule of the door: every request a stranger can make spends that
 * budget before it can write a row in the audit trail. limitStrangerRequests
 * spends it for every audited request on the root instance (requests under
 * the API that no route takes, the sign-in configuration, anything a later
 * route adds outside a public scope), http/cors-policy.ts before it answers
 * a preflight, and app.ts before it answers a URL the router cannot decode.
 * Two kinds of route say otherwise in their config (`publicBudget`): staff
 * routes, whose scope spends it only for a request refused for its token
 * (signed-in staff are not limited by it, staff-scope.ts), and sign-in,
 * which has a tighter limit of its own. A request the budget refuses gets
 * 429 with Retry-After and writes no audit row: otherwise a stranger beyond
 * the budget would still write one per request (the request log and the
 * HTTP metrics still count it).
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Unset: the route's requests spend the public budget on the root hook.
     * `unless-signed-in`: a staff route (its scope spends it for a request refused for its token);
     * `own-limit`: a route with a per-address limit of its own (sign-in).
     */
    publicBudget?: 'unless-signed-in' | 'own-limit';
  }
  interface FastifyRequest {
    /** A per-address budget refused it (429): it writes no audit row. */
    refusedByRateLimit?: boolean;
  }
}

export type PublicRateLimit = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The options of @fastify/rate-limit for the portal: no limit unless a route
 * or a budget asks for one; a refusal in the API's error shape (429 with
 * Retry-After), marked so that it writes no audit row; the counters in
 * `store` (http/rate-limit-store.ts: shared by every instance with
 * REDIS_URL) or, without, in this instance's memory.
 */
export function rateLimitPluginOptions(store: RateLimitPluginOptions['store']): RateLimitPluginOptions {
  return {
    global: false,
    ...(store ? { store } : {}),
    errorResponseBuilder: (request, context) => {
      request.refusedByRateLimit = true;
      return {
        statusCode: 429,
        status: 'error',
        message: `Too many requests. Please retry in ${Math.ceil(context.ttl / 1000)} seconds.`,
      };
    },
  };
}

/** Needs @fastify/rate-limit registered on `app` (its answer to an exceeded budget: 429, Retry-After). */
export function createPublicRateLimit(app: FastifyInstance, limit: { max: number; windowMs: number }): PublicRateLimit {
  const handler = app.rateLimit({
    max: limit.max,
    timeWindow: limit.windowMs,
    // The plugin's own grouping (an IPv4 address, an IPv6 client's /64), under the budget's name: counters
    // shared between instances (REDIS_URL) are keyed by it, and no other limit may count in this one.
    keyGenerator: (request) => `public:${normalizeIP(request.ip)}`,
  });
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
 * Every audited request spends the public budget, before its body is read,
 * unless its route's config says who else decides (`publicBudget`); once it
 * is spent they get its 429. Registered on the root instance, whose hooks run
 * for every route and the not-found handler alike, after the CORS policy's
 * (so that a page can read a 429's Retry-After). A request spends the budget
 * once, whichever hooks ask.
 */
export function limitStrangerRequests(app: FastifyInstance, rateLimit: PublicRateLimit): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.publicBudget !== undefined) return;
    if (auditEndpoint(request) === undefined) return;
    await rateLimit(request, reply);
  });
}

/**
 * For a request answered outside Fastify's hooks (a URL the router cannot
 * decode, app.ts): spends the public budget when the request is audited, and
 * says what to answer when it refuses (its 429, Retry-After already set on
 * `reply`), or null to go on.
 */
export async function spendOutsideHooks(rateLimit: PublicRateLimit, request: FastifyRequest, reply: FastifyReply): Promise<{ statusCode: number; message: string } | null> {
  try {
    await rateLimit(request, reply);
    return null;
  } catch (error) {
    const refusal = error as { statusCode?: unknown; message?: unknown };
    if (refusal.statusCode === 429 && typeof refusal.message === 'string') return { statusCode: 429, message: refusal.message };
    throw error;
  }
}
