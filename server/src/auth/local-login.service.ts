import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { Clock } from '../lib/clock.ts';
import type { LocalIssuer } from './local-issuer.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
import { findAccount, recordFailedLogin, recordSuccessfulLogin } from './staff-accounts.repository.ts';

/**
 * Sign-in with a local staff account. Every failure (unknown user, wrong
 * password, locked account) gets the same message and takes the same time, so
 * the answer tells an attacker nothing about which accounts exist.
 */
export const LOGIN_FAILED_MESSAGE = 'Invalid username or password.';

export function createLocalLoginService(deps: { db: Queryable; issuer: LocalIssuer; clock: Clock }) {
  const { db, issuer, clock } = deps;
  return {
    async login(username: string, password: string): Promise<{ token: string }> {
      const account = await findAccount(db, username.trim());
      const matches = await verifyPassword(password, account?.password_hash ?? (await decoyHash()));
      if (!account) throw new ApiError(401, LOGIN_FAILED_MESSAGE);
      const locked = account.locked_until !== null && account.locked_until > clock.now();
      if (!matches || locked) {
        if (!locked) await recordFailedLogin(db, account.username);
        throw new ApiError(401, LOGIN_FAILED_MESSAGE);
      }
      await recordSuccessfulLogin(db, account.username);
      return { token: await issuer.issue({ username: account.username, isAdmin: account.is_admin }) };
    },
  };
}

export type LocalLoginService = ReturnType<typeof createLocalLoginService>;
