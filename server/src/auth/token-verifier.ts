import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';

/**
 * Verifies the bearer tokens staff send to the admin API: the identity
 * provider's ID token (docs/behaviour.md#staff-sign-in), or an access token for a
 * configured API audience. Strict on purpose (OpenID Connect Core 1.0
 * section 3.1.3.7, RFC 8725 JWT best current practices):
 * - the issuer must match exactly, the audience must be our client id (or the API audience);
 * - an ID token for several audiences must name our client id as its
 *   authorized party (azp), and an azp, when present, must be our client id
 *   (section 3.1.3.7 items 4 and 5): a token issued to another client that
 *   merely lists us among its audiences is not ours to accept;
 * - only asymmetric algorithms are accepted: never `none`, never HMAC, so a
 *   token "signed" with the provider's public key as an HMAC secret fails;
 * - expiry and not-before are checked with at most 60 s of clock skew;
 * - keys come from the issuer's JWKS (found by discovery), cached, and
 *   fetched again when a token names a key id the cache does not hold, so a
 *   key rotated at the provider is picked up without a restart.
 */

export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
export const MAX_CLOCK_SKEW_SECONDS = 60;

export interface StaffIdentity {
  subject: string;
  username: string;
  email: string | undefined;
  groups: string[];
  isAdmin: boolean;
}

export interface TokenVerifierOptions {
  /** The provider's issuer identifier, exactly as it appears in its tokens. */
  issuer: string;
  clientId: string;
  /** When set, access tokens for this audience are accepted instead of ID tokens. */
  apiAudience?: string | undefined;
  /** Members of this group may change data (docs/behaviour.md#roles-and-permissions). */
  adminGroup: string;
  /** Minimum time between two JWKS fetches for unknown key ids (default 30 s). */
  jwksCooldownMs?: number;
  /** Timeout of discovery and JWKS requests (default 5 s). */
  timeoutMs?: number;
}

/** The token is missing, malformed, forged, expired or meant for someone else: 401. */
export class InvalidTokenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidTokenError';
  }
}

/** The provider could not be asked (discovery or JWKS unreachable): 503, not the user's fault. */
export class IdentityProviderUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'IdentityProviderUnavailableError';
  }
}

export interface TokenVerifier {
  verify(token: string): Promise<StaffIdentity>;
}

interface Discovery {
  issuer: string;
  jwks_uri: string;
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  async function discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const url = `${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let document: Discovery;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      document = (await response.json()) as Discovery;
    } catch (error) {
      throw new IdentityProviderUnavailableError(`The sign-in provider's discovery document could not be read (${(error as Error).message})`, { cause: error });
    }
    // OpenID Connect Discovery 1.0 section 4.3: the issuer must be exactly the one configured.
    if (document.issuer !== options.issuer) {
      throw new IdentityProviderUnavailableError(`The sign-in provider calls itself '${document.issuer}', not the configured '${options.issuer}'`);
    }
    return createRemoteJWKSet(new URL(document.jwks_uri), {
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: timeoutMs,
    });
  }

  function jwks(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    // A failed discovery is retried on the next request rather than cached.
    keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  }

  return {
    async verify(token) {
      if (!token || token.split('.').length !== 3) throw new InvalidTokenError('The token is not a signed JWT');
      const getKey = await jwks();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, getKey, {
          issuer: options.issuer,
          audience: options.apiAudience ?? options.clientId,
          algorithms: ASYMMETRIC_ALGORITHMS,
          clockTolerance: MAX_CLOCK_SKEW_SECONDS,
          requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (error) {
        if (error instanceof joseErrors.JWKSTimeout || (error instanceof joseErrors.JOSEError && error.code === 'ERR_JWKS_INVALID')) {
          throw new IdentityProviderUnavailableError("The sign-in provider's keys could not be read", { cause: error });
        }
        throw new InvalidTokenError(describe(error), { cause: error });
      }
      // Access tokens (RFC 9068) name their client in client_id, not azp: the authorized-party rule is the ID token's.
      if (options.apiAudience === undefined) checkAuthorizedParty(payload, options.clientId);
      return identityOf(payload, options.adminGroup);
    },
  };
}

/** OpenID Connect Core 1.0 section 3.1.3.7, items 4 and 5. */
function checkAuthorizedParty(payload: JWTPayload, clientId: string): void {
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (audiences.length > 1 && payload.azp === undefined) throw new InvalidTokenError('The token has several audiences but no azp claim');
  if (payload.azp !== undefined && payload.azp !== clientId) throw new InvalidTokenError("The token's azp claim is not acceptable");
}

function identityOf(payload: JWTPayload, adminGroup: string): StaffIdentity {
  const groups = Array.isArray(payload.groups) ? payload.groups.filter((g): g is string => typeof g === 'string') : [];
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return {
    subject: payload.sub!,
    username: text(payload.preferred_username) ?? text(payload.email) ?? payload.sub!,
    email: text(payload.email),
    groups,
    isAdmin: groups.includes(adminGroup),
  };
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `The token's ${error.claim} claim is not acceptable`;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return "The token's signing algorithm is not accepted";
  if (error instanceof joseErrors.JWKSNoMatchingKey) return "The token's key is not one of the provider's";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "The token's signature is not valid";
  return 'The token is not valid';
}
