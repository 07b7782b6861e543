import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { pathReachesApi, unroutedEndpoint } from './audit/audit-endpoint.ts';
import { auditRefusedBeforeRouting, registerAuditHooks } from './audit/audit.hooks.ts';
import { staffScope } from './auth/staff-scope.ts';
import { staffMeRoutes } from './auth/staff.routes.ts';
import { loginRoutes } from './auth/login.routes.ts';
import { signInConfigRoutes } from './auth/sign-in-config.routes.ts';
import { isDatabaseUnavailable } from './db/database.ts';
import { createClientErrorHandler } from './http/client-errors.ts';
import { ApiError, SERVICE_UNAVAILABLE_MESSAGE } from './http/errors.ts';
import { createJsonBodyParser } from './http/json-body-parser.ts';
import { DEFAULT_HTTP_TIMEOUTS, serverTimeoutOptions, type HttpTimeouts } from './http/http-timeouts.ts';
import { registerCorsPolicy } from './http/cors-policy.ts';
import { createPublicRateLimit, limitStrangerRequests, publicScope, rateLimitPluginOptions, spendOutsideHooks, type PublicRateLimit } from './http/public-scope.ts';
import { withRequestLogSerializer } from './http/request-log.ts';
import { createSecurityHeaders, originOf } from './http/security-headers.ts';
import { refuseUnstorableText } from './http/text-guard.ts';
import { registerMetricsHooks } from './metrics/metrics.hooks.ts';
import { metricsRoutes, metricsSummaryRoutes } from './metrics/metrics.routes.ts';
import { auditLogAdminRoutes, auditLogViewRoutes } from './modules/audit-logs/audit-logs.routes.ts';
import { changeLogRoutes } from './modules/change-logs/change-logs.routes.ts';
import { clientApiKeyAdminRoutes } from './modules/clients/api-keys.routes.ts';
import { clientAdminRoutes, clientViewRoutes } from './modules/clients/clients.routes.ts';
import { SLIPSTREAM_API_TAG, slipstreamApiRoutes } from './modules/slipstream-api/slipstream-api.routes.ts';
import { discountAdminRoutes, discountViewRoutes } from './modules/discounts/discounts.routes.ts';
import { failedTxAdminRoutes, failedTxViewRoutes } from './modules/failed-txs/failed-txs.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { mempoolDashboardRoutes } from './modules/mempool-dashboard/mempool-dashboard.routes.ts';
import { settingsAdminRoutes, settingsViewRoutes } from './modules/settings/settings.routes.ts';
import { siteInfoRoutes } from './modules/settings/site-info.routes.ts';
import { statusRoutes } from './modules/status/status.routes.ts';
import { statusStreamRoutes } from './modules/status/status-stream.routes.ts';
import { submissionRoutes } from './modules/submission/submission.routes.ts';
import { clientWebhookAdminRoutes, clientWebhookViewRoutes } from './modules/notifications/client-webhooks.routes.ts';
import { emailNotifyRoutes } from './modules/notifications/email-notify.routes.ts';
import { txPullerRoutes } from './modules/tx-puller/tx-puller.routes.ts';
import { jwksRoutes, RECEIPTS_TAG, receiptProofRoutes } from './modules/receipts/receipts.routes.ts';
import { synchroTableRoutes } from './modules/synchro-table/synchro-table.routes.ts';
import { txReportRoutes } from './modules/tx-reports/tx-reports.routes.ts';
import type { Services } from './services.ts';

