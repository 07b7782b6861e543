import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MempoolViewAccess } from '../../auth/mempool-view-access.ts';
import { HealthResponse } from './health.schemas.ts';
import type { HealthService } from './health.service.ts';

/**
 * GET /health for load balancers and uptime monitors: public and not rate
 * limited (a monitor polls it every few seconds from one address), and kept
 * out of the audit trail like the metrics scrape (a row per poll, and
 * nobody's action). Everyone gets the status and its code; the checks
 * describe the private mempool, so only those the mempool view is open to
 * get them (`access`: signed-in staff, or everyone when it is public).
 */
export function healthRoutes(deps: { health: HealthService; access: MempoolViewAccess }): FastifyPluginAsyncTypebox {
  const { health, access } = deps;
  return async (app) => {
    app.get('/health', {
      config: { audit: false },
      schema: {
        tags: ['health'],
        summary: 'Whether this server can take submissions: the node, the database and the mempool projection',
        // Anyone for the status; the checks with a staff token (or for anyone when the public mempool view is on).
        security: [{}, { bearer: [] }],
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    }, async (request, reply) => {
      const [report, detailed] = await Promise.all([health.check(), access.allows(request)]);
      return reply
        .status(report.status === 'ok' ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(detailed ? report : { status: report.status });
    });
  };
}
