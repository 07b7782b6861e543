import { randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, errors as joseErrors, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import type { Database, Queryable } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { sealPrivateJwk, unsealPrivateJwk, type AuthKey } from './auth-key-secret.ts';
import { activeSigningKey, addSigningKeyUnlessActive, replaceSigningKeys, signingKeyByKid } from './signing-keys.repository.ts';
import { accountTokenState } from './staff-accounts.repository.ts';
import { InvalidTokenError, MAX_CLOCK_SKEW_SECONDS, type StaffIdentity, type TokenVerifier } from './token-verifier.ts';

/**
 * Tokens for local staff accounts. The portal is their issuer: it signs them
 * (ES256) with a key kept in the database, its private half sealed with the
 * AUTH_KEY_SECRET (auth-key-secret.ts), so every instance sharing the
 * database verifies any of them. They carry the same claims as the
 * provider's ID tokens, plus the account's token version.
 *
 * A token is short-lived and checked against its account on every request
 * (cached for ACCOUNT_CHECK_CACHE_MS per account and per key): the account
 * must still exist with the token's version (a new password, a role change
 * or a removal takes a new one, migration 014), its role is the account's
 * as it is now, and the key that signed it must not be retired.
 */

export const LOCAL_ISSUER = 'urn:slipstream-portal:local-sign-in';
/** How long one token lives; the web app renews it a minute before (POST /rest-api/login/renew). */
export const LOCAL_TOKEN_SECONDS = 15 * 60;
/** Renewals keep a sign-in going for a working day at most, then the password is asked again. */
export const LOCAL_SESSION_MAX_SECONDS = 12 * 60 * 60;
/** How long an instance trusts what it read of an account or a key: the most a revocation or rotation waits. */
export const ACCOUNT_CHECK_CACHE_MS = 5_000;
/** The claim with the account's token version. */
const VERSION_CLAIM = 'token_version';
const SUBJECT_PREFIX = 'local:';

export interface LocalIssuer extends TokenVerifier {
  /**
   * A token for the account as `account` says it was when its password was
   * checked (read in the same row as the hash): a change committed since
   * has taken a new version, and the token is refused from the start.
   * Without `account`, as it is now in the database (tools and tests).
   */
  issue(username: string, account?: AccountState): Promise<string>;
  /** A fresh token for the holder of a valid one, checked against the account afresh, within the session's limit. */
  renew(token: string): Promise<string>;
  /** Loads (or makes) the signing key and opens it: start-up fails here, clearly, on a wrong AUTH_KEY_SECRET. */
  ready(): Promise<void>;
}

export interface LocalIssuerDeps {
  db: Queryable;
  clock: Clock;
  clientId: string;
  adminGroup: string;
  authKey: AuthKey;
  /** ACCOUNT_CHECK_CACHE_MS unless a test says otherwise. */
  cacheMs?: number;
}

export interface AccountState {
  isAdmin: boolean;
  tokenVersion: number;
}

interface KeyState {
  publicJwk: JWK;
  retired: boolean;
}

/**
 * Short-lived answers per name. A failed lookup, or one that found nothing, is
 * not kept: key ids come from tokens not yet verified, and made-up ones must
 * not fill the memory.
 */
function createCache<T>(clock: Clock, ttlMs: number, load: (name: string) => Promise<T | undefined>) {
  const entries = new Map<string, { at: number; value: Promise<T | undefined> }>();
  const forget = (name: string, value: Promise<T | undefined>) => {
    if (entries.get(name)?.value === value) entries.delete(name);
  };
  return {
    get(name: string, fresh = false): Promise<T | undefined> {
      const now = clock.now().getTime();
      const entry = entries.get(name);
      if (!fresh && entry && now - entry.at < ttlMs) return entry.value;
      const value = load(name);
      entries.set(name, { at: now, value });
      value.then(
        (found) => found === undefined && forget(name, value),
        () => forget(name, value),
      );
      return value;
    },
  };
}

async function readAccount(db: Queryable, username: string): Promise<AccountState | undefined> {
  const row = await accountTokenState(db, username);
  return row ? { isAdmin: row.is_admin, tokenVersion: row.token_version } : undefined;
}

async function newKeyRow(authKey: AuthKey): Promise<{ kid: string; sealed: string; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `local-${randomUUID()}`;
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256' };
  return { kid, sealed: sealPrivateJwk(privateJwk, kid, authKey), publicJwk };
}

/**
 * `npm run staff -- rotate-key`: a new signing key, and every other one
 * retired (its private half erased) in the same transaction. Tokens signed by
 * a retired key are refused, by every instance within ACCOUNT_CHECK_CACHE_MS.
 */
export async function rotateSigningKey(db: Database, authKey: AuthKey): Promise<{ kid: string; retired: number }> {
  const key = await newKeyRow(authKey);
  const retired = await replaceSigningKeys(db, key);
  return { kid: key.kid, retired };
}

export function createLocalIssuer(deps: LocalIssuerDeps): LocalIssuer {
  const { db, clock, clientId, adminGroup, authKey } = deps;
  const cacheMs = deps.cacheMs ?? ACCOUNT_CHECK_CACHE_MS;
  const privateKeys = new Map<string, Promise<CryptoKey>>();

  const accounts = createCache(clock, cacheMs, (username) => readAccount(db, username));
  const keys = createCache<KeyState>(clock, cacheMs, async (kid) => {
    const row = await signingKeyByKid(db, kid);
    return row ? { publicJwk: row.public_jwk, retired: row.retired } : undefined;
  });

  /** The key that signs now, made when there is none; read on every issue, so a rotation elsewhere is followed at once. */
  async function signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    let row = await activeSigningKey(db);
    if (!row) {
      const made = await newKeyRow(authKey);
      // Instances racing here converge on one key: the unique index keeps the first.
      await addSigningKeyUnlessActive(db, made);
      row = await activeSigningKey(db);
      if (!row) throw new Error('No active signing key after making one');
    }
    const { kid, sealed_private_jwk: sealed } = row;
    let key = privateKeys.get(kid);
    if (!key) {
      key = (async () => (await importJWK(unsealPrivateJwk(sealed, kid, authKey), 'ES256')) as CryptoKey)();
      privateKeys.set(kid, key);
      key.catch(() => privateKeys.delete(kid));
    }
    return { kid, key: await key };
  }

  /**
   * Signs for `account` as the caller checked it, never as read again here: a
   * version read after the check could be one a password reset has just
   * taken, and the token would outlive the reset that was meant to end it.
   */
  async function sign(username: string, account: AccountState, authTime: number): Promise<string> {
    const { kid, key } = await signingKey();
    const now = Math.floor(clock.now().getTime() / 1000);
    return new SignJWT({ preferred_username: username, groups: account.isAdmin ? [adminGroup] : [], [VERSION_CLAIM]: account.tokenVersion, auth_time: authTime })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .setIssuer(LOCAL_ISSUER)
      .setAudience(clientId)
      .setSubject(`${SUBJECT_PREFIX}${username}`)
      .setIssuedAt(now)
      .setExpirationTime(Math.min(now + LOCAL_TOKEN_SECONDS, authTime + LOCAL_SESSION_MAX_SECONDS))
      .sign(key);
  }

  async function check(token: string, fresh: boolean): Promise<{ payload: JWTPayload; username: string; account: AccountState }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          const key = await keys.get(header.kid ?? '', fresh);
          if (!key) throw new InvalidTokenError("The token's key is not one of the portal's");
          if (key.retired) throw new InvalidTokenError("The token's key has been retired");
          return importJWK(key.publicJwk, 'ES256');
        },
        {
          issuer: LOCAL_ISSUER,
          audience: clientId,
          algorithms: ['ES256'],
          clockTolerance: MAX_CLOCK_SKEW_SECONDS,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'exp', 'iat', VERSION_CLAIM],
        },
      ));
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError('The token is not valid', { cause: error });
      throw error;
    }
    const sub = payload.sub!;
    if (!sub.startsWith(SUBJECT_PREFIX)) throw new InvalidTokenError("The token's subject is not a local account");
    const username = sub.slice(SUBJECT_PREFIX.length);
    const account = await accounts.get(username, fresh);
    if (!account) throw new InvalidTokenError('The account no longer exists');
    if (payload[VERSION_CLAIM] !== account.tokenVersion) throw new InvalidTokenError('The token was revoked: the account changed since it was issued');
    return { payload, username, account };
  }

  return {
    async issue(username, account) {
      const state = account ?? (await readAccount(db, username));
      if (!state) throw new InvalidTokenError('The account no longer exists');
      return sign(username, state, Math.floor(clock.now().getTime() / 1000));
    },

    async renew(token) {
      const { payload, username, account } = await check(token, true);
      const authTime = typeof payload.auth_time === 'number' ? payload.auth_time : payload.iat!;
      if (Math.floor(clock.now().getTime() / 1000) >= authTime + LOCAL_SESSION_MAX_SECONDS) throw new InvalidTokenError('The session has reached its limit: sign in again');
      // The version the renewed token carried, which check() found current: a change landing
      // after that check leaves the new token as stale as the old one.
      return sign(username, { isAdmin: account.isAdmin, tokenVersion: payload[VERSION_CLAIM] as number }, authTime);
    },

    async ready() {
      await signingKey();
    },

    async verify(token) {
      const { payload, username, account } = await check(token, false);
      const groups = account.isAdmin ? [adminGroup] : [];
      return { subject: payload.sub!, username, email: undefined, groups, isAdmin: account.isAdmin } satisfies StaffIdentity;
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