/** How the HTTP application behaves; what it serves comes from the services (services.ts). */
export interface AppOptions {
  rateLimit: { max: number; windowMs: number };
  /** Status-page live streams open at once, in all and per address (STATUS_STREAM_MAX, STATUS_STREAM_MAX_PER_IP); the stream's defaults without. */
  statusStreams?: { maxStreams: number; maxStreamsPerIp: number };
  /** Fastify's trustProxy: false, true (every hop), a hop count, or the proxies' addresses/CIDRs. */
  trustProxy: boolean | number | string[];
  /** Origins whose pages may call the public API cross-origin (CORS_ORIGINS); unset or empty: any origin. Never the staff API (http/cors-policy.ts). */
  corsOrigins?: readonly string[];
  auditPayloadMaxChars: number;
  webDistDir?: string;
  /** When set, GET /rest-api/metrics needs it as a Bearer token; unset, a staff token (or nothing when the public mempool view setting is on). */
  metricsToken?: string | undefined;
  logger?: FastifyServerOptions['logger'];
  /** How long a request may take to arrive, and idle connections stay (HTTP_*_TIMEOUT_MS); DEFAULT_HTTP_TIMEOUTS without. */
  httpTimeouts?: HttpTimeouts;
  version?: string;
}

/** Builds the HTTP application. Never listens and never reads the environment (docs/architecture.md, convention 3). */
export async function buildApp(services: Services, options: AppOptions) {
  const securityHeaders = createSecurityHeaders({ identityProviderOrigins: services.staff ? [originOf(services.staff.signIn.issuer)] : [] });
  const app = Fastify({
    // A request trickled in a byte at a time is cut off (http/http-timeouts.ts).
    ...serverTimeoutOptions(options.httpTimeouts ?? DEFAULT_HTTP_TIMEOUTS),
    // Request lines log the path without its query string (http/request-log.ts).
    logger: withRequestLogSerializer(options.logger),
    // A hop count as Fastify reads one (its typings only name the other forms).
    trustProxy: typeof options.trustProxy === 'number' ? trustHops(options.trustProxy) : options.trustProxy,
    // Refuse unknown fields rather than silently dropping them (no mass assignment).
    ajv: { customOptions: { removeAdditional: false, allErrors: false } },
    // A URL Fastify cannot decode (`/rest-api/client/update/%zz`) is answered before any hook runs: in the API's error shape, with the security headers.
    frameworkErrors: (error, request, reply) => {
      securityHeaders.apply(request, reply);
      void answerRefusedBeforeRouting(error, request, reply);
    },
    // Requests Node's HTTP parser refuses (headers too large, not HTTP) never reach Fastify: answered on the socket, in the same shape and headers.
    clientErrorHandler: createClientErrorHandler(securityHeaders),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // First, so that every response carries them, whatever refuses the request later.
  securityHeaders.register(app);

  // The one per-address budget of the public door (http/public-scope.ts), made once the rate-limit plugin is registered.
  const door: { budget?: PublicRateLimit } = {};
  /**
   * A request the router refuses (a path it cannot decode, a parameter over its length limit) is answered here,
   * before any hook runs: in the API's error shape, and under the API once the public budget allowed it, as every
   * audited request a stranger makes. No hook runs for these either: the audit trail is told directly.
   */
  async function answerRefusedBeforeRouting(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const audited = unroutedEndpoint(request.url) !== undefined;
    try {
      const refusal = audited && door.budget ? await spendOutsideHooks(door.budget, request, reply) : null;
      if (refusal) {
        await reply.status(refusal.statusCode).send({ status: 'error', message: refusal.message });
        return;
      }
    } catch (failure) {
      request.log.error({ err: failure }, 'Rate limit unavailable');
      await reply.status(500).send({ status: 'error', message: 'Something went wrong on the server.' });
      return;
    }
    const body = { status: 'error', message: error.code === 'FST_ERR_BAD_URL' ? 'The address is not a valid URL.' : error.message };
    await reply.status(400).send(body);
    auditRefusedBeforeRouting(services.audit, request, reply, JSON.stringify(body), options.auditPayloadMaxChars);
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      if (error.staffDetail !== undefined) request.auditErrorDetail = error.staffDetail;
      return reply.status(error.statusCode).send({ status: 'error', message: error.message, ...error.extra });
    }
    if (error.validation) return reply.status(400).send({ status: 'error', message: validationMessage(error) });
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.status(413).send({ status: 'error', message: 'The request body is too large.' });
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ status: 'error', message: error.message });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'Database unavailable');
      return reply.status(503).send({ status: 'error', message: SERVICE_UNAVAILABLE_MESSAGE });
    }
    // The details go to the log; a stranger gets no stack trace.
    request.log.error({ err: error }, 'Unhandled error');
    return reply.status(500).send({ status: 'error', message: 'Something went wrong on the server.' });
  });

  const json = createJsonBodyParser();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request: unknown, body: Buffer | string) => json.parse(body as Buffer));
  app.addHook('onClose', () => json.close());
  // Text that cannot be stored as sent (NUL, unpaired surrogates) is refused with a 400, before any service runs.
  app.addHook('preValidation', refuseUnstorableText);

  registerAuditHooks(app, services.audit, options.auditPayloadMaxChars);
  registerMetricsHooks(app, services.metrics);
  app.addHook('onClose', async () => {
    await services.records.close();
    await services.audit.close();
  });

  // Per-address limits count in this instance's memory, or in the store every instance shares (REDIS_URL).
  await app.register(rateLimit, rateLimitPluginOptions(services.rateLimitStore));
  // One rate-limit budget per client IP for the whole public door (http/public-scope.ts).
  const budget = createPublicRateLimit(app, options.rateLimit);
  door.budget = budget;
  // The public API answers CORS for any origin (or CORS_ORIGINS), without credentials; the rest to none. A preflight spends the budget first.
  const cors = await registerCorsPolicy(app, options.corsOrigins ?? [], budget);
  // After the CORS policy's hook, so that a 429 carries its headers: every audited request spends the budget, unless its route's scope decides.
  limitStrangerRequests(app, budget);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Direct Transaction Submission Portal API',
        description: "Submit large or non-standard Bitcoin transactions, singly or as a package, straight into a mining pool's mempool.",
        version: options.version ?? '0.1.0',
      },
      tags: [
        { name: 'public', description: 'Open to everyone, rate limited per IP' },
        {
          name: SLIPSTREAM_API_TAG,
          description:
            'The Slipstream-compatible public API (/api/*): the same pricing, records, audit trail, rate limit and node verdicts as the public /rest-api routes, in the field names of the "Slipstream Beta API" its clients call; and block-explorer (Esplora) reads of the transactions submitted here. Open to everyone (the dry run needs an API key or a staff token), rate limited per IP in one budget with the public /rest-api routes, CORS for any origin',
        },
        {
          name: RECEIPTS_TAG,
          description:
            "Receipts of accepted submissions: the pool's published keys (/.well-known/jwks.json) and, for whoever holds a receipt of a mined transaction, its merkle inclusion proof. Open to everyone, rate limited per IP in the public budget, CORS for any origin",
        },
        { name: 'staff', description: "Signed-in staff: the identity provider's ID token as a Bearer token" },
        { name: 'mempool', description: "The /mempool/ dashboard's live data: signed-in staff (or everyone when the public mempool view setting is on), not rate limited" },
        { name: 'metrics', description: 'Prometheus scrape: METRICS_TOKEN as a Bearer token when set; otherwise a staff token, or open when the public mempool view setting is on' },
        { name: 'health', description: 'For load balancers and monitors: the status for everyone, the checks for staff (or everyone when the public mempool view setting is on); not rate limited, not audited' },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/swagger-ui' });

  await app.register(publicScope, {
    prefix: '/rest-api',
    rateLimit: budget,
    cors,
    nodeCalls: services.nodeCalls,
    routes: async (scope) => {
      await scope.register(submissionRoutes({ service: services.submission, webhooks: services.webhooks, network: services.network }));
      await scope.register(statusRoutes(services.status));
      await scope.register(statusStreamRoutes({ status: services.status, feed: services.mempool.feed, ...options.statusStreams }));
      await scope.register(siteInfoRoutes({ settings: services.settings, emailNotifications: services.emailNotify.enabled }));
      await scope.register(emailNotifyRoutes(services.emailNotify));
    },
  });
  // The Slipstream-compatible API: the same services and the same per-address budget, its own wire shapes.
  await app.register(publicScope, {
    prefix: '/api',
    rateLimit: budget,
    cors,
    nodeCalls: services.nodeCalls,
    routes: async (scope) => {
      await scope.register(
        slipstreamApiRoutes({
          submission: services.submission,
          status: services.status,
          slipstreamApi: services.slipstreamApi,
          network: services.network,
          version: options.version ?? '0.1.0',
          verifier: services.staff?.verifier,
          webhooks: services.webhooks,
        }),
      );
      await scope.register(receiptProofRoutes(services.receipts));
    },
  });
  // The receipt keys at their well-known address (RFC 8615): public, in the same per-address budget.
  await app.register(publicScope, {
    prefix: '/.well-known',
    rateLimit: budget,
    cors,
    nodeCalls: services.nodeCalls,
    routes: async (scope) => {
      await scope.register(jwksRoutes(services.receipts));
    },
  });
  // The private mempool's aggregates (the /mempool/ view, health details, an open scrape): staff, or everyone when the setting says so.
  const { mempoolView } = services;
  await app.register(metricsRoutes({ metrics: services.metricsService, token: options.metricsToken, access: mempoolView }), { prefix: '/rest-api' });
  await app.register(healthRoutes({ health: services.health, access: mempoolView }), { prefix: '/rest-api' });

  const { staff } = services;
  if (staff) {
    await app.register(loginRoutes(staff.login), { prefix: '/rest-api' });
    await app.register(signInConfigRoutes(staff.signIn), { prefix: '/rest-api' });
    await app.register(staffScope, {
      prefix: '/rest-api',
      verifier: staff.verifier,
      rateLimit: budget,
      viewRoutes: [
        staffMeRoutes(),
        auditLogViewRoutes(services.auditLogs),
        clientViewRoutes(services.clients),
        clientWebhookViewRoutes(services.clientWebhooks),
        discountViewRoutes(services.discounts),
        settingsViewRoutes(services.settingsAdmin),
        changeLogRoutes(services.changeLogs),
        failedTxViewRoutes(services.failedTxs),
        metricsSummaryRoutes(services.metricsService),
        txPullerRoutes(services.txPuller),
        txReportRoutes(services.txReports),
        synchroTableRoutes(services.synchroTable),
      ],
      adminRoutes: [
        auditLogAdminRoutes(services.auditLogs),
        clientAdminRoutes(services.clients),
        clientApiKeyAdminRoutes(services.apiKeys),
        clientWebhookAdminRoutes(services.clientWebhooks),
        discountAdminRoutes(services.discounts),
        settingsAdminRoutes(services.settingsAdmin),
        failedTxAdminRoutes(services.failedTxs),
      ],
    });
  }

  await app.register(mempoolDashboardRoutes({ feed: services.mempool.feed, authorize: (request) => mempoolView.require(request) }), { prefix: '/mempool' });

  await registerWebApp(app, options.webDistDir);
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;

/** Serves the built web app, answering deep links with index.html (history routing). */
async function registerWebApp(app: App, distDir: string | undefined): Promise<void> {
  const hasWeb = distDir !== undefined && existsSync(path.join(distDir, 'index.html'));
  if (hasWeb) await app.register(fastifyStatic, { root: distDir, wildcard: false });
  app.setNotFoundHandler((request, reply) => {
    // The API prefix however it is spelt (`/%72est-api/x`, `/REST-API/x`), as the audit trail reads it: an unknown
    // API path is a 404 in the API's shape, never a 200 page the trail would file as a success.
    const backend = pathReachesApi(request.url) || /^\/(swagger-ui|mempool)(\/|$)/.test(request.url);
    if (hasWeb && request.method === 'GET' && !backend) return reply.type('text/html').sendFile('index.html');
    return reply.status(404).send({ status: 'error', message: `No such endpoint: ${request.method} ${request.url.split('?')[0]}` });
  });
}

/** Trusts the `hops` nearest addresses (the socket's peer is hop 0): proxy-addr then takes the first address beyond them. */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (first?.keyword === 'additionalProperties') {
    const field = (first.params as { additionalProperty?: string }).additionalProperty;
    return `Unknown field '${field}' in the ${error.validationContext ?? 'request'}.`;
  }
  return error.message;
}
