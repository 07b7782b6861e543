import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { importJWK, SignJWT, type JWK } from 'jose';
import { startDevIdentityProvider, generateSigningKeys, type DevIdentityProvider, type SigningKeySet } from '../dev/auth/dev-identity-provider.ts';
import { ADMIN_REQUIRED_MESSAGE, INVALID_TOKEN_MESSAGE, SIGN_IN_REQUIRED_MESSAGE, staffScope } from '../src/auth/staff-scope.ts';
import { staffMeRoutes } from '../src/auth/staff.routes.ts';
import { createTokenVerifier, InvalidTokenError, type TokenVerifier } from '../src/auth/token-verifier.ts';
import { ApiError } from '../src/http/errors.ts';
import { signIn } from './helpers/oidc-login.ts';

/**
 * Staff tokens against a real OpenID Connect provider (the embedded one,
 * oidc-provider): genuine tokens from the PKCE flow, and tokens broken in
 * each way an attacker or a misconfiguration would break them. The provider
 * signs with keys this test made, so a token can be forged with a valid
 * signature but wrong claims.
 */

const CLIENT_ID = 'slipstream-portal';
const REDIRECT = 'http://127.0.0.1:8080/login/callback';
const ADMIN_GROUP = 'app-slipstream-users';

let idp: DevIdentityProvider;
let keys: SigningKeySet;
let verifier: TokenVerifier;
let adminToken: string;
let viewerToken: string;

const rsaKey = () => keys.keys.find((k) => k.kty === 'RSA')! as JWK & { kid: string };

/** A token signed with the provider's own RSA key: valid signature, claims as given. */
async function forge(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const key = rsaKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'forged', iss: idp.issuer, aud: CLIENT_ID, iat: now, exp: now + 600, groups: [ADMIN_GROUP], ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, ...header })
    .sign(await importJWK(key, 'RS256'));
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

before(async () => {
  keys = await generateSigningKeys();
  idp = await startDevIdentityProvider({ port: 0, clientId: CLIENT_ID, redirectUris: [REDIRECT], production: false, jwks: keys });
  verifier = createTokenVerifier({ issuer: idp.issuer, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, jwksCooldownMs: 0 });
  const login = (username: string) => {
    const account = idp.staff.find((s) => s.username === username)!;
    return signIn({ issuer: idp.issuer, clientId: CLIENT_ID, redirectUri: REDIRECT, username, password: account.password });
  };
  adminToken = (await login('admin')).idToken;
  viewerToken = (await login('viewer')).idToken;
});

after(async () => {
  await idp?.close();
});

