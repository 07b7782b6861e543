import { randomBytes } from 'node:crypto';
import type { Account, AdapterFactory, Configuration, JWK } from 'oidc-provider';
import { providerPages } from './dev-identity-provider.pages.ts';

/** A demo staff account of the embedded provider. */
export interface DevStaffAccount {
  username: string;
  password: string;
  name: string;
  email: string;
  groups: string[];
}

/** The admin group of docs/behaviour.md#roles-and-permissions. */
const ADMIN_GROUP = 'app-slipstream-users';

/** An admin and a viewer with passwords that exist only for this process. */
export function defaultStaff(): DevStaffAccount[] {
  const password = () => randomBytes(12).toString('base64url');
  return [
    { username: 'admin', password: password(), name: 'Demo Admin', email: 'admin@example.test', groups: [ADMIN_GROUP] },
    { username: 'viewer', password: password(), name: 'Demo Viewer', email: 'viewer@example.test', groups: [] },
  ];
}

export interface DevProviderSettings {
  clientId: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  staff: DevStaffAccount[];
  /** Keys for signing the session and interaction cookies; kept across key rotation. */
  cookieKeys: string[];
  /** The in-memory store, shared across key rotations. */
  adapter: AdapterFactory;
}

/** Claims each scope releases (OIDC Core 1.0 section 5.4, plus `groups`). */
const CLAIMS_BY_SCOPE = {
  openid: ['sub'],
  profile: ['name', 'preferred_username'],
  email: ['email', 'email_verified'],
  groups: ['groups'],
};

function accountFor(staff: DevStaffAccount[], sub: string): Account | undefined {
  const person = staff.find((s) => s.username === sub);
  if (!person) return undefined;
  return {
    accountId: person.username,
    // oidc-provider filters these by the granted scopes and claims.
    claims: () => ({
      sub: person.username,
      name: person.name,
      preferred_username: person.username,
      email: person.email,
      email_verified: true,
      groups: [...person.groups],
    }),
  };
}

/** The oidc-provider configuration of the embedded development provider. */
export function providerConfiguration(settings: DevProviderSettings, jwks: { keys: JWK[] }): Configuration {
  const allowedOrigins = new Set(settings.redirectUris.map((uri) => new URL(uri).origin));
  return {
    clients: [
      {
        client_id: settings.clientId,
        // A browser app holds no secret: a public client, protected by PKCE (RFC 7636, RFC 9700 section 2.1.1).
        token_endpoint_auth_method: 'none',
        application_type: 'web',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: settings.redirectUris,
        post_logout_redirect_uris: settings.postLogoutRedirectUris,
        scope: 'openid profile email groups offline_access',
        id_token_signed_response_alg: 'RS256',
      },
    ],
    adapter: settings.adapter,
    jwks,
    cookies: { keys: settings.cookieKeys },
    responseTypes: ['code'],
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    claims: CLAIMS_BY_SCOPE,
    // The admin API takes the ID token as its bearer (docs/behaviour.md#staff-sign-in), so the
    // scope claims go into the ID token, not only to the userinfo endpoint.
    conformIdTokenClaims: false,
    // Only S256 exists in oidc-provider 9; require it for every request.
    pkce: { required: () => true },
    // A browser sign-in renews with its refresh token without asking for
    // prompt=consent, which OIDC Core requires for offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: (_ctx, origin) => allowedOrigins.has(origin),
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256'] },
    ttl: {
      AccessToken: 10 * 60,
      AuthorizationCode: 60,
      IdToken: 60 * 60,
      RefreshToken: 24 * 60 * 60,
      Grant: 24 * 60 * 60,
      Interaction: 60 * 60,
      Session: 24 * 60 * 60,
    },
    features: {
      // Our own login page replaces the development-only interactions.
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: providerPages.logoutSource,
        postLogoutSuccessSource: providerPages.postLogoutSuccessSource,
      },
      revocation: { enabled: true },
    },
    renderError: providerPages.renderError,
    findAccount: (_ctx, sub) => accountFor(settings.staff, sub),
  };
}
