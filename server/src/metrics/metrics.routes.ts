import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, ErrorResponse } from '../http/errors.ts';
import type { MetricsService } from './metrics.service.ts';
import { DEFAULT_SUMMARY_DAYS, PROMETHEUS_CONTENT_TYPE, ScrapeResponse, SummaryQuery, SummaryResponse } from './metrics.schemas.ts';

export const METRICS_TOKEN_MESSAGE = 'The metrics need the scrape token: send it as a Bearer token.';

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

export interface MetricsRoutesOptions {
  service: MetricsService;
  /** When set, a scrape must send it as a Bearer token; unset, the scrape is open. */
  token: string | undefined;
}

/** GET /metrics for Prometheus. Kept out of the audit trail: every scrape would add a row. */
export const metricsRoutes: FastifyPluginAsyncTypebox<MetricsRoutesOptions> = async (app, { service, token }) => {
  app.get('/metrics', {
    config: { audit: false },
    schema: {
      tags: ['metrics'],
      summary: 'Prometheus metrics (text format); needs the scrape token as a Bearer token when METRICS_TOKEN is set',
      // Open, or the scrape token (the document is the same whatever this server's configuration).
      security: [{}, { bearer: [] }],
      response: { 200: { description: 'Prometheus text format', content: { [PROMETHEUS_CONTENT_TYPE]: { schema: ScrapeResponse } } }, 401: ErrorResponse, 503: ErrorResponse },
    },
    onRequest: async (request, reply) => {
      if (token === undefined || bearerMatches(token, request.headers.authorization)) return;
      void reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new ApiError(401, METRICS_TOKEN_MESSAGE);
    },
  }, async (_request, reply) => reply.type(service.contentType).send(await service.scrape()));
};

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
