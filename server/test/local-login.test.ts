import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { startDevIdentityProvider, type DevIdentityProvider } from '../dev/auth/dev-identity-provider.ts';
import { createLocalIssuer, LOCAL_ISSUER, routeByIssuer } from '../src/auth/local-issuer.ts';
import { LOGIN_FAILED_MESSAGE } from '../src/auth/local-login.service.ts';
import { LOGIN_THROTTLE } from '../src/auth/login-throttle.ts';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../src/auth/login.routes.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { saveAccount } from '../src/auth/staff-accounts.repository.ts';
import { createTokenVerifier } from '../src/auth/token-verifier.ts';
import { lockPgliteDir } from '../src/db/pglite-lock.ts';
import { systemClock } from '../src/lib/clock.ts';
import { signIn } from './helpers/oidc-login.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { TEST_AUTH_KEY } from './helpers/staff-app.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/** Local staff accounts: sign-in, throttling, tokens on the same verification path as the provider's. */

const CLIENT_ID = 'slipstream-portal';
const REDIRECT = 'http://127.0.0.1:8080/login/callback';
const ADMIN_GROUP = 'app-slipstream-users';
const PASSWORD = 'correct horse battery staple';

let idp: DevIdentityProvider;
before(async () => {
  idp = await startDevIdentityProvider({ port: 0, clientId: CLIENT_ID, redirectUris: [REDIRECT], production: false });
});
after(async () => idp?.close());

