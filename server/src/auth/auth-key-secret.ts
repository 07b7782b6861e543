import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { JWK } from 'jose';

/**
 * The secret that seals the private halves of the portal's own signing keys
 * in the database (AES-256-GCM, NIST SP 800-38D): someone who reads the
 * database (a backup, a replica, a SQL injection elsewhere) still cannot
 * sign staff tokens. It is AUTH_KEY_SECRET when set, or else a random one
 * kept in DATA_DIR/auth-key.secret, made on first start. Instances sharing
 * one database must share the secret, so they set AUTH_KEY_SECRET.
 */

export const AUTH_KEY_FILE = 'auth-key.secret';
export const MIN_SECRET_CHARS = 32;

/** The secret is missing, malformed, or not the one the database's key was sealed with: a clear message, no stack. */
export class AuthKeySecretError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuthKeySecretError';
  }
}

export interface AuthKey {
  /** The AES-256 key, derived from the secret. */
  readonly key: Buffer;
  /** Where the secret came from, for messages: 'AUTH_KEY_SECRET' or the file. */
  readonly source: string;
}

/**
 * A text secret (32+ characters, e.g. 32 random bytes in base64) to the
 * AES key, by HKDF-SHA256 (RFC 5869): any text of that length works, and the
 * key is bound to this one use.
 */
export function authKeyFromSecret(secret: string, source = 'AUTH_KEY_SECRET'): AuthKey {
  if (secret.length < MIN_SECRET_CHARS) throw new AuthKeySecretError(`${source} must be at least ${MIN_SECRET_CHARS} characters`);
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), 'slipstream-portal auth_signing_keys v1', 32));
  return { key, source };
}

/** AUTH_KEY_SECRET, or the secret in DATA_DIR/auth-key.secret, made (0600) when there is none yet. */
export async function loadAuthKey(options: { secret: string | undefined; dataDir: string }): Promise<AuthKey> {
  if (options.secret !== undefined) return authKeyFromSecret(options.secret);
  const file = path.join(options.dataDir, AUTH_KEY_FILE);
  const source = `the secret in ${file}`;
  let text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new AuthKeySecretError(`Cannot read ${file}: ${error.message}`, { cause: error });
  });
  if (text === undefined) {
    // Written whole under another name, then linked into place: a process
    // starting at the same moment reads either no file or the whole one,
    // and the loser of the race takes the winner's.
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      await link(temporary, file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    } finally {
      await rm(temporary, { force: true });
    }
    text = await readFile(file, 'utf8');
  }
  const secret = text.trim();
  if (secret.length < MIN_SECRET_CHARS) throw new AuthKeySecretError(`${file} must hold a secret of at least ${MIN_SECRET_CHARS} characters (delete it to have a new one made, then run npm run staff -- rotate-key)`);
  return authKeyFromSecret(secret, source);
}

const VERSION = 'v1';
/** The sealed text is bound to its key id: a sealed value moved to another row does not open. */
const aad = (kid: string) => Buffer.from(`auth_signing_keys:${kid}`, 'utf8');

/** `v1.IV.CIPHERTEXT.TAG` (base64url; 96-bit IV, 128-bit tag). */
export function sealPrivateJwk(jwk: JWK, kid: string, authKey: AuthKey): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', authKey.key, iv);
  cipher.setAAD(aad(kid));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return [VERSION, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function unsealPrivateJwk(sealed: string, kid: string, authKey: AuthKey): JWK {
  const [version, iv, ciphertext, tag, ...rest] = sealed.split('.');
  if (version !== VERSION || !iv || !ciphertext || !tag || rest.length > 0) throw new AuthKeySecretError(`The portal's signing key ${kid} in the database is not in a form this version can read`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', authKey.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(aad(kid));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as JWK;
  } catch (error) {
    throw new AuthKeySecretError(
      `The portal's signing key for local staff sign-in (${kid}) cannot be decrypted with ${authKey.source}: it was sealed with another secret. ` +
        'Every instance sharing the database must have the same AUTH_KEY_SECRET. Start with the secret it was sealed with, ' +
        'or replace the key with `npm run staff -- rotate-key` (which signs every local staff account out).',
      { cause: error },
    );
  }
}
