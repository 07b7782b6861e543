import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { authorize, discover, redeemCode, signIn, SignInError } from '../../test/helpers/oidc-login.ts';
import {
  generateSigningKeys,
  PRODUCTION_REFUSAL,
  startDevIdentityProvider,
  type DevIdentityProvider,
} from './dev-identity-provider.ts';

const clientId = 'slipstream-dashboard';
const redirectUri = 'http://127.0.0.1:5173/login/callback';

function account(idp: DevIdentityProvider, username: string) {
  const person = idp.staff.find((s) => s.username === username);
  assert.ok(person, `demo account ${username}`);
  return person;
}

describe('embedded development identity provider', () => {
  let idp: DevIdentityProvider;

  before(async () => {
    idp = await startDevIdentityProvider({ clientId, redirectUris: [redirectUri], production: false });
  });
  after(async () => {
    await idp.close();
  });

  test('listens on loopback and advertises code flow with S256 PKCE only', async () => {
    assert.match(idp.issuer, /^http:\/\/127\.0\.0\.1:\d+$/);
    const discovery = await discover(idp.issuer);
    assert.deepEqual(discovery.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(discovery.response_types_supported, ['code']);
    for (const scope of ['openid', 'profile', 'email', 'groups']) {
      assert.ok((discovery.scopes_supported as string[]).includes(scope), scope);
    }
  });

  test('default staff are an admin and a viewer with generated passwords', () => {
    assert.deepEqual(idp.staff.map((s) => [s.username, s.groups]), [
      ['admin', ['app-slipstream-users']],
      ['viewer', []],
    ]);
    for (const s of idp.staff) assert.ok(s.password.length >= 16);
    assert.notEqual(account(idp, 'admin').password, account(idp, 'viewer').password);
  });

  for (const [username, groups] of [
    ['admin', ['app-slipstream-users']],
    ['viewer', []],
  ] as const) {
    test(`${username} signs in through the real PKCE flow and gets a verifiable ID token`, async () => {
      const tokens = await signIn({ issuer: idp.issuer, clientId, redirectUri, username, password: account(idp, username).password });
      const discovery = await discover(idp.issuer);
      const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
      const { payload, protectedHeader } = await jwtVerify(tokens.idToken, jwks, {
        issuer: idp.issuer,
        audience: clientId,
        algorithms: ['RS256', 'ES256'],
      });
      assert.equal(protectedHeader.alg, 'RS256');
      assert.equal(payload.sub, username);
      assert.equal(payload.preferred_username, username);
      assert.equal(payload.email, account(idp, username).email);
      assert.equal(typeof payload.name, 'string');
      assert.deepEqual(payload.groups, groups);
      assert.ok(payload.exp! - payload.iat! === 3600);
      assert.ok(tokens.accessToken.length > 0);
      assert.equal(tokens.expiresIn, 600);
      assert.ok(tokens.refreshToken, 'a refresh token for renewal');
    });
  }

  /** Renews at the token endpoint as a browser app does; returns the new ID token. */
  async function refresh(refreshToken: string): Promise<string> {
    const discovery = await discover(idp.issuer);
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { id_token: string }).id_token;
  }

  test('the refresh token renews the ID token', async () => {
    const tokens = await signIn({ issuer: idp.issuer, clientId, redirectUri, username: 'viewer', password: account(idp, 'viewer').password });
    const discovery = await discover(idp.issuer);
    const idToken = await refresh(tokens.refreshToken!);
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(discovery.jwks_uri)), { issuer: idp.issuer, audience: clientId });
    assert.equal(payload.preferred_username, 'viewer');
    assert.deepEqual(payload.groups, []);
  });

  test('a wrong password is refused with one generic message', async () => {
    for (const [username, password] of [['admin', 'wrong'], ['nobody', 'wrong'], ['viewer', account(idp, 'admin').password]]) {
      await assert.rejects(
        signIn({ issuer: idp.issuer, clientId, redirectUri, username: username!, password: password! }),
        (err: unknown) => {
          assert.ok(err instanceof SignInError);
          assert.match(err.message, /Invalid username or password/);
          assert.match(err.page ?? '', /Invalid username or password/);
          return true;
        },
      );
    }
  });

  test('the login page escapes what it echoes, and a stale interaction gets a clear page', async () => {
    await assert.rejects(
      signIn({ issuer: idp.issuer, clientId, redirectUri, username: '<script>"x"</script>', password: 'p' }),
      (err: unknown) => {
        assert.ok(err instanceof SignInError);
        assert.ok(!err.page?.includes('<script>'));
        assert.match(err.page ?? '', /&#60;script&#62;&#34;x&#34;/);
        return true;
      },
    );
    const response = await fetch(`${idp.issuer}/interaction/unknown-uid`);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /Sign-in failed/);
  });

  test('RP-initiated logout returns to a registered address', async () => {
    const postLogout = 'http://127.0.0.1:5173/';
    const own = await startDevIdentityProvider({ clientId, redirectUris: [redirectUri], postLogoutRedirectUris: [postLogout], production: false });
    try {
      const tokens = await signIn({ issuer: own.issuer, clientId, redirectUri, username: 'admin', password: account(own, 'admin').password });
      const discovery = await discover(own.issuer);
      const url = new URL(discovery.end_session_endpoint as string);
      url.search = new URLSearchParams({ id_token_hint: tokens.idToken, post_logout_redirect_uri: postLogout, state: 'bye' }).toString();
      // With a valid id_token_hint oidc-provider auto-submits its confirmation form; post it as the browser would.
      const confirm = await fetch(url, { redirect: 'manual' });
      assert.equal(confirm.status, 200);
      const page = await confirm.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      assert.ok(action);
      const fields = new URLSearchParams([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1]!, m[2]!]));
      assert.ok(fields.get('xsrf'));
      fields.set('logout', 'yes');
      const cookie = confirm.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const done = await fetch(new URL(action, own.issuer), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: fields.toString(),
      });
      assert.equal(done.status, 303);
      const back = new URL(done.headers.get('location')!);
      assert.equal(`${back.origin}${back.pathname}`, postLogout);
      assert.equal(back.searchParams.get('state'), 'bye');
    } finally {
      await own.close();
    }
  });

  test('an authorization request without a PKCE challenge is refused', async () => {
    const discovery = await discover(idp.issuer);
    const variants: Array<Record<string, string>> = [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }];
    for (const extra of variants) {
      const url = new URL(discovery.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid', state: 's', ...extra,
      }).toString();
      const response = await fetch(url, { redirect: 'manual' });
      assert.equal(response.status, 303);
      const back = new URL(response.headers.get('location')!);
      assert.equal(`${back.origin}${back.pathname}`, redirectUri);
      assert.equal(back.searchParams.get('error'), 'invalid_request');
      assert.equal(back.searchParams.get('code'), null);
    }
  });

  test('a code is not redeemed without its PKCE verifier', async () => {
    const options = { issuer: idp.issuer, clientId, redirectUri, username: 'admin', password: account(idp, 'admin').password };
    const result = await authorize(options);
    await assert.rejects(redeemCode(options, { ...result, codeVerifier: randomBytes(32).toString('base64url') }), /invalid_grant/);
    // The failed attempt consumed nothing usable: a fresh flow still works, and a verifier's hash is not accepted as the verifier.
    const again = await authorize(options);
    const hashed = createHash('sha256').update(again.codeVerifier).digest('base64url');
    await assert.rejects(redeemCode(options, { ...again, codeVerifier: hashed }), /invalid_grant/);
  });

  test('rotated keys sign new ID tokens and the JWKS serves them', async () => {
    const options = { issuer: idp.issuer, clientId, redirectUri, username: 'admin', password: account(idp, 'admin').password };
    const discovery = await discover(idp.issuer);
    // A verifier that has cached the old keys picks the new one up without restart.
    const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri), { cooldownDuration: 0 });
    const before = await signIn(options);
    await jwtVerify(before.idToken, jwks, { issuer: idp.issuer, audience: clientId });
    const oldKid = decodeProtectedHeader(before.idToken).kid;

    const newKeys = await generateSigningKeys();
    await idp.rotateKeys(newKeys);

    const after = await signIn(options);
    const newKid = decodeProtectedHeader(after.idToken).kid;
    assert.ok(newKid && newKid !== oldKid);
    assert.ok(newKeys.keys.some((k) => k.kid === newKid));
    const served = (await (await fetch(discovery.jwks_uri)).json()) as { keys: Array<{ kid: string; d?: string }> };
    assert.deepEqual(served.keys.map((k) => k.kid).sort(), newKeys.keys.map((k) => k.kid!).sort());
    assert.ok(served.keys.every((k) => k.d === undefined), 'the JWKS serves public keys only');
    const { payload } = await jwtVerify(after.idToken, jwks, { issuer: idp.issuer, audience: clientId });
    assert.deepEqual(payload.groups, ['app-slipstream-users']);

    // A refresh token issued before the rotation still renews, now under the new key.
    const renewed = await refresh(before.refreshToken!);
    assert.equal(decodeProtectedHeader(renewed).kid, newKid);
    await jwtVerify(renewed, jwks, { issuer: idp.issuer, audience: clientId });
  });
});

test('refuses to start in production', async () => {
  await assert.rejects(
    startDevIdentityProvider({ clientId, redirectUris: [redirectUri], production: true }),
    { message: PRODUCTION_REFUSAL },
  );
});

test('uses the staff and keys it is given', async () => {
  const jwks = await generateSigningKeys();
  const idp = await startDevIdentityProvider({
    clientId,
    redirectUris: [redirectUri],
    production: false,
    jwks,
    staff: [{ username: 'ops', password: 'correct horse', name: 'Ops', email: 'ops@example.test', groups: ['app-slipstream-users', 'ops'] }],
  });
  try {
    const tokens = await signIn({ issuer: idp.issuer, clientId, redirectUri, username: 'ops', password: 'correct horse' });
    assert.equal(decodeProtectedHeader(tokens.idToken).kid, jwks.keys[0]!.kid);
    const { payload } = await jwtVerify(tokens.idToken, createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)), { issuer: idp.issuer, audience: clientId });
    assert.deepEqual(payload.groups, ['app-slipstream-users', 'ops']);
  } finally {
    await idp.close();
  }
});
