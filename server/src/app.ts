import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AuditWriter } from './audit/audit-writer.ts';
import { pathReachesApi } from './audit/audit-endpoint.ts';
import { auditRefusedBeforeRouting, registerAuditHooks } from './audit/audit.hooks.ts';
import { createMempoolViewAccess } from './auth/mempool-view-access.ts';
import { staffScope } from './auth/staff-scope.ts';
import { staffMeRoutes } from './auth/staff.routes.ts';
import type { TokenVerifier } from './auth/token-verifier.ts';
import type { LocalLoginService } from './auth/local-login.service.ts';
import { loginRoutes } from './auth/login.routes.ts';
import { signInConfigRoutes, type SignInConfig } from './auth/sign-in-config.routes.ts';
import type { RpcClient } from './bitcoin/rpc-client.ts';
import { DEFAULT_BYTES_PER_SIGOP } from './bitcoin/sigops.ts';
import { isDatabaseUnavailable, type Database } from './db/database.ts';
import { createClientErrorHandler } from './http/client-errors.ts';
import { ApiError, SERVICE_UNAVAILABLE_MESSAGE } from './http/errors.ts';
import { createJsonBodyParser } from './http/json-body-parser.ts';
import { DEFAULT_HTTP_TIMEOUTS, serverTimeoutOptions, type HttpTimeouts } from './http/http-timeouts.ts';
import { createPublicRateLimit, limitUnroutedApiRequests, publicScope } from './http/public-scope.ts';
import { withRequestLogSerializer } from './http/request-log.ts';
import { createSecurityHeaders, originOf } from './http/security-headers.ts';
import { refuseUnstorableText } from './http/text-guard.ts';
import type { Clock } from './lib/clock.ts';
import { createMetrics, type Metrics } from './metrics/metrics-registry.ts';
import { registerMetricsHooks } from './metrics/metrics.hooks.ts';
import { metricsRoutes, metricsSummaryRoutes } from './metrics/metrics.routes.ts';
import { createMetricsService } from './metrics/metrics.service.ts';
import { auditAdminRoutes, auditLogRoutes } from './modules/audit-logs/audit-logs.routes.ts';
import { changeLogRoutes } from './modules/change-logs/change-logs.routes.ts';
import { clientAdminRoutes, clientViewRoutes } from './modules/clients/clients.routes.ts';
import { discountAdminRoutes, discountViewRoutes } from './modules/discounts/discounts.routes.ts';
import { failedTxAdminRoutes, failedTxViewRoutes } from './modules/failed-txs/failed-txs.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { createHealthService } from './modules/health/health.service.ts';
import type { MempoolReader } from './mempool/mempool-engine.ts';
import { mempoolDashboardRoutes } from './modules/mempool-dashboard/mempool-dashboard.routes.ts';
import type { MarketRateSource } from './modules/pricing/market-rate.ts';
import type { SettingsStore } from './modules/settings/settings.store.ts';
import { settingsAdminRoutes, settingsViewRoutes } from './modules/settings/settings.routes.ts';
import { siteInfoRoutes } from './modules/settings/site-info.routes.ts';
import { statusRoutes } from './modules/status/status.routes.ts';
import { createStatusService } from './modules/status/status.service.ts';
import { submissionRoutes } from './modules/submission/submission.routes.ts';
import { txPullerRoutes } from './modules/tx-puller/tx-puller.routes.ts';
import { txReportRoutes } from './modules/tx-reports/tx-reports.routes.ts';
import type { RecordKeeper } from './modules/submission/record-keeper.ts';
import { createSubmissionService } from './modules/submission/submission.service.ts';

export interface AppDeps {
  db: Database;
  rpc: RpcClient;
  clock: Clock;
  market: MarketRateSource;
  /**
   * The mempool engine: projected blocks, positions, odds and the /mempool/
   * dashboard's feed (`mempool.feed`). Started and stopped by whoever built
   * it (runtime.ts, the tests), never by buildApp.
   */
  mempool: MempoolReader;
  settings: SettingsStore;
  audit: AuditWriter;
  /** Keeps records of accepted submissions, spooling them to disk when the database is down. */
  records: RecordKeeper;
  /**
   * Staff sign-in: the verifier for the provider's and the portal's own
   * tokens, and local-account login. Without it, no staff routes are served.
   */
  staff?: { verifier: TokenVerifier; login: LocalLoginService; signIn: SignInConfig };
  /** The node's network, already checked against its chain at start-up. */
  network: string;
  /**
   * The Prometheus registry, shared with whatever else is measured outside
   * the app (the RPC client wrapped by instrumentRpc). Without it the app
   * keeps a registry of its own.
   */
  metrics?: Metrics;
  options: {
    rateLimit: { max: number; windowMs: number };
    /** Fastify's trustProxy: false, true (every hop), a hop count, or the proxies' addresses/CIDRs. */
    trustProxy: boolean | number | string[];
    /** Origins whose pages may call the API cross-origin (CORS_ORIGINS); none by default: same-origin only. */
    corsOrigins?: readonly string[];
    auditPayloadMaxChars: number;
    /** The node's -bytespersigop (default 20), for the sigop-adjusted virtual size submissions are priced by. */
    bytesPerSigop?: number;
    webDistDir?: string;
    /** When set, GET /rest-api/metrics needs it as a Bearer token; unset, a staff token (or nothing when the public mempool view setting is on). */
    metricsToken?: string | undefined;
    logger?: FastifyServerOptions['logger'];
    /** How long a request may take to arrive, and idle connections stay (HTTP_*_TIMEOUT_MS); DEFAULT_HTTP_TIMEOUTS without. */
    httpTimeouts?: HttpTimeouts;
    version?: string;
  };
}

