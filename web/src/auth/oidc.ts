import { ErrorResponse, UserManager, type StateStore } from 'oidc-client-ts';
import { fetchAuthConfig } from '../api/auth-config.ts';
import { retryProviderCalls } from './provider-fetch.ts';
import { clearStoredToken, rawTokenSet, writeRawTokenSet } from './token-storage.ts';

/**
 * The OpenID Connect client: authorization code flow with PKCE (S256) through
 * oidc-client-ts, against whichever provider the server names. The library
 * keeps its user under its own key; this store puts it under the documented key (docs/behaviour.md#staff-sign-in).
 */

class TokenSetStore implements StateStore {
  // One user per app: the library's key (issuer and client id) is not needed.
  set(_key: string, value: string): Promise<void> {
    writeRawTokenSet(value);
    return Promise.resolve();
  }
  get(): Promise<string | null> {
    return Promise.resolve(rawTokenSet());
  }
  remove(): Promise<string | null> {
    const previous = rawTokenSet();
    clearStoredToken();
    return Promise.resolve(previous);
  }
  getAllKeys(): Promise<string[]> {
    return Promise.resolve(rawTokenSet() === null ? [] : ['user']);
  }
}

export const CALLBACK_PATH = '/login/callback';

let manager: Promise<{ manager: UserManager; issuer: string }> | undefined;

export function signInClient(): Promise<{ manager: UserManager; issuer: string }> {
  manager ??= fetchAuthConfig().then((config) => {
    // docs/behaviour.md#sign-in-retries: the provider's endpoints are retried like the rest of the sign-in layer.
    retryProviderCalls(config.issuer);
    return {
      issuer: config.issuer,
      manager: new UserManager({
        authority: config.issuer,
        client_id: config.client_id,
        scope: config.scopes,
        response_type: 'code',
        redirect_uri: `${window.location.origin}${CALLBACK_PATH}`,
        // The same page answers the hidden-frame renewal when there is no refresh token.
        silent_redirect_uri: `${window.location.origin}${CALLBACK_PATH}`,
        post_logout_redirect_uri: `${window.location.origin}/`,
        userStore: new TokenSetStore(),
        // Renewal is scheduled by the session keeper, which knows the bearer is the ID token.
        automaticSilentRenew: false,
        // The groups claim is in the ID token; no userinfo round trip.
        loadUserInfo: false,
        monitorSession: false,
      }),
    };
  }).catch((error: unknown) => {
    manager = undefined; // a later attempt may succeed
    throw error;
  });
  return manager;
}

interface ReturnState {
  returnTo: string;
}

/** The provider could not be reached at all (every retry failed to connect, or timed out). */
export class ProviderUnreachableError extends Error {
  readonly issuer: string;
  constructor(issuer: string, options?: ErrorOptions) {
    super(`The sign-in provider at ${issuer} is unreachable.`, options);
    this.name = 'ProviderUnreachableError';
    this.issuer = issuer;
  }
}

/** A fetch that never got an answer: the browser's network failure, or our per-attempt timeout. */
function networkFailure(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError'));
}

/** Sends the browser to the provider; it comes back to `returnTo`. */
export async function startSignIn(returnTo: string): Promise<void> {
  const { manager, issuer } = await signInClient();
  try {
    await manager.signinRedirect({ state: { returnTo } satisfies ReturnState });
  } catch (error) {
    if (networkFailure(error)) throw new ProviderUnreachableError(issuer, { cause: error });
    throw error;
  }
}

/** Completes a redirect (or hidden-frame) sign-in; answers where to go next. */
export async function completeSignIn(): Promise<string> {
  const { manager } = await signInClient();
  const user = await manager.signinCallback();
  const state = user?.state as Partial<ReturnState> | undefined;
  return sameSitePath(state?.returnTo);
}

/**
 * Only an address on this site. The state is kept in this browser's storage,
 * but anything that can write there could plant a return address; '/\\evil'
 * and '//evil' are other sites to a browser.
 */
export function sameSitePath(target: unknown): string {
  if (typeof target !== 'string') return '/';
  try {
    const url = new URL(target, window.location.origin);
    return url.origin === window.location.origin ? `${url.pathname}${url.search}${url.hash}` : '/';
  } catch {
    return '/';
  }
}

/** A fresh token set: with the refresh token when there is one, otherwise in a hidden frame. */
export async function renewSignIn(): Promise<void> {
  const { manager } = await signInClient();
  const user = await manager.signinSilent();
  if (!user) throw new Error('Renewal returned no token');
}

/** The provider answered and said no (invalid_grant, login_required...): retrying will not help. */
export function refusedByProvider(error: unknown): boolean {
  return error instanceof ErrorResponse;
}

/** Ends the provider's session too (OpenID Connect RP-Initiated Logout 1.0). */
export async function signOutAtProvider(idToken: string): Promise<void> {
  const { manager } = await signInClient();
  await manager.removeUser();
  await manager.signoutRedirect({ id_token_hint: idToken });
}
