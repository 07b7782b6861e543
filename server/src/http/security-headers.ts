import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Security headers on every response the app makes: API answers, errors,
 * 404s, the web app's files, /mempool/ and its live stream, Swagger UI.
 *
 * - Content-Security-Policy (CSP Level 3): scripts, styles, images and fonts
 *   only from the portal itself, no inline script anywhere. The built web app
 *   needs nothing more (Vite emits external modules and CSS files; React sets
 *   style props through the CSSOM, which style-src does not govern). The
 *   browser also talks to the sign-in provider (OpenID discovery, the token
 *   endpoint, and the hidden frame that renews a session), so that one origin
 *   is allowed in connect-src and frame-src. `frame-ancestors 'self'`: the
 *   staff dashboard frames /mempool/ from the same origin, and no other site
 *   may frame any page (clickjacking; X-Frame-Options SAMEORIGIN says the same
 *   to browsers that predate frame-ancestors).
 * - Swagger UI renders with inline styles and data: images, so its pages get
 *   the same policy with `style-src 'unsafe-inline'` (no inline script).
 * - Strict-Transport-Security (RFC 6797) only on a request that arrived over
 *   TLS: `request.protocol` is 'https' on a TLS socket, or, behind a trusted
 *   proxy (TRUST_PROXY), when the proxy says so in X-Forwarded-Proto. A
 *   browser ignores the header over plain HTTP anyway (RFC 6797 section 8.1),
 *   and sending it there would only mislead.
 * - X-Content-Type-Options: nosniff; Referrer-Policy: strict-origin-when-cross-origin
 *   (a status link's transaction id never leaves in a Referer to another site).
 *
 * Set in an onRequest hook rather than onSend: headers a reply carries from
 * onRequest stay on it through errors thrown later (Fastify's error handling
 * keeps them), the not-found handler and static files, and they also reach
 * the /mempool/ Server-Sent Events stream, which hijacks its reply and copies
 * the reply's headers: onSend never runs for it. Registered first on the root
 * instance, so it runs before any hook that could refuse the request. The
 * answers no hook sees get them otherwise: Fastify's to a URL it cannot
 * decode from the app's frameworkErrors handler through `apply`, and those
 * to requests Node's HTTP parser refuses (client-errors.ts) through `values`.
 */

export interface SecurityHeadersOptions {
  /**
   * Origins the web app calls and frames besides its own: the sign-in
   * provider's issuer (discovery document, token endpoint, silent renewal).
   */
  identityProviderOrigins?: readonly string[];
  /** Path prefix of Swagger UI (default '/swagger-ui'). */
  swaggerUiPrefix?: string;
}

/** One year, the usual preload-grade lifetime; no includeSubDomains: the pool's other hosts are not the portal's to decide. */
export const HSTS_VALUE = 'max-age=31536000';
export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

function policy(directives: Record<string, readonly string[]>): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** The CSP of the web app and the API ('app'), and of Swagger UI's pages ('swagger-ui'). */
export function contentSecurityPolicy(kind: 'app' | 'swagger-ui', identityProviderOrigins: readonly string[] = []): string {
  const self = "'self'";
  return policy({
    'default-src': [self],
    'script-src': [self],
    'style-src': kind === 'swagger-ui' ? [self, "'unsafe-inline'"] : [self],
    'img-src': [self, 'data:'],
    'font-src': [self],
    'media-src': [self],
    'connect-src': [self, ...identityProviderOrigins],
    'frame-src': [self, ...identityProviderOrigins],
    'frame-ancestors': [self],
    'form-action': [self],
    'base-uri': [self],
    'object-src': ["'none'"],
  });
}

/** `https://idp.example/realms/x` -> `https://idp.example`: CSP sources are origins. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

export interface SecurityHeaders {
  /** Puts the headers on `reply`. */
  apply(request: FastifyRequest, reply: FastifyReply): void;
  /** The headers for an answer to `url` written without a reply (the HTTP parser's refusals); HSTS when it came over TLS. */
  values(url: string, https: boolean): Record<string, string>;
  /** Adds the onRequest hook that applies them to every request of `app`. */
  register(app: FastifyInstance): void;
}

export function createSecurityHeaders(options: SecurityHeadersOptions = {}): SecurityHeaders {
  const origins = options.identityProviderOrigins ?? [];
  const appPolicy = contentSecurityPolicy('app', origins);
  const swaggerPolicy = contentSecurityPolicy('swagger-ui', origins);
  const swaggerPrefix = options.swaggerUiPrefix ?? '/swagger-ui';
  const isSwagger = (url: string) => url === swaggerPrefix || url.startsWith(`${swaggerPrefix}/`) || url.startsWith(`${swaggerPrefix}?`);

  function values(url: string, https: boolean): Record<string, string> {
    return {
      'content-security-policy': isSwagger(url) ? swaggerPolicy : appPolicy,
      'x-content-type-options': 'nosniff',
      'referrer-policy': REFERRER_POLICY,
      'x-frame-options': 'SAMEORIGIN',
      ...(https ? { 'strict-transport-security': HSTS_VALUE } : {}),
    };
  }

  function apply(request: FastifyRequest, reply: FastifyReply): void {
    void reply.headers(values(request.url, request.protocol === 'https'));
  }

  return {
    apply,
    values,
    register(app) {
      app.addHook('onRequest', async (request, reply) => apply(request, reply));
    },
  };
}