for (const engine of testDatabases()) {
  describe(`local staff sign-in (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
      const provider = createTokenVerifier({ issuer: idp.issuer, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, jwksCooldownMs: 0 });
      const rpc = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 500, maxConcurrency: 1 });
      t = await startTestApp(undefined, db, {
        rpc,
        staff: { verifier: routeByIssuer(issuer, provider), issuer, signIn: { issuer: idp.issuer, clientId: CLIENT_ID } },
      });
      await saveAccount(db, { username: 'root', passwordHash: await hashPassword(PASSWORD), isAdmin: true });
      await saveAccount(db, { username: 'watcher', passwordHash: await hashPassword(PASSWORD), isAdmin: false });
      await saveAccount(db, { username: 'victim', passwordHash: await hashPassword(PASSWORD), isAdmin: false });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    let nextIp = 1;
    const login = (username: string, password: string, ip = `127.0.3.${nextIp++}`) =>
      t.app.inject({ method: 'POST', url: '/rest-api/login', payload: { username, password }, remoteAddress: ip });
    const me = (token: string) => t.app.inject({ method: 'GET', url: '/rest-api/staff/me', headers: { authorization: `Bearer ${token}` } });

    test('the browser learns where staff sign in from the public auth-config, with the documented scopes', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/rest-api/auth-config' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { issuer: idp.issuer, client_id: CLIENT_ID, scopes: 'openid profile email groups' });
    });

    test('an admin signs in and the token opens the staff API with the admin flag', async () => {
      const res = await login('root', PASSWORD);
      assert.equal(res.statusCode, 200);
      const { token } = res.json<{ token: string }>();
      const who = await me(token);
      assert.equal(who.statusCode, 200);
      assert.deepEqual(who.json(), { username: 'root', email: null, groups: [ADMIN_GROUP], is_admin: true });
    });

    test('a viewer signs in without the admin flag', async () => {
      const { token } = (await login('watcher', PASSWORD)).json<{ token: string }>();
      assert.equal((await me(token)).json<{ is_admin: boolean }>().is_admin, false);
    });

    test('a wrong password and an unknown user get the same message', async () => {
      const wrong = await login('root', 'nope');
      const unknown = await login('nobody', PASSWORD);
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      assert.equal(wrong.json<{ message: string }>().message, LOGIN_FAILED_MESSAGE);
      assert.equal(unknown.json<{ message: string }>().message, LOGIN_FAILED_MESSAGE);
    });

    test('failures from one address slow that address only (429 with Retry-After), never lock the owner out', async () => {
      const attacker = '127.0.6.66';
      for (let i = 0; i < LOGIN_THROTTLE.freeFailures; i++) assert.equal((await login('victim', 'guess', attacker)).statusCode, 401);
      // That address now waits before its next attempt is even checked: the right password is refused too.
      const throttled = await login('victim', PASSWORD, attacker);
      assert.equal(throttled.statusCode, 429);
      assert.equal(throttled.headers['retry-after'], String(LOGIN_THROTTLE.firstDelaySeconds));
      assert.match(throttled.json<{ message: string }>().message, /^Too many failed sign-ins/);
      // An unknown username from that address gets the same treatment, so the answer says nothing about accounts.
      for (let i = 0; i < LOGIN_THROTTLE.freeFailures; i++) assert.equal((await login('no-such-user', 'guess', '127.0.6.67')).statusCode, 401);
      const unknown = await login('no-such-user', PASSWORD, '127.0.6.67');
      assert.equal(unknown.statusCode, 429);
      assert.equal(unknown.headers['retry-after'], throttled.headers['retry-after']);
      // The owner, anywhere else, signs in at once.
      const owner = await login('victim', PASSWORD, '127.0.6.7');
      assert.equal(owner.statusCode, 200);
      assert.equal((await me(owner.json<{ token: string }>().token)).statusCode, 200);
    });

    test(`one IP gets ${LOGIN_ATTEMPTS_PER_MINUTE} attempts a minute, then 429 with Retry-After`, async () => {
      for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++) await login('nobody', 'x', '127.0.4.1');
      const limited = await login('root', PASSWORD, '127.0.4.1');
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
    });

    test('the audit trail records sign-ins without the password or the token', async () => {
      await login('root', PASSWORD, '127.0.5.1');
      await t.audit.flush();
      const { rows } = await db.query<{ request_payload: string; response_payload: string; is_success: boolean }>(
        "SELECT request_payload, response_payload, is_success FROM audit_logs WHERE endpoint = '/rest-api/login' AND ip_address = '127.0.5.1'",
      );
      assert.equal(rows.length, 1);
      assert.doesNotMatch(rows[0]!.request_payload, /horse/);
      assert.match(rows[0]!.request_payload, /"password":"\[redacted\]"/);
      assert.doesNotMatch(rows[0]!.response_payload, /eyJ/);
    });

    test('a token claiming the local issuer but signed with another key is refused', async () => {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(privateKey);
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({ preferred_username: 'root', groups: [ADMIN_GROUP] })
        .setProtectedHeader({ alg: 'ES256', kid: 'attacker' })
        .setIssuer(LOCAL_ISSUER)
        .setAudience(CLIENT_ID)
        .setSubject('local:root')
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(privateKey);
      assert.ok(jwk.kty);
      assert.equal((await me(forged)).statusCode, 401);
    });

    test('the provider\'s own ID tokens still work on the same verification path', async () => {
      const admin = idp.staff.find((s) => s.groups.includes(ADMIN_GROUP))!;
      const { idToken } = await signIn({ issuer: idp.issuer, clientId: CLIENT_ID, redirectUri: REDIRECT, username: admin.username, password: admin.password });
      assert.equal((await me(idToken)).json<{ is_admin: boolean }>().is_admin, true);
    });
  });
}

describe('npm run staff', () => {
  const run = promisify(execFile);
  const cli = path.resolve(import.meta.dirname, '../src/cli/staff.ts');
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'staff-cli-'));
  });
  after(async () => rm(dataDir, { recursive: true, force: true }));

  test('adds an admin with a generated password, and lists it', async () => {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
    const added = await run(process.execPath, [cli, 'add', 'ops', '--admin'], { env });
    assert.match(added.stdout, /^added ops \(admin\)\npassword: \S{16}\n$/);
    const listed = await run(process.execPath, [cli, 'list'], { env });
    assert.equal(listed.stdout, 'ops\tadmin\n');
  });

  test('refuses to open the embedded database while another process holds it', async () => {
    const release = await lockPgliteDir(path.join(dataDir, 'pglite'));
    try {
      // The lock holder here is this test process, which is alive: the CLI must refuse.
      await assert.rejects(run(process.execPath, [cli, 'list'], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' } }), (error: Error & { stderr: string }) => {
        assert.match(error.stderr, /in use by process \d+/);
        return true;
      });
    } finally {
      await release();
    }
  });
});
