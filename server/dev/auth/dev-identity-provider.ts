import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Provider, { type JWK } from 'oidc-provider';
import { defaultStaff, providerConfiguration, type DevProviderSettings, type DevStaffAccount } from './dev-identity-provider.config.ts';
import { handleInteraction, INTERACTION_PATH } from './dev-identity-provider.interactions.ts';
import { generateSigningKeys } from './dev-identity-provider.keys.ts';
import { messagePage } from './dev-identity-provider.pages.ts';
import { loadOrCreateState, writePrivateFile, type KeySealer } from './dev-identity-provider.state.ts';
import { createDevProviderStore, type StoreSnapshot } from './dev-identity-provider.store.ts';
import { PRODUCTION_REFUSAL } from '../../src/embedded-defaults.ts';

export type { DevStaffAccount } from './dev-identity-provider.config.ts';
export { DEV_IDENTITY_FILE, type KeySealer } from './dev-identity-provider.state.ts';

/** Where the provider keeps its sessions, grants and refresh tokens between starts (beside DEV_IDENTITY_FILE). */
export const DEV_SESSIONS_FILE = 'dev-identity-sessions.json';
/** Changes to the sessions are written at most this often. */
const SESSIONS_SAVE_DELAY_MS = 200;
export { generateSigningKeys, type SigningKeySet } from './dev-identity-provider.keys.ts';
export { PRODUCTION_REFUSAL };

/**
 * The embedded OpenID provider for development and tests
 * (docs/architecture.md#development-identity-provider): the maintained
 * `oidc-provider` package on loopback, one public client using the
 * authorization code flow with PKCE, two demo staff, and our own minimal
 * login page. Everything lives in memory.
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
  /**
   * Keep the demo accounts, the keys and the sessions in `dir` (DATA_DIR)
   * across restarts, the keys sealed by `sealer` (dev-identity-provider.state.ts).
   * Without it everything lives in memory and ends with the process.
   */
  persist?: { dir: string; sealer: KeySealer };
}

export interface DevIdentityProvider {
  /** e.g. http://127.0.0.1:PORT, without a trailing slash. */
  issuer: string;
  clientId: string;
  /** The demo accounts with their credentials, for printing at start. */
  staff: DevStaffAccount[];
  /** The file the accounts and keys are kept in (options.persist), or undefined when in memory only. */
  stateFile: string | undefined;
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

/**
 * The sessions file: read once at start, written (whole) a moment after each
 * change and at close. A file that cannot be read is a cache lost, not an
 * error: whoever was signed in signs in again.
 */
async function persistedSessions(file: string) {
  let snapshot: StoreSnapshot | undefined;
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<StoreSnapshot>;
    if (Array.isArray(parsed.entries) && Array.isArray(parsed.grants)) snapshot = { entries: parsed.entries, grants: parsed.grants };
  } catch {
    snapshot = undefined;
  }
  let read: (() => StoreSnapshot) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    timer = undefined;
    const current = read?.();
    if (!current) return writing;
    // One write at a time, in order: the last one written is the last state.
    writing = writing.then(() => writePrivateFile(file, JSON.stringify(current))).catch((error: unknown) => {
      console.error(`[dev identity provider] could not save ${file}: ${(error as Error).message}`);
    });
    return writing;
  };
  return {
    snapshot,
    attach(reader: () => StoreSnapshot) {
      read = reader;
    },
    changed() {
      timer ??= setTimeout(() => void save(), SESSIONS_SAVE_DELAY_MS).unref();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      await save();
    },
  };
}

export async function startDevIdentityProvider(options: DevIdentityProviderOptions): Promise<DevIdentityProvider> {
  if (options.production) throw new Error(PRODUCTION_REFUSAL);
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('The embedded identity provider listens on 127.0.0.1 only');
  if (options.redirectUris.length === 0) throw new Error('The embedded identity provider needs at least one redirect URI');

  const fresh = async () => ({
    staff: options.staff ?? defaultStaff(),
    jwks: options.jwks ?? (await generateSigningKeys()),
    cookieKeys: [randomBytes(32).toString('base64url')],
  });
  const persist = options.persist;
  const state = persist ? await loadOrCreateState(persist.dir, persist.sealer, fresh) : { ...(await fresh()), file: undefined };
  const sessions = persist ? await persistedSessions(path.join(persist.dir, DEV_SESSIONS_FILE)) : undefined;
  const adapter = createDevProviderStore({ snapshot: sessions?.snapshot, onChange: () => sessions?.changed() });
  sessions?.attach(() => adapter.snapshot());
  const { staff, jwks } = state;
  const settings: DevProviderSettings = {
    clientId: options.clientId,
    redirectUris: options.redirectUris,
    postLogoutRedirectUris: options.postLogoutRedirectUris ?? [],
    staff,
    cookieKeys: state.cookieKeys,
    adapter,
  };

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
    stateFile: state.file,
    // Rotation is for tests of key rollover: the new keys live in memory only.
    async rotateKeys(newJwks) {
      running = buildProvider(issuer, settings, newJwks);
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // fetch keeps connections alive; close them so close() does not wait for their timeout.
        server.closeAllConnections();
      });
      await sessions?.flush();
    },
  };
}
