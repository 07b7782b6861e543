import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { unsealPrivateJwk } from '../../../src/auth/auth-key-secret.ts';
import { LOCAL_ISSUER } from '../../../src/auth/local-issuer.ts';
import type { Queryable } from '../../../src/db/database.ts';
import { ADMIN_GROUP, CLIENT_ID, TEST_AUTH_KEY } from '../../helpers/staff-app.ts';

/**
 * Staff tokens broken in each way an attacker or a misconfiguration would
 * break them, for the portal's own (local) issuer that the staff test app
 * verifies with (server/test/helpers/staff-app.ts). Every one claims the
 * administrators' group: if its check were skipped, it would be let in as an
 * administrator. Forged with the portal's real signing key (read from the
 * database, opened with the tests' AUTH_KEY_SECRET) where the point is a
 * wrong claim, not a wrong signature.
 */

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function forgedTokens(db: Queryable, viewerToken: string): Promise<Array<[string, string]>> {
  const { rows } = await db.query<{ kid: string; sealed_private_jwk: string; public_jwk: JWK }>('SELECT kid, sealed_private_jwk, public_jwk FROM auth_signing_keys WHERE retired_at IS NULL');
  const row = rows[0];
  if (!row) throw new Error('No signing key yet: issue a token first');
  const key = { ...row, private_jwk: unsealPrivateJwk(row.sealed_private_jwk, row.kid, TEST_AUTH_KEY) };
  const now = Math.floor(Date.now() / 1000);
  // The staff test app's administrator, with the account's current token version: only the one broken part refuses each token.
  const { rows: [root] } = await db.query<{ token_version: number }>("SELECT token_version FROM staff_accounts WHERE username = 'root'");
  if (!root) throw new Error("No 'root' account: start the staff test app first");
  const claims = { sub: 'local:root', preferred_username: 'root', groups: [ADMIN_GROUP], token_version: root.token_version };
  const sign = async (overrides: { iss?: string; aud?: string; iat?: number; exp?: number; nbf?: number } = {}, signingKey: JWK = key.private_jwk, kid = key.kid) => {
    const jwt = new SignJWT({ ...claims, ...(overrides.nbf === undefined ? {} : { nbf: overrides.nbf }) })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .setIssuer(overrides.iss ?? LOCAL_ISSUER)
      .setAudience(overrides.aud ?? CLIENT_ID)
      .setSubject(claims.sub)
      .setIssuedAt(overrides.iat ?? now)
      .setExpirationTime(overrides.exp ?? now + 600);
    return jwt.sign(await importJWK(signingKey, 'ES256'));
  };
  const valid = await sign();
  const [header, payload, signature] = valid.split('.') as [string, string, string];
  const flipped = Buffer.from(signature, 'base64url');
  flipped[10]! ^= 0x01;
  const viewerParts = viewerToken.split('.') as [string, string, string];
  const viewerClaims = JSON.parse(Buffer.from(viewerParts[1], 'base64url').toString()) as Record<string, unknown>;
  const other = await generateKeyPair('ES256', { extractable: true });
  const otherJwk = await exportJWK(other.privateKey);

  return [
    ['expired an hour ago', await sign({ iat: now - 7200, exp: now - 3600 })],
    ['not valid for another hour (nbf)', await sign({ nbf: now + 3600 })],
    ['a wrong signature (one bit flipped)', `${header}.${payload}.${flipped.toString('base64url')}`],
    ["another issuer's", await sign({ iss: 'https://evil.example' })],
    ["another audience's", await sign({ aud: 'some-other-client' })],
    ['alg none, no signature', `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`],
    ["a viewer's token with the administrators' group added", `${viewerParts[0]}.${b64({ ...viewerClaims, groups: [ADMIN_GROUP] })}.${viewerParts[2]}`],
    ['signed by another key under the portal key id', await sign({}, otherJwk)],
    ['signed by another key under an unknown key id', await sign({}, otherJwk, 'local-unknown')],
    [
      "HS256 with the portal's public key as the secret",
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' })
        .setIssuer(LOCAL_ISSUER)
        .setAudience(CLIENT_ID)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(new TextEncoder().encode(JSON.stringify(key.public_jwk))),
    ],
    ['not a JWT', 'not-a-token'],
    ['a JWT cut short', `${header}.${payload}`],
  ];
}
