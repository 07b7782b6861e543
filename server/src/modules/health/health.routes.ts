import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthResponse } from './health.schemas.ts';
import type { HealthService } from './health.service.ts';

/**
 * GET /health for load balancers and uptime monitors: public and not rate
 * limited (a monitor polls it every few seconds from one address), and kept
 * out of the audit trail like the metrics scrape (a row per poll, and
 * nobody's action).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{ service: HealthService }> = async (app, { service }) => {
  app.get('/health', {
    config: { audit: false },
    schema: {
      tags: ['health'],
      summary: 'Whether this server can take submissions: the node, the database and the mempool projection',
      response: { 200: HealthResponse, 503: HealthResponse },
    },
  }, async (_request, reply) => {
    const report = await service.check();
    return reply.status(report.status === 'ok' ? 200 : 503).header('cache-control', 'no-store').send(report);
  });
};