/** Builds the HTTP application. Never listens and never reads the environment (DESIGN.md, convention 3). */
export async function buildApp(deps: AppDeps) {
  const { options } = deps;
  const securityHeaders = createSecurityHeaders({ identityProviderOrigins: deps.staff ? [originOf(deps.staff.signIn.issuer)] : [] });
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
      const body = { status: 'error', message: error.code === 'FST_ERR_BAD_URL' ? 'The address is not a valid URL.' : error.message };
      void (reply as FastifyReply).status(400).send(body);
      // No hook runs for these: the audit trail is told directly.
      auditRefusedBeforeRouting(deps.audit, request, reply, JSON.stringify(body), options.auditPayloadMaxChars);
    },
    // Requests Node's HTTP parser refuses (headers too large, not HTTP) never reach Fastify: answered on the socket, in the same shape and headers.
    clientErrorHandler: createClientErrorHandler(securityHeaders),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // First, so that every response carries them, whatever refuses the request later.
  securityHeaders.register(app);

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

  registerAuditHooks(app, deps.audit, options.auditPayloadMaxChars);
  const metrics = deps.metrics ?? createMetrics();
  registerMetricsHooks(app, metrics);
  app.addHook('onClose', async () => {
    await deps.records.close();
    await deps.audit.close();
  });

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    const allowed = new Set(options.corsOrigins);
    // A function rather than the list: for an origin not listed the plugin then
    // adds nothing at all (with a list it still answers a preflight with the
    // allowed methods and headers), and the preflight falls through to a 404.
    await app.register(cors, {
      origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
      methods: ['GET', 'HEAD', 'POST', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'x-portal-client'],
      exposedHeaders: ['content-disposition', 'retry-after'],
      maxAge: 600,
    });
  }

  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      status: 'error',
      message: `Too many requests. Please retry in ${Math.ceil(context.ttl / 1000)} seconds.`,
    }),
  });

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
        { name: 'staff', description: "Signed-in staff: the identity provider's ID token as a Bearer token" },
        { name: 'mempool', description: "The /mempool/ dashboard's live data: signed-in staff (or everyone when the public mempool view setting is on), not rate limited" },
        { name: 'metrics', description: 'Prometheus scrape: METRICS_TOKEN as a Bearer token when set; otherwise a staff token, or open when the public mempool view setting is on' },
        { name: 'health', description: 'For load balancers and monitors: the status for everyone, the checks for staff (or everyone when the public mempool view setting is on); not rate limited, not audited' },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/swagger-ui' });

  const submission = createSubmissionService({ ...deps, log: app.log, bytesPerSigop: options.bytesPerSigop ?? DEFAULT_BYTES_PER_SIGOP });
  const status = createStatusService({ ...deps, log: app.log });
  // One rate-limit budget per client IP for the whole public API (http/public-scope.ts).
  const publicRateLimit = createPublicRateLimit(app, options.rateLimit);
  // Strangers' requests no route takes, and refused staff requests, spend the same budget: each costs an audit row.
  limitUnroutedApiRequests(app, publicRateLimit);
  await app.register(publicScope, {
    prefix: '/rest-api',
    rateLimit: publicRateLimit,
    routes: async (scope) => {
      await scope.register(submissionRoutes, { service: submission, network: deps.network });
      await scope.register(statusRoutes, { service: status });
      await scope.register(siteInfoRoutes, { settings: deps.settings });
    },
  });
  const metricsService = createMetricsService({ metrics, db: deps.db, mempool: deps.mempool, audit: deps.audit, clock: deps.clock, log: app.log });
  // The private mempool's aggregates (the /mempool/ view, health details, an open scrape): staff, or everyone when the setting says so.
  const mempoolView = createMempoolViewAccess({ settings: deps.settings, verifier: deps.staff?.verifier, log: app.log });
  await app.register(metricsRoutes, { prefix: '/rest-api', service: metricsService, token: options.metricsToken, access: mempoolView });
  await app.register(healthRoutes, { prefix: '/rest-api', service: createHealthService({ db: deps.db, mempool: deps.mempool, clock: deps.clock, log: app.log }), access: mempoolView });

  if (deps.staff) {
    await app.register(loginRoutes, { prefix: '/rest-api', service: deps.staff.login });
    await app.register(signInConfigRoutes, { prefix: '/rest-api', config: deps.staff.signIn });
    await app.register(staffScope, { prefix: '/rest-api', verifier: deps.staff.verifier, rateLimit: publicRateLimit, viewRoutes: [staffMeRoutes, auditLogRoutes(deps.db), clientViewRoutes(deps), discountViewRoutes(deps), settingsViewRoutes(deps), changeLogRoutes(deps), failedTxViewRoutes(deps), metricsSummaryRoutes(metricsService), txPullerRoutes(deps), txReportRoutes(deps)], adminRoutes: [auditAdminRoutes(deps.db), clientAdminRoutes(deps), discountAdminRoutes(deps), settingsAdminRoutes(deps), failedTxAdminRoutes(deps)] });
  }

  await app.register(mempoolDashboardRoutes({ feed: deps.mempool.feed, authorize: (request) => mempoolView.require(request) }), { prefix: '/mempool' });

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
