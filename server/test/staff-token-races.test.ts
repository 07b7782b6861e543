import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { createLocalIssuer, type LocalIssuer } from '../src/auth/local-issuer.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { INVALID_TOKEN_MESSAGE } from '../src/auth/staff-scope.ts';
import { saveAccount } from '../src/auth/staff-accounts.repository.ts';
import type { Queryable } from '../src/db/database.ts';
import { absentNodeRpc, ADMIN_GROUP, CLIENT_ID, TEST_AUTH_KEY } from './helpers/staff-app.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * A password change (`npm run staff -- passwd`) that commits while a sign-in
 * or a renewal is under way ends the token that sign-in or renewal hands
 * out: the token carries the account's version as it was when the password
 * (or the renewed token) was checked, never one read afterwards. The race is
 * made deterministic: the change commits right after the account row is read.
 */

const OLD_PASSWORD = 'the password before the reset, long enough';
const NEW_PASSWORD = 'the password after the reset, long enough';

/** `db`, running `change` (once) right after the next read of a staff account's row. */
function racing(db: Queryable) {
  let pending: (() => Promise<void>) | undefined;
  const wrapped: Queryable = {
    async query(sql, params) {
      const result = await db.query(sql, params);
      if (pending && /FROM staff_accounts WHERE username/.test(sql)) {
        const change = pending;
        pending = undefined;
        await change();
      }
      return result as never;
    },
    exec: (sql) => db.exec(sql),
  };
  return {
    db: wrapped,
    afterNextAccountRead(change: () => Promise<void>) {
      pending = change;
    },
    get fired() {
      return pending === undefined;
    },
  };
}

for (const engine of testDatabases()) {
  describe(`a password reset racing a sign-in or a renewal ends the token it races (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let race: ReturnType<typeof racing>;
    let issuer: LocalIssuer;
    let nextIp = 1;

    before(async () => {
      db = await engine.open();
      race = racing(db);
      // No account cache: the next request sees the account as it is.
      issuer = createLocalIssuer({ db: race.db, clock: { now: () => new Date() }, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY, cacheMs: 0 });
      t = await startTestApp(undefined, db, {
        rpc: await absentNodeRpc(),
        staff: { verifier: issuer, issuer, accountsDb: race.db, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
      });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const addAccount = async (username: string) => saveAccount(db, { username, passwordHash: await hashPassword(OLD_PASSWORD), isAdmin: true });
    /** What `npm run staff -- passwd` does: a new hash, committed. */
    const resetPassword = (username: string) => async () => {
      await saveAccount(db, { username, passwordHash: await hashPassword(NEW_PASSWORD), isAdmin: true });
    };
    const login = (username: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/rest-api/login', payload: { username, password }, remoteAddress: `127.0.8.${nextIp++}` });
    const renew = (token: string) =>
      t.app.inject({ method: 'POST', url: '/rest-api/login/renew', headers: { authorization: `Bearer ${token}` }, remoteAddress: `127.0.9.${nextIp++}` });
    const me = (token: string) => t.app.inject({ method: 'GET', url: '/rest-api/staff/me', headers: { authorization: `Bearer ${token}` } });
    const version = async (username: string) =>
      (await db.query<{ token_version: number }>('SELECT token_version FROM staff_accounts WHERE username = $1', [username])).rows[0]!.token_version;

    test('a sign-in with the old password whose check overlaps the reset gets a token that is already refused', async () => {
      await addAccount('raced-login');
      const before = await version('raced-login');
      race.afterNextAccountRead(resetPassword('raced-login'));
      // The password was checked against the hash read before the reset: the sign-in itself succeeds.
      const signedIn = await login('raced-login', OLD_PASSWORD);
      assert.equal(race.fired, true, 'the reset committed during the sign-in');
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      const token = signedIn.json<{ token: string }>().token;
      assert.notEqual(await version('raced-login'), before, 'the reset took a new token version');

      const refused = await me(token);
      assert.equal(refused.statusCode, 401, refused.body);
      assert.equal(refused.json<{ message: string }>().message, INVALID_TOKEN_MESSAGE);
      assert.equal(decodeJwt(token).token_version, before, 'the token carries the version read with the password hash');
      assert.equal((await renew(token)).statusCode, 401, 'nor can it be renewed');

      // The reset did its job: the old password no longer signs in, the new one does.
      assert.equal((await login('raced-login', OLD_PASSWORD)).statusCode, 401);
      const fresh = await login('raced-login', NEW_PASSWORD);
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.equal((await me(fresh.json<{ token: string }>().token)).statusCode, 200);
    });

    test('a renewal whose check overlaps the reset gets a token that is already refused', async () => {
      await addAccount('raced-renewal');
      const signedIn = await login('raced-renewal', OLD_PASSWORD);
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      const token = signedIn.json<{ token: string }>().token;
      assert.equal((await me(token)).statusCode, 200);

      race.afterNextAccountRead(resetPassword('raced-renewal'));
      // The renewal checked the token against the account before the reset committed.
      const renewed = await renew(token);
      assert.equal(race.fired, true, 'the reset committed during the renewal');
      assert.equal(renewed.statusCode, 200, renewed.body);
      const renewedToken = renewed.json<{ token: string }>().token;

      const refused = await me(renewedToken);
      assert.equal(refused.statusCode, 401, refused.body);
      assert.equal(decodeJwt(renewedToken).token_version, decodeJwt(token).token_version, 'the renewed token carries the version the renewed one was checked with');
      assert.equal((await renew(renewedToken)).statusCode, 401, 'and cannot be renewed in turn');
      assert.equal((await me(token)).statusCode, 401);
    });

    test('without a race, sign-in and renewal tokens carry the account\'s current version and work', async () => {
      await addAccount('calm');
      const signedIn = await login('calm', OLD_PASSWORD);
      const token = signedIn.json<{ token: string }>().token;
      assert.equal(decodeJwt(token).token_version, await version('calm'));
      const renewed = await renew(token);
      assert.equal(renewed.statusCode, 200, renewed.body);
      assert.equal((await me(renewed.json<{ token: string }>().token)).statusCode, 200);
    });
  });
}
