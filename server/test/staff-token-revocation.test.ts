import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT } from 'jose';
import { authKeyFromSecret, AuthKeySecretError, unsealPrivateJwk } from '../src/auth/auth-key-secret.ts';
import { ACCOUNT_CHECK_CACHE_MS, createLocalIssuer, LOCAL_SESSION_MAX_SECONDS, LOCAL_TOKEN_SECONDS, rotateSigningKey, type LocalIssuer } from '../src/auth/local-issuer.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { ADMIN_REQUIRED_MESSAGE, INVALID_TOKEN_MESSAGE, SIGN_IN_REQUIRED_MESSAGE } from '../src/auth/staff-scope.ts';
import { removeAccount, saveAccount, setAccountRole } from '../src/auth/staff-accounts.repository.ts';
import { InvalidTokenError } from '../src/auth/token-verifier.ts';
import type { Database } from '../src/db/database.ts';
import { DEFAULT_MIGRATIONS_DIR, loadMigrations, migrate } from '../src/db/migrate.ts';
import type { Clock } from '../src/lib/clock.ts';
import { absentNodeRpc, ADMIN_GROUP, CLIENT_ID } from './helpers/staff-app.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * Local staff tokens are checked against their account on every request (a
 * few seconds' cache): removing an account, changing its password or role,
 * or rotating the portal's signing key ends the tokens already handed out,
 * without waiting for them to expire. The signing key is kept sealed in the
 * database with a secret that is not there.
 */

const PASSWORD = 'a local staff password, long enough';

/** A clock the test moves: the account cache and token expiry both follow it. */
function testClock(): Clock & { advance(ms: number): void } {
  let now = Date.now();
  return { now: () => new Date(now), advance: (ms) => void (now += ms) };
}

