/**
 * Where the sign-in layer keeps the staff token set (docs/behaviour.md#staff-sign-in): browser
 * local storage under this key, as the JSON of an oidc-client-ts `User`
 * (`id_token`, `access_token`, `refresh_token`, `expires_at`, `profile`).
 * Tokens from a local staff account are stored in the same shape, so every
 * reader has one format. Nothing here verifies a token: the server does that
 * on every call; the claims read here only schedule renewal and pick labels.
 */
export const TOKEN_STORAGE_KEY = 'okta-token-storage';

export interface StoredSession {
  /** The bearer for the staff API: the provider's ID token (docs/behaviour.md#staff-sign-in). */
  idToken: string;
  /**
   * Seconds since the epoch at which the bearer, the ID token, expires: the
   * session is good until then, whatever happens to the rest of the set.
   */
  expiresAt: number;
  /** When the set's short-lived access token expires (never after `expiresAt`): renewal is due before then. */
  renewBy: number;
  /** Who issued it: the OpenID provider, or the portal itself for a local staff account. */
  issuer: string;
  name: string;
}

const changeListeners = new Set<() => void>();

/** Notifies this tab's listeners; other tabs hear the browser's own storage event. */
function changed(): void {
  for (const listener of changeListeners) listener();
}

export function onStoredSessionChange(listener: () => void): () => void {
  changeListeners.add(listener);
  const fromOtherTab = (event: StorageEvent) => {
    if (event.key === TOKEN_STORAGE_KEY || event.key === null) listener();
  };
  window.addEventListener('storage', fromOtherTab);
  return () => {
    changeListeners.delete(listener);
    window.removeEventListener('storage', fromOtherTab);
  };
}

function readRaw(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null; // storage disabled: treated as signed out
  }
}

export function writeRawTokenSet(value: string): void {
  window.localStorage.setItem(TOKEN_STORAGE_KEY, value);
  changed();
}

/**
 * A token set this app can use. Anything else under the key (another sign-in
 * library's format, a corrupt value) counts as signed out, or the guards
 * would send the user between /login and /dashboard for ever.
 */
export function hasStoredToken(): boolean {
  return readStoredSession() !== null;
}

export function rawTokenSet(): string | null {
  return readRaw();
}

/** The JWT payload, decoded without verification (RFC 7519 section 7.2, steps 1-6 only). */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeURIComponent(
      Array.from(atob(base64), (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
    );
    const claims: unknown = JSON.parse(json);
    return claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function readStoredSession(): StoredSession | null {
  const raw = readRaw();
  if (!raw) return null;
  let parsed: { id_token?: unknown; expires_at?: unknown };
  try {
    parsed = JSON.parse(raw) as typeof parsed;
  } catch {
    return null;
  }
  if (typeof parsed.id_token !== 'string') return null;
  const claims = jwtClaims(parsed.id_token) ?? {};
  const idExp = typeof claims.exp === 'number' ? claims.exp : 0;
  const setExp = typeof parsed.expires_at === 'number' ? parsed.expires_at : idExp;
  const name = [claims.name, claims.preferred_username, claims.email, claims.sub].find((v): v is string => typeof v === 'string');
  return {
    idToken: parsed.id_token,
    // The API checks the ID token: an expired access token only means it is time to renew.
    expiresAt: idExp,
    renewBy: Math.min(idExp, setExp),
    issuer: typeof claims.iss === 'string' ? claims.iss : '',
    name: name ?? 'staff',
  };
}

/** Stores a local staff account's token in the sign-in layer's format. */
export function storeLocalToken(token: string): void {
  const claims = jwtClaims(token);
  if (!claims) throw new Error('The server sent a token that is not a JWT');
  writeRawTokenSet(
    JSON.stringify({ id_token: token, token_type: 'Bearer', scope: 'openid', profile: claims, expires_at: claims.exp }),
  );
}

export function clearStoredToken(): void {
  try {
    window.localStorage.removeItem(TOKEN_STORAGE_KEY);
  } catch {
    // storage disabled: nothing was stored
  }
  changed();
}