describe('token verification', () => {
  test('an admin\'s ID token from the PKCE flow verifies, with the admin flag', async () => {
    const identity = await verifier.verify(adminToken);
    assert.equal(identity.username, 'admin');
    assert.equal(identity.isAdmin, true);
    assert.ok(identity.groups.includes(ADMIN_GROUP));
  });

  test('a viewer\'s ID token verifies, without the admin flag', async () => {
    const identity = await verifier.verify(viewerToken);
    assert.equal(identity.username, 'viewer');
    assert.equal(identity.isAdmin, false);
  });

  const broken: Array<[string, () => Promise<string>]> = [
    ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'x', iss: idp.issuer, aud: CLIENT_ID, exp: Math.floor(Date.now() / 1000) + 600, iat: Math.floor(Date.now() / 1000), groups: [ADMIN_GROUP] })}.`],
    [
      'HS256 signed with the provider\'s public key',
      async () => {
        const publicPem = createPublicKey({ key: rsaKey(), format: 'jwk' }).export({ type: 'spki', format: 'pem' });
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ sub: 'x', iss: idp.issuer, aud: CLIENT_ID, iat: now, exp: now + 600, groups: [ADMIN_GROUP] })
          .setProtectedHeader({ alg: 'HS256', kid: rsaKey().kid })
          .sign(Buffer.from(publicPem));
      },
    ],
    ['wrong issuer', () => forge({ iss: 'http://127.0.0.1:1/evil' })],
    ['wrong audience', () => forge({ aud: 'some-other-client' })],
    // OpenID Connect Core 1.0 section 3.1.3.7, items 4 and 5: a token for several audiences names the party it was
    // issued to (azp), and that must be us; otherwise another client's token that happens to list us too would pass.
    ['several audiences without azp', () => forge({ aud: [CLIENT_ID, 'another-client'] })],
    ['several audiences, issued to another client', () => forge({ aud: [CLIENT_ID, 'another-client'], azp: 'another-client' })],
    ['issued to another client (azp)', () => forge({ azp: 'another-client' })],
    ['azp that is not a string', () => forge({ aud: [CLIENT_ID, 'another-client'], azp: [CLIENT_ID] })],
    ['expired by 61 s', () => forge({ exp: Math.floor(Date.now() / 1000) - 61, iat: Math.floor(Date.now() / 1000) - 700 })],
    ['not valid before the future', () => forge({ nbf: Math.floor(Date.now() / 1000) + 120 })],
    ['an unknown key id', () => forge({}, { kid: 'no-such-key' })],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = viewerToken.split('.');
        const payload = JSON.parse(Buffer.from(viewerToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
        return `${header}.${b64({ ...payload, groups: [ADMIN_GROUP] })}.${signature}`;
      },
    ],
    ['not a JWT at all', async () => 'not-a-token'],
  ];
  for (const [name, make] of broken) {
    test(`refused: ${name}`, async () => {
      await assert.rejects(verifier.verify(await make()), InvalidTokenError);
    });
  }

  test('several audiences verify when azp names our client id, and so does one audience with azp naming us', async () => {
    assert.equal((await verifier.verify(await forge({ aud: [CLIENT_ID, 'another-client'], azp: CLIENT_ID }))).subject, 'forged');
    assert.equal((await verifier.verify(await forge({ aud: [CLIENT_ID], azp: CLIENT_ID }))).subject, 'forged');
    assert.equal((await verifier.verify(await forge({ azp: CLIENT_ID }))).subject, 'forged');
  });

  test('within 60 s of clock skew an expired token still verifies (the edge of the allowance)', async () => {
    const token = await forge({ exp: Math.floor(Date.now() / 1000) - 50, iat: Math.floor(Date.now() / 1000) - 700 });
    assert.equal((await verifier.verify(token)).subject, 'forged');
  });

  test('a key rotated at the provider is picked up without a restart', async () => {
    const rotated = await generateSigningKeys();
    await idp.rotateKeys(rotated);
    keys = rotated;
    const account = idp.staff.find((s) => s.username === 'admin')!;
    const fresh = (await signIn({ issuer: idp.issuer, clientId: CLIENT_ID, redirectUri: REDIRECT, username: 'admin', password: account.password })).idToken;
    const header = JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()) as { kid: string };
    assert.ok(rotated.keys.some((k) => k.kid === header.kid), 'the new token carries a new key id');
    assert.equal((await verifier.verify(fresh)).isAdmin, true);
    // The old key is gone from the provider: a token signed with it no longer verifies.
    await assert.rejects(verifier.verify(adminToken), InvalidTokenError);
  });
});

describe('staff routes: the scope hooks', () => {
  let app: FastifyInstance;
  let writes = 0;

  before(async () => {
    app = Fastify();
    app.setErrorHandler((error: Error, _request: FastifyRequest, reply: FastifyReply) =>
      reply.status(error instanceof ApiError ? error.statusCode : 500).send({ status: 'error', message: error.message }),
    );
    await app.register(staffScope, {
      prefix: '/rest-api',
      verifier,
      viewRoutes: [staffMeRoutes()],
      adminRoutes: [
        async (admin: FastifyInstance) => {
          admin.post('/test-write', async () => ({ written: ++writes }));
        },
      ],
    });
    await app.ready();
  });
  after(async () => app.close());

  const call = (method: 'GET' | 'POST', url: string, token?: string) =>
    app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, payload: method === 'POST' ? {} : undefined });

  test('without a token: 401 with a clear message, and nothing runs', async () => {
    const res = await call('POST', '/rest-api/test-write');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json<{ message: string }>().message, SIGN_IN_REQUIRED_MESSAGE);
    assert.equal(writes, 0);
  });

  test('a broken token: 401', async () => {
    const res = await call('GET', '/rest-api/staff/me', await forge({ aud: 'someone-else' }));
    assert.equal(res.statusCode, 401);
    assert.equal(res.json<{ message: string }>().message, INVALID_TOKEN_MESSAGE);
  });

  test('a viewer reads but may not write: 403, and the write does not happen', async () => {
    const token = await forge({ sub: 'v', preferred_username: 'viewer', groups: [] });
    const me = await call('GET', '/rest-api/staff/me', token);
    assert.equal(me.statusCode, 200);
    assert.deepEqual(me.json(), { username: 'viewer', email: null, groups: [], is_admin: false });
    const write = await call('POST', '/rest-api/test-write', token);
    assert.equal(write.statusCode, 403);
    assert.equal(write.json<{ message: string }>().message, ADMIN_REQUIRED_MESSAGE);
    assert.equal(writes, 0);
  });

  test('an admin writes', async () => {
    const token = await forge({ sub: 'a', preferred_username: 'admin' });
    const res = await call('POST', '/rest-api/test-write', token);
    assert.equal(res.statusCode, 200);
    assert.equal(writes, 1);
  });
});