for (const engine of testDatabases()) {
  describe(`local staff tokens end with their account (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let issuer: LocalIssuer;
    const clock = testClock();
    const authKey = authKeyFromSecret(randomBytes(32).toString('base64'));
    let nextIp = 1;

    before(async () => {
      db = await engine.open();
      issuer = createLocalIssuer({ db, clock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey });
      t = await startTestApp(undefined, db, {
        rpc: await absentNodeRpc(),
        clock,
        staff: { verifier: issuer, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
      });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const addAccount = async (username: string, isAdmin: boolean, password = PASSWORD) => saveAccount(db, { username, passwordHash: await hashPassword(password), isAdmin });
    const login = async (username: string, password = PASSWORD): Promise<string> => {
      const res = await t.app.inject({ method: 'POST', url: '/rest-api/login', payload: { username, password }, remoteAddress: `127.0.6.${nextIp++}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ token: string }>().token;
    };
    const me = (token: string) => t.app.inject({ method: 'GET', url: '/rest-api/staff/me', headers: { authorization: `Bearer ${token}` } });
    /** An administrators-only read: 200 for an admin, 403 for a viewer. */
    const adminRead = (token: string) => t.app.inject({ method: 'GET', url: '/rest-api/audits/verify', headers: { authorization: `Bearer ${token}` } });
    const renew = (authorization?: string) =>
      t.app.inject({ method: 'POST', url: '/rest-api/login/renew', headers: authorization === undefined ? {} : { authorization }, remoteAddress: `127.0.7.${nextIp++}` });
    const pastTheCache = () => clock.advance(ACCOUNT_CHECK_CACHE_MS);

    test(`tokens live ${LOCAL_TOKEN_SECONDS / 60} minutes and carry the account's token version`, async () => {
      await addAccount('short', false);
      const claims = decodeJwt(await login('short'));
      assert.equal(LOCAL_TOKEN_SECONDS, 15 * 60);
      assert.equal(claims.exp! - claims.iat!, LOCAL_TOKEN_SECONDS);
      assert.equal(typeof claims.token_version, 'number');
    });

    test('a removed account\'s token is refused once the check cache has passed', async () => {
      await addAccount('leaver', true);
      const token = await login('leaver');
      assert.equal((await me(token)).statusCode, 200);
      assert.equal(await removeAccount(db, 'leaver'), true);
      pastTheCache();
      const refused = await me(token);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json<{ message: string }>().message, INVALID_TOKEN_MESSAGE);
    });

    test('a re-created account of the same name does not revive the old one\'s tokens', async () => {
      await addAccount('again', false);
      const token = await login('again');
      await removeAccount(db, 'again');
      await addAccount('again', false);
      pastTheCache();
      assert.equal((await me(token)).statusCode, 401);
      assert.equal((await me(await login('again'))).statusCode, 200);
    });

    test('a demoted administrator: the token they hold is refused, and a new sign-in gets 403 on admin routes', async () => {
      await addAccount('demoted', true);
      const token = await login('demoted');
      assert.equal((await adminRead(token)).statusCode, 200);
      assert.equal(await setAccountRole(db, 'demoted', false), true);
      pastTheCache();
      // The old token is revoked by the role change; a new sign-in is a viewer's.
      assert.equal((await adminRead(token)).statusCode, 401);
      const viewerToken = await login('demoted');
      const forbidden = await adminRead(viewerToken);
      assert.equal(forbidden.statusCode, 403);
      assert.equal(forbidden.json<{ message: string }>().message, ADMIN_REQUIRED_MESSAGE);
      assert.equal((await me(viewerToken)).json<{ is_admin: boolean }>().is_admin, false);
    });

    test("the role comes from the account, not from the token's groups claim", async () => {
      await addAccount('promoted', false);
      const token = await login('promoted');
      assert.equal((await adminRead(token)).statusCode, 403);
      // Signed with the portal's own key and the account's current version, claiming the admin group: still a viewer.
      const { rows: [key] } = await db.query<{ kid: string; sealed_private_jwk: string }>('SELECT kid, sealed_private_jwk FROM auth_signing_keys WHERE retired_at IS NULL');
      const claims = decodeJwt(token);
      const claimsAdmin = await new SignJWT({ ...claims, groups: [ADMIN_GROUP] })
        .setProtectedHeader({ alg: 'ES256', kid: key!.kid, typ: 'JWT' })
        .sign(await importJWK(unsealPrivateJwk(key!.sealed_private_jwk, key!.kid, authKey), 'ES256'));
      assert.equal((await adminRead(claimsAdmin)).statusCode, 403);
      assert.deepEqual((await me(claimsAdmin)).json<{ groups: string[] }>().groups, []);
      // Promoting also revokes: the viewer's token does not become an admin's.
      await setAccountRole(db, 'promoted', true);
      pastTheCache();
      assert.equal((await adminRead(token)).statusCode, 401);
      assert.equal((await adminRead(await login('promoted'))).statusCode, 200);
    });

    test('a new password revokes the tokens signed in with the old one', async () => {
      await addAccount('rotated', false);
      const token = await login('rotated');
      const before = decodeJwt(token).token_version;
      await addAccount('rotated', false, 'another password, also long enough');
      pastTheCache();
      assert.equal((await me(token)).statusCode, 401);
      const fresh = await login('rotated', 'another password, also long enough');
      assert.notEqual(decodeJwt(fresh).token_version, before);
      assert.equal((await me(fresh)).statusCode, 200);
    });

    test('a token without a token version (from before revocation existed) is refused', async () => {
      await addAccount('legacy', false);
      const token = await login('legacy');
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      delete claims.token_version;
      const stripped = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      assert.equal((await me(stripped)).statusCode, 401);
    });

    test('renewal: a valid token buys a fresh one, checked against the account', async () => {
      await addAccount('renewer', true);
      const token = await login('renewer');
      clock.advance(10 * 60_000);
      const res = await renew(`Bearer ${token}`);
      assert.equal(res.statusCode, 200, res.body);
      const fresh = res.json<{ token: string }>().token;
      assert.ok(decodeJwt(fresh).exp! > decodeJwt(token).exp!);
      assert.equal(decodeJwt(fresh).auth_time, decodeJwt(token).auth_time, 'the session keeps its sign-in time');
      assert.equal((await me(fresh)).json<{ is_admin: boolean }>().is_admin, true);

      // Without a bearer, with garbage, or for a removed account: no new token.
      assert.equal((await renew()).json<{ message: string }>().message, SIGN_IN_REQUIRED_MESSAGE);
      assert.equal((await renew('Bearer not-a-token')).statusCode, 401);
      await removeAccount(db, 'renewer');
      // No cache to wait out: a renewal reads the account afresh.
      const refused = await renew(`Bearer ${fresh}`);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json<{ message: string }>().message, INVALID_TOKEN_MESSAGE);
    });

    test('renewal does not resurrect a revoked token inside the cache window', async () => {
      await addAccount('resurrect', false);
      const token = await login('resurrect');
      assert.equal((await me(token)).statusCode, 200); // now cached as valid
      await setAccountRole(db, 'resurrect', true);
      assert.equal((await renew(`Bearer ${token}`)).statusCode, 401);
    });

    test(`renewals keep a session going for at most ${LOCAL_SESSION_MAX_SECONDS / 3600} hours`, async () => {
      await addAccount('workday', false);
      let token = await login('workday');
      const signedInAt = clock.now().getTime();
      const step = (LOCAL_TOKEN_SECONDS - 60) * 1000;
      while (clock.now().getTime() + step < signedInAt + LOCAL_SESSION_MAX_SECONDS * 1000) {
        clock.advance(step);
        const res = await renew(`Bearer ${token}`);
        assert.equal(res.statusCode, 200, `renewal at ${(clock.now().getTime() - signedInAt) / 3_600_000} h: ${res.body}`);
        token = res.json<{ token: string }>().token;
        assert.ok(decodeJwt(token).exp! <= Math.floor(signedInAt / 1000) + LOCAL_SESSION_MAX_SECONDS + 1, 'never past the session limit');
      }
      assert.equal((await me(token)).statusCode, 200, 'still signed in near the end of the working day');
      clock.advance(step);
      assert.equal((await renew(`Bearer ${token}`)).statusCode, 401);
    });

    test('rotate-key: tokens of the retired key are refused, here and on an instance that cached it; new sign-ins work', async () => {
      await addAccount('rotator', true);
      const peer: Database = await db.openPeer();
      try {
        // A second instance on the same database that has already verified (and cached) the old key.
        const other = createLocalIssuer({ db: peer, clock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey });
        const old = await login('rotator');
        assert.equal((await other.verify(old)).username, 'rotator');

        const rotated = await rotateSigningKey(db, authKey);
        assert.notEqual(rotated.kid, decodeProtectedHeader(old).kid);
        pastTheCache();
        assert.equal((await me(old)).statusCode, 401);
        await assert.rejects(other.verify(old), InvalidTokenError);

        const fresh = await login('rotator');
        assert.equal(decodeProtectedHeader(fresh).kid, rotated.kid);
        assert.equal((await me(fresh)).statusCode, 200);
        assert.equal((await other.verify(fresh)).isAdmin, true);
        // The other instance signs with the new key too.
        assert.equal(decodeProtectedHeader(await other.issue('rotator')).kid, rotated.kid);
      } finally {
        await peer.close();
      }
    });

    test('the database holds no private key in the clear, and only one key signs', async () => {
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM auth_signing_keys');
      assert.ok(rows.length >= 2, 'the rotated key is kept, retired');
      for (const row of rows) {
        const text = JSON.stringify(row);
        assert.doesNotMatch(text, /"d"\s*:/, 'no private "d" member in any column');
        assert.equal((row.public_jwk as Record<string, unknown>).d, undefined);
      }
      const active = rows.filter((r) => r.retired_at === null);
      assert.equal(active.length, 1);
      assert.equal(typeof active[0]!.sealed_private_jwk, 'string');
      for (const retired of rows.filter((r) => r.retired_at !== null)) assert.equal(retired.sealed_private_jwk, null, 'a retired key keeps no private part');
    });

    test('with another secret the key cannot be opened, and the error says so', async () => {
      const wrong = createLocalIssuer({ db, clock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: authKeyFromSecret('a different secret of at least thirty-two characters') });
      await assert.rejects(wrong.ready(), (error: unknown) => {
        assert.ok(error instanceof AuthKeySecretError, String(error));
        assert.match(error.message, /AUTH_KEY_SECRET/);
        assert.match(error.message, /rotate-key/);
        return true;
      });
      await assert.rejects(wrong.issue('rotator'), AuthKeySecretError);
    });
  });
}

