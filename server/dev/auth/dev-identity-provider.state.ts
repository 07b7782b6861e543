import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { JWK } from 'oidc-provider';
import { AuthKeySecretError } from '../../src/auth/auth-key-secret.ts';
import type { DevStaffAccount } from './dev-identity-provider.config.ts';

/**
 * What the embedded provider keeps in DATA_DIR so that a restart changes
 * nothing for the people using it: the demo accounts' passwords (printed at
 * every start, the same until the file is removed), the keys that sign ID
 * tokens and the cookie keys (sealed with the portal's AUTH_KEY_SECRET, as
 * the portal seals its own signing key: auth-key-secret.ts), so a dashboard
 * session's tokens still verify after a restart. Files are written whole
 * (a temporary file renamed into place), readable by this user only (0600).
 */

export const DEV_IDENTITY_FILE = 'dev-identity.json';

/** How the keys are sealed at rest: sealPrivateJwk/unsealPrivateJwk with the portal's AuthKey. */
export interface KeySealer {
  seal(jwk: JWK, kid: string): string;
  unseal(sealed: string, kid: string): JWK;
}

export interface DevProviderState {
  staff: DevStaffAccount[];
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

interface StateFile {
  version: 1;
  staff: DevStaffAccount[];
  signingKeys: Array<{ kid: string; sealed: string }>;
  cookieKeys: Array<{ kid: string; sealed: string }>;
}

/** Writes `text` to `file` whole, mode 0600: a reader sees the old file or the new one, never half of one. */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}

function isStateFile(value: unknown): value is StateFile {
  const v = value as Partial<StateFile> | null;
  return (
    v?.version === 1 &&
    Array.isArray(v.staff) &&
    v.staff.every((s) => typeof s?.username === 'string' && typeof s.password === 'string' && Array.isArray(s.groups)) &&
    Array.isArray(v.signingKeys) &&
    Array.isArray(v.cookieKeys)
  );
}

/**
 * The provider's state from DATA_DIR/dev-identity.json, or `fresh()` saved
 * there when the file does not exist yet. A file that cannot be read, or
 * whose keys were sealed with another secret, stops the start with what to do.
 */
export async function loadOrCreateState(dir: string, sealer: KeySealer, fresh: () => Promise<DevProviderState>): Promise<DevProviderState & { file: string; created: boolean }> {
  const file = path.join(dir, DEV_IDENTITY_FILE);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const remedy = `delete ${file} to have new demo accounts and keys made (signed-in staff then sign in again)`;
  if (text === undefined) {
    const state = await fresh();
    const saved: StateFile = {
      version: 1,
      staff: state.staff,
      signingKeys: state.jwks.keys.map((jwk) => ({ kid: String(jwk.kid), sealed: sealer.seal(jwk, String(jwk.kid)) })),
      cookieKeys: state.cookieKeys.map((k, i) => {
        const kid = `cookie-${i}`;
        // A symmetric key is a JWK too (RFC 7518 section 6.4, kty "oct"): sealed the same way.
        return { kid, sealed: sealer.seal({ kty: 'oct', k }, kid) };
      }),
    };
    await writePrivateFile(file, `${JSON.stringify(saved, null, 2)}\n`);
    return { ...state, file, created: true };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isStateFile(parsed)) throw new AuthKeySecretError(`${file} is not a state file this version can read: ${remedy}`);
  try {
    return {
      staff: parsed.staff,
      jwks: { keys: parsed.signingKeys.map((k) => sealer.unseal(k.sealed, k.kid)) },
      cookieKeys: parsed.cookieKeys.map((k) => String(sealer.unseal(k.sealed, k.kid).k)),
      file,
      created: false,
    };
  } catch (error) {
    if (error instanceof AuthKeySecretError) {
      throw new AuthKeySecretError(`The development identity provider's keys in ${file} cannot be opened with the secret in use (another AUTH_KEY_SECRET?): ${remedy}`, { cause: error });
    }
    throw error;
  }
}
