import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { LocalIssuer } from './local-issuer.ts';
import { createLoginThrottle, type LoginMetrics } from './login-throttle.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
import { INVALID_TOKEN_MESSAGE, SIGN_IN_REQUIRED_MESSAGE } from './staff-scope.ts';
import { findAccount } from './staff-accounts.repository.ts';
import { InvalidTokenError } from './token-verifier.ts';

/**
 * Sign-in with a local staff account. Every failure (unknown user, wrong
 * password) gets the same message and takes the same time, so the answer
 * tells an attacker nothing about which accounts exist. Failures slow down
 * the address they come from, on that username only (login-throttle.ts):
 * nobody can lock the owner out.
 */
export const LOGIN_FAILED_MESSAGE = 'Invalid username or password.';

export function createLocalLoginService(deps: { db: Queryable; issuer: LocalIssuer; clock: Clock; metrics?: LoginMetrics; log?: Logger }) {
  const { db, issuer } = deps;
  const throttle = createLoginThrottle(deps);
  return {
    /** `clientAddress`: the request's client (request.ip, behind TRUST_PROXY). Throws LoginThrottledError (429) while it must wait. */
    async login(username: string, password: string, clientAddress: string): Promise<{ token: string }> {
      const name = username.trim();
      await throttle.admit(name, clientAddress);
      const account = await findAccount(db, name);
      const matches = await verifyPassword(password, account?.password_hash ?? (await decoyHash()));
      if (!account || !matches) {
        await throttle.failed(name, clientAddress);
        throw new ApiError(401, LOGIN_FAILED_MESSAGE);
      }
      await throttle.succeeded(name, clientAddress);
      // The token carries the version read with the hash just checked: a password reset that
      // committed meanwhile (the check takes 100-300 ms) has already made it stale.
      return { token: await issuer.issue(account.username, { isAdmin: account.is_admin, tokenVersion: account.token_version }) };
    },

    /** POST /rest-api/login/renew: a fresh token for the holder of a valid local one, checked against the account afresh. */
    async renew(bearerToken: string | undefined): Promise<{ token: string }> {
      if (!bearerToken) throw new ApiError(401, SIGN_IN_REQUIRED_MESSAGE);
      try {
        return { token: await issuer.renew(bearerToken) };
      } catch (error) {
        if (error instanceof InvalidTokenError) throw new ApiError(401, INVALID_TOKEN_MESSAGE);
        throw error;
      }
    },
  };
}

export type LocalLoginService = ReturnType<typeof createLocalLoginService>;
