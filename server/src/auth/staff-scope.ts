import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { PublicRateLimit } from '../http/public-scope.ts';
import { IdentityProviderUnavailableError, InvalidTokenError, type StaffIdentity, type TokenVerifier } from './token-verifier.ts';

/**
 * Staff routes live inside encapsulated scopes whose hook checks the token
 * (docs/architecture.md, convention 4): nothing is exempted by URL prefix, and a route
 * registered in the admin scope cannot forget to check the role. The hook
 * runs on onRequest, before any body is read, so a stranger's upload is
 * refused before it costs anything.
 */

declare module 'fastify' {
  interface FastifyRequest {
    staff?: StaffIdentity;
    /** Set on every request a staff route receives, signed in or not. */
    staffRoute?: boolean;
  }
}

export const SIGN_IN_REQUIRED_MESSAGE = 'Sign-in required: send your identity token as a Bearer token.';
export const INVALID_TOKEN_MESSAGE = 'Your session is not valid or has expired. Please sign in again.';
export const ADMIN_REQUIRED_MESSAGE = 'Administrator rights are required for this action.';
export const PROVIDER_UNAVAILABLE_MESSAGE = 'The sign-in provider cannot be reached right now. Please try again shortly.';

/** The token of an `Authorization: Bearer` header (RFC 6750 section 2.1), if there is one. */
export function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Sets request.staff from its bearer token, or throws the staff API's answer:
 * 401 (none, or refused) or 503 (the provider cannot be asked). A refused
 * token is logged at `refusedLogLevel` (info unless the caller says so).
 */
export async function authenticate(request: FastifyRequest, verifier: TokenVerifier, options: { refusedLogLevel?: 'info' | 'debug' } = {}): Promise<void> {
  const token = bearer(request);
  if (!token) throw new ApiError(401, SIGN_IN_REQUIRED_MESSAGE);
  try {
    request.staff = await verifier.verify(token);
  } catch (error) {
    if (error instanceof InvalidTokenError) {
      request.log[options.refusedLogLevel ?? 'info']({ reason: error.message }, 'Staff token refused');
      throw new ApiError(401, INVALID_TOKEN_MESSAGE);
    }
    if (error instanceof IdentityProviderUnavailableError) {
      request.log.error({ err: error }, 'Identity provider unavailable');
      throw new ApiError(503, PROVIDER_UNAVAILABLE_MESSAGE);
    }
    throw error;
  }
}

export interface StaffScopeOptions {
  verifier: TokenVerifier;
  /**
   * The public API's per-address budget (http/public-scope.ts): a request
   * refused for a missing or invalid token (or one the provider could not be
   * asked about) spends it, and gets its 429 once it is spent. Requests with
   * a valid token do not touch it.
   */
  rateLimit?: PublicRateLimit;
  /** Routes for every signed-in staff member (views, downloads). */
  viewRoutes?: FastifyPluginAsync[];
  /** Routes that change data: administrators only. */
  adminRoutes?: FastifyPluginAsync[];
}

/** Registers view routes behind a staff token, and admin routes behind the admin group on top. */
export const staffScope: FastifyPluginAsync<StaffScopeOptions> = async (app: FastifyInstance, { verifier, rateLimit, viewRoutes = [], adminRoutes = [] }) => {
  // The root hook that spends the public budget for every audited request leaves these routes to the hook below.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, publicBudget: 'unless-signed-in' };
  });
  app.addHook('onRequest', async (request, reply) => {
    request.staffRoute = true;
    try {
      await authenticate(request, verifier);
    } catch (error) {
      // A stranger's refused request still costs a row in the audit trail: it is limited like the public API's.
      if (rateLimit && error instanceof ApiError) await rateLimit(request, reply);
      throw error;
    }
  });
  for (const routes of viewRoutes) await app.register(routes);
  await app.register(async (admin) => {
    admin.addHook('onRequest', async (request) => {
      if (!request.staff?.isAdmin) throw new ApiError(403, ADMIN_REQUIRED_MESSAGE);
    });
    for (const routes of adminRoutes) await admin.register(routes);
  });
};
