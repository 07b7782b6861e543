import type { FastifyInstance } from 'fastify';
import { submissionOutcome, UNMATCHED_ROUTE, type Metrics, type SubmissionKind } from './metrics-registry.ts';

/**
 * Request metrics from one onResponse hook on the root instance, so that
 * every route (and requests refused before a handler ran: bad JSON, too
 * large, rate limited) is measured. Durations are labelled by route pattern,
 * never the URL, to keep the series bounded.
 *
 * Submissions are counted from the answers of the two submit routes rather
 * than inside the submission service: the status code already says how it
 * ended (see submissionOutcome).
 */

const SUBMIT_ROUTES: Record<string, SubmissionKind> = {
  '/rest-api/submit-tx': 'tx',
  '/rest-api/submit-package': 'package',
};

export function registerMetricsHooks(app: FastifyInstance, metrics: Pick<Metrics, 'httpDuration' | 'submissions'>): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    metrics.httpDuration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    const kind = request.method === 'POST' ? SUBMIT_ROUTES[route] : undefined;
    const outcome = kind && submissionOutcome(reply.statusCode);
    if (kind && outcome) metrics.submissions.inc({ kind, outcome });
  });
}