for (const engine of testDatabases()) {
  test(`upgrading (${engine.name}): keys stored in the clear are retired and their private halves dropped; accounts get distinct versions`, async (t) => {
    const db = await engine.open({ migrate: false });
    const before = await mkdtemp(path.join(tmpdir(), 'migrations-before-014-'));
    t.after(async () => {
      await db.close();
      await rm(before, { recursive: true, force: true });
    });
    for (const m of (await loadMigrations()).filter((m) => m.version < 14)) await cp(path.join(DEFAULT_MIGRATIONS_DIR, m.file), path.join(before, m.file));
    await migrate(db, { dir: before });
    // As the previous version left them: a plain private JWK (with its "d") and two accounts.
    await db.query(`INSERT INTO auth_signing_keys (kid, private_jwk, public_jwk) VALUES ('local-old', '{"kty":"EC","crv":"P-256","x":"x","y":"y","d":"the-private-part"}', '{"kty":"EC","crv":"P-256","x":"x","y":"y"}')`);
    await db.query("INSERT INTO staff_accounts (username, password_hash, is_admin) VALUES ('one', 'h', true), ('two', 'h', false)");

    await migrate(db);
    const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM auth_signing_keys');
    assert.equal(rows.length, 1);
    assert.equal('private_jwk' in rows[0]!, false);
    assert.doesNotMatch(JSON.stringify(rows[0]), /the-private-part|"d"/);
    assert.ok(rows[0]!.retired_at instanceof Date, 'retired');
    const versions = (await db.query<{ token_version: number }>('SELECT token_version FROM staff_accounts')).rows.map((r) => r.token_version);
    assert.equal(new Set(versions).size, 2);

    // The portal then makes a sealed key of its own, and signs with it.
    const issuer = createLocalIssuer({ db, clock: testClock(), clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: authKeyFromSecret('x'.repeat(32)) });
    const token = await issuer.issue('one');
    assert.notEqual(decodeProtectedHeader(token).kid, 'local-old');
    assert.equal((await issuer.verify(token)).isAdmin, true);
  });
}
