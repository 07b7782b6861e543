import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type JWK } from 'oidc-provider';
import { defaultStaff, providerConfiguration, type DevProviderSettings, type DevStaffAccount } from './dev-identity-provider.config.ts';
import { handleInteraction, INTERACTION_PATH } from './dev-identity-provider.interactions.ts';
import { generateSigningKeys } from './dev-identity-provider.keys.ts';
import { messagePage } from './dev-identity-provider.pages.ts';
import { createDevProviderStore } from './dev-identity-provider.store.ts';
import { PRODUCTION_REFUSAL } from '../../src/embedded-defaults.ts';

export type { DevStaffAccount } from './dev-identity-provider.config.ts';
export { generateSigningKeys, type SigningKeySet } from './dev-identity-provider.keys.ts';
export { PRODUCTION_REFUSAL };

/**
 * The embedded OpenID provider for development and tests (issue 5, "Embedded
 * default"): the maintained `oidc-provider` package on loopback, one public
 * client using the authorization code flow with PKCE, two demo staff, and our
 * own minimal login page. Everything lives in memory.
 */

export interface DevIdentityProviderOptions {
  host?: '127.0.0.1';
  /** 0 (the default) picks a free port. */
  port?: number;
  clientId: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /** True under NODE_ENV=production: the provider then refuses to start. */
  production: boolean;
  /** Private signing keys; an RS256 and an ES256 key are generated when absent. */
  jwks?: { keys: JWK[] };
  /** Demo accounts; an admin and a viewer with random passwords when absent. */
  staff?: DevStaffAccount[];
}

export interface DevIdentityProvider {
  /** e.g. http://127.0.0.1:PORT, without a trailing slash. */
  issuer: string;
  clientId: string;
  /** The demo accounts with their credentials, for printing at start. */
  staff: DevStaffAccount[];
  /**
   * Replaces the signing keys: later tokens carry the new kid and the JWKS
   * endpoint serves only the new keys. Sessions, grants and refresh tokens
   * survive (the provider is rebuilt on the same port and in-memory store).
   */
  rotateKeys(newJwks: { keys: JWK[] }): Promise<void>;
  close(): Promise<void>;
}


type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

interface Running {
  provider: Provider;
  callback: Handler;
}

function buildProvider(issuer: string, settings: DevProviderSettings, jwks: { keys: JWK[] }): Running {
  const provider = new Provider(issuer, providerConfiguration(settings, jwks));
  return { provider, callback: provider.callback() };
}

/** oidc-provider's errors carry an HTTP status and a description meant for the user. */
function replyWithError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy(err instanceof Error ? err : undefined);
    return;
  }
  const { status, error_description: description, message } = (err ?? {}) as {
    status?: unknown;
    error_description?: unknown;
    message?: unknown;
  };
  const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
  const text = code === 500 ? `Internal error: ${String(message)}` : String(description ?? message);
  res.writeHead(code, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(messagePage('Sign-in failed', `${text} Start again from the app.`));
}

export async function startDevIdentityProvider(options: DevIdentityProviderOptions): Promise<DevIdentityProvider> {
  if (options.production) throw new Error(PRODUCTION_REFUSAL);
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('The embedded identity provider listens on 127.0.0.1 only');
  if (options.redirectUris.length === 0) throw new Error('The embedded identity provider needs at least one redirect URI');

  const staff = options.staff ?? defaultStaff();
  const settings: DevProviderSettings = {
    clientId: options.clientId,
    redirectUris: options.redirectUris,
    postLogoutRedirectUris: options.postLogoutRedirectUris ?? [],
    staff,
    cookieKeys: [randomBytes(32).toString('base64url')],
    adapter: createDevProviderStore(),
  };
  const jwks = options.jwks ?? (await generateSigningKeys());

  let running: Running | undefined;
  const server = createServer((req, res) => {
    const current = running;
    if (!current) {
      res.writeHead(503).end();
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const match = INTERACTION_PATH.exec(path);
    if (match?.[1]) {
      handleInteraction(current.provider, staff, req, res, match[1], match[2] !== undefined).catch((err: unknown) =>
        replyWithError(res, err),
      );
      return;
    }
    // Koa's callback handles its own errors (oidc-provider renders them).
    void current.callback(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host}:${port}`;
  try {
    running = buildProvider(issuer, settings, jwks);
  } catch (err) {
    server.close();
    throw err;
  }

  return {
    issuer,
    clientId: options.clientId,
    staff,
    async rotateKeys(newJwks) {
      running = buildProvider(issuer, settings, newJwks);
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // fetch keeps connections alive; close them so close() does not wait for their timeout.
        server.closeAllConnections();
      });
    },
  };
}
