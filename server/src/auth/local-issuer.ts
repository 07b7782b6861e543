import { randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, errors as joseErrors, type JWK } from 'jose';
import type { Queryable } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { InvalidTokenError, MAX_CLOCK_SKEW_SECONDS, type StaffIdentity, type TokenVerifier } from './token-verifier.ts';

/**
 * Tokens for local staff accounts. The portal is their issuer: it signs them
 * (ES256) with a key kept in the database, so every instance sharing the
 * database verifies any of them, and they carry the same claims as the
 * provider's ID tokens so the admin API checks both the same way.
 */

export const LOCAL_ISSUER = 'urn:slipstream-portal:local-sign-in';
export const LOCAL_TOKEN_SECONDS = 60 * 60;

interface KeyRow {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
}

export interface LocalIssuer extends TokenVerifier {
  issue(account: { username: string; isAdmin: boolean }): Promise<string>;
}

export function createLocalIssuer(deps: { db: Queryable; clock: Clock; clientId: string; adminGroup: string }): LocalIssuer {
  const { db, clock, clientId, adminGroup } = deps;
  let signing: Promise<KeyRow> | undefined;
  const publicKeys = new Map<string, JWK>();

  /** The oldest key: instances that raced to create one all converge on it. */
  async function loadOrCreate(): Promise<KeyRow> {
    const existing = await db.query<KeyRow>('SELECT kid, private_jwk, public_jwk FROM auth_signing_keys ORDER BY created_at, kid LIMIT 1');
    if (existing.rows[0]) return existing.rows[0];
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `local-${randomUUID()}`;
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256' };
    await db.query('INSERT INTO auth_signing_keys (kid, private_jwk, public_jwk) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      kid,
      JSON.stringify(privateJwk),
      JSON.stringify(publicJwk),
    ]);
    const { rows } = await db.query<KeyRow>('SELECT kid, private_jwk, public_jwk FROM auth_signing_keys ORDER BY created_at, kid LIMIT 1');
    return rows[0]!;
  }

  function signingKey(): Promise<KeyRow> {
    signing ??= loadOrCreate().catch((error: unknown) => {
      signing = undefined;
      throw error;
    });
    return signing;
  }

  async function publicKey(kid: string): Promise<JWK> {
    const cached = publicKeys.get(kid);
    if (cached) return cached;
    const { rows } = await db.query<{ public_jwk: JWK }>('SELECT public_jwk FROM auth_signing_keys WHERE kid = $1', [kid]);
    if (!rows[0]) throw new InvalidTokenError("The token's key is not one of the portal's");
    publicKeys.set(kid, rows[0].public_jwk);
    return rows[0].public_jwk;
  }

  return {
    async issue(account) {
      const key = await signingKey();
      const now = Math.floor(clock.now().getTime() / 1000);
      return new SignJWT({ preferred_username: account.username, groups: account.isAdmin ? [adminGroup] : [] })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
        .setIssuer(LOCAL_ISSUER)
        .setAudience(clientId)
        .setSubject(`local:${account.username}`)
        .setIssuedAt(now)
        .setExpirationTime(now + LOCAL_TOKEN_SECONDS)
        .sign(await importJWK(key.private_jwk, 'ES256'));
    },

    async verify(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, async (header) => importJWK(await publicKey(header.kid ?? ''), 'ES256'), {
          issuer: LOCAL_ISSUER,
          audience: clientId,
          algorithms: ['ES256'],
          clockTolerance: MAX_CLOCK_SKEW_SECONDS,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (error) {
        if (error instanceof InvalidTokenError) throw error;
        if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError('The token is not valid', { cause: error });
        throw error;
      }
      const groups = Array.isArray(payload.groups) ? payload.groups.filter((g): g is string => typeof g === 'string') : [];
      const username = typeof payload.preferred_username === 'string' ? payload.preferred_username : payload.sub!;
      return { subject: payload.sub!, username, email: undefined, groups, isAdmin: groups.includes(adminGroup) } satisfies StaffIdentity;
    },
  };
}

/**
 * One verification path for both kinds of staff token: the token's (still
 * unverified) issuer picks the verifier, and that verifier then checks
 * everything strictly, the issuer included.
 */
export function routeByIssuer(local: TokenVerifier, provider: TokenVerifier): TokenVerifier {
  return {
    async verify(token) {
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch (error) {
        throw new InvalidTokenError('The token is not a JWT', { cause: error });
      }
      return issuer === LOCAL_ISSUER ? local.verify(token) : provider.verify(token);
    },
  };
}
