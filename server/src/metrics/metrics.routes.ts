import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MempoolViewAccess } from '../auth/mempool-view-access.ts';
import { ApiError, ErrorResponse } from '../http/errors.ts';
import type { MetricsService } from './metrics.service.ts';
import { DEFAULT_SUMMARY_DAYS, PROMETHEUS_CONTENT_TYPE, ScrapeResponse, SummaryQuery, SummaryResponse } from './metrics.schemas.ts';

export const METRICS_TOKEN_MESSAGE = 'The metrics need the scrape token: send it as a Bearer token.';
/** Without METRICS_TOKEN, and with the public mempool view off: the scrape describes the private mempool. */
export const METRICS_PRIVATE_MESSAGE = 'The metrics are private: send a staff token as a Bearer token (or set METRICS_TOKEN for the scraper).';

/**
 * Compares in constant time (the digests have equal length whatever was
 * sent), so the response time says nothing about how much of a guess was right.
 */
export function bearerMatches(expected: string, authorization: string | undefined): boolean {
  const sent = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (sent === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

export interface MetricsRoutesDeps {
  metrics: MetricsService;
  /** When set, a scrape must send it as a Bearer token. */
  token: string | undefined;
  /**
   * Unset token: the scrape describes the private mempool, so it is for
   * those the mempool view is open to (a staff token, or anyone when the
   * public mempool view setting is on).
   */
  access: MempoolViewAccess;
}

/** GET /metrics for Prometheus. Kept out of the audit trail: every scrape would add a row. */
export function metricsRoutes(deps: MetricsRoutesDeps): FastifyPluginAsyncTypebox {
  const { metrics, token, access } = deps;
  return async (app) => {
    app.get('/metrics', {
      config: { audit: false },
      schema: {
        tags: ['metrics'],
        summary: 'Prometheus metrics (text format): the scrape token as a Bearer token when METRICS_TOKEN is set; otherwise a staff token, or nothing when the public mempool view setting is on',
        // The scrape token, a staff token, or none (the document is the same whatever this server's configuration).
        security: [{}, { bearer: [] }],
        response: { 200: { description: 'Prometheus text format', content: { [PROMETHEUS_CONTENT_TYPE]: { schema: ScrapeResponse } } }, 401: ErrorResponse, 503: ErrorResponse },
      },
      onRequest: async (request, reply) => {
        try {
          if (token !== undefined) {
            if (!bearerMatches(token, request.headers.authorization)) throw new ApiError(401, METRICS_TOKEN_MESSAGE);
          } else {
            await access.require(request, METRICS_PRIVATE_MESSAGE);
          }
        } catch (error) {
          if (error instanceof ApiError && error.statusCode === 401) void reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw error;
        }
      },
    }, async (_request, reply) => reply.type(metrics.contentType).send(await metrics.scrape()));
  };
}

/** The staff /metrics page's figures: any signed-in staff member. */
export function metricsSummaryRoutes(service: MetricsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/metrics/summary', {
      schema: {
        tags: ['staff'],
        summary: 'Submissions, failures, acceptance and revenue per UTC day, and the node\'s health now',
        security: [{ bearer: [] }],
        querystring: SummaryQuery,
        response: { 200: SummaryResponse, 400: ErrorResponse, 401: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.summary(request.query.days ?? DEFAULT_SUMMARY_DAYS));
  };
}
