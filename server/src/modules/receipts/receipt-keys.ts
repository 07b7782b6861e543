import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { AuthKeySecretError, sealPrivateJwk, unsealPrivateJwk, type AuthKey } from '../../auth/auth-key-secret.ts';
import type { Database, Queryable } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { activeReceiptKey, addReceiptKeyUnlessActive, listReceiptKeys, rotateReceiptKeys, withdrawReceiptKey, type ReceiptKeyListing, type ReceiptKeyRow } from './receipt-keys.repository.ts';

/**
 * The pool's receipt keys (ES256, RFC 7518 section 3.4), kept like the
 * local staff sign-in keys (auth/local-issuer.ts): in the database, shared
 * by every instance, the private half sealed with the portal's key secret
 * (AUTH_KEY_SECRET or DATA_DIR/auth-key.secret). They live in a table of
 * their own (receipt_signing_keys, migration 030) because rotation means
 * something else here:
 *
 * - rotated (`npm run staff -- rotate-receipt-key`): the active key retires,
 *   its private half is erased, and it stays in the published set
 *   (GET /.well-known/jwks.json). Receipts it signed verify as before: a
 *   receipt is a statement made once, and a routine rotation does not
 *   unmake it.
 * - withdrawn (`npm run staff -- withdraw-receipt-key KID`, for a key whose
 *   private half may have leaked): it leaves the published set, and a
 *   receipt it signed is refused everywhere it is checked (the /verify page,
 *   POST /api/receipts/proof, anyone's copy of the JWKS fetched after), since
 *   anyone holding the leaked half could have made it. The submission itself
 *   is unaffected: its status page still shows it.
 *
 * Every instance reads the keys at most every `cacheMs` (and at once when a
 * receipt names a kid it does not know, at most once a second): the set is a
 * handful of rows, so checking a receipt costs no query, whatever kid a
 * stranger makes up.
 */

/** How long an instance keeps what it read of the keys: the longest a rotation or a withdrawal elsewhere waits to be seen here. */
export const RECEIPT_KEY_CACHE_MS = 5_000;
/** An unknown kid re-reads the keys at most this often (a key made a moment ago on another instance). */
const UNKNOWN_KID_REFRESH_MS = 1_000;
const KID_PREFIX = 'receipt-';

/** A JWK as published: the public half of a P-256 key (RFC 7518 section 6.2.1), its kid, `alg` and `use` (RFC 7517 section 4). */
export interface PublishedJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** The published form of a public JWK as stored. */
function published(kid: string, jwk: JWK): PublishedJwk {
  return { kty: jwk.kty ?? 'EC', crv: jwk.crv ?? 'P-256', x: jwk.x ?? '', y: jwk.y ?? '', kid, alg: 'ES256', use: 'sig' };
}

export type KeyLookup =
  | { kind: 'published'; key: CryptoKey }
  | { kind: 'withdrawn' }
  | { kind: 'unknown' };

export interface ReceiptKeys {
  /** The key that signs now (made when there is none): its kid and private half. */
  signing(): Promise<{ kid: string; key: CryptoKey }>;
  /** The published set (RFC 7517 section 5): every key that is not withdrawn, oldest first. */
  jwks(): Promise<{ keys: PublishedJwk[] }>;
  /** The public half of `kid` when it is published, or why not. */
  lookup(kid: string): Promise<KeyLookup>;
  /** Makes the signing key now, when there is none: start-up fails here, clearly, on a key sealed with another secret. */
  ready(): Promise<void>;
}

export interface ReceiptKeysDeps {
  db: Queryable;
  clock: Clock;
  authKey: AuthKey;
  cacheMs?: number;
}

/** The sealed text is bound to this table's row (auth-key-secret.ts binds it to the name given). */
const sealName = (kid: string) => `receipt_signing_keys:${kid}`;

async function newKeyRow(authKey: AuthKey): Promise<ReceiptKeyRow> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `${KID_PREFIX}${randomUUID()}`;
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
  const publicJwk = published(kid, await exportJWK(publicKey));
  return { kid, sealed: sealPrivateJwk(privateJwk, sealName(kid), authKey), publicJwk };
}

function openSealed(sealed: string, kid: string, authKey: AuthKey): JWK {
  try {
    return unsealPrivateJwk(sealed, sealName(kid), authKey);
  } catch (error) {
    if (!(error instanceof AuthKeySecretError)) throw error;
    throw new AuthKeySecretError(
      `The pool's receipt signing key ${kid} cannot be decrypted with ${authKey.source}: it was sealed with another secret. ` +
        'Every instance sharing the database must have the same AUTH_KEY_SECRET. Start with the secret it was sealed with, ' +
        'or replace the key with `npm run staff -- rotate-receipt-key` (receipts signed before stay valid).',
      { cause: error },
    );
  }
}

/** `npm run staff -- rotate-receipt-key`: a new signing key; the old one retired, still published. */
export async function rotateReceiptKey(db: Database, authKey: AuthKey): Promise<{ kid: string; retired: number }> {
  const key = await newKeyRow(authKey);
  return { kid: key.kid, retired: await rotateReceiptKeys(db, key) };
}

/** `npm run staff -- withdraw-receipt-key KID`: the key leaves the published set; a new one signs when it was the active one. */
export async function withdrawReceiptKeyByKid(db: Database, authKey: AuthKey, kid: string): Promise<{ outcome: 'withdrawn' | 'unknown' | 'already'; replacedBy: string | undefined }> {
  const replacement = await newKeyRow(authKey);
  const { outcome, wasActive } = await withdrawReceiptKey(db, kid, replacement);
  return { outcome, replacedBy: wasActive ? replacement.kid : undefined };
}

/** The keys as listed by the staff command: kid, state and dates. */
export async function describeReceiptKeys(db: Queryable): Promise<string[]> {
  const state = (k: ReceiptKeyListing) => (k.withdrawn_at ? `withdrawn ${k.withdrawn_at.toISOString()}` : k.retired_at ? `retired ${k.retired_at.toISOString()} (still published)` : 'signing');
  return (await listReceiptKeys(db)).map((k) => `${k.kid}\tcreated ${k.created_at.toISOString()}\t${state(k)}`);
}

export function createReceiptKeys(deps: ReceiptKeysDeps): ReceiptKeys {
  const { db, clock, authKey } = deps;
  const cacheMs = deps.cacheMs ?? RECEIPT_KEY_CACHE_MS;
  const privateKeys = new Map<string, Promise<CryptoKey>>();
  const publicKeys = new Map<string, Promise<CryptoKey>>();
  let listing: { at: number; rows: Promise<ReceiptKeyListing[]> } | undefined;
  let active: { at: number; row: Promise<{ kid: string; sealed_private_jwk: string }> } | undefined;

  const now = () => clock.now().getTime();

  /** The rows, read again once older than `maxAgeMs`; a failed read is not kept. */
  function rows(maxAgeMs: number): Promise<ReceiptKeyListing[]> {
    if (listing && now() - listing.at < maxAgeMs) return listing.rows;
    const read = listReceiptKeys(db);
    const entry = { at: now(), rows: read };
    listing = entry;
    read.catch(() => {
      if (listing === entry) listing = undefined;
    });
    return read;
  }

  async function readActive(): Promise<{ kid: string; sealed_private_jwk: string }> {
    let row = await activeReceiptKey(db);
    if (!row) {
      // Instances racing here converge on one key: the unique index keeps the first.
      await addReceiptKeyUnlessActive(db, await newKeyRow(authKey));
      row = await activeReceiptKey(db);
      if (!row) throw new Error('No active receipt signing key after making one');
      listing = undefined;
    }
    return row;
  }

  function importOnce(cache: Map<string, Promise<CryptoKey>>, kid: string, jwk: () => JWK): Promise<CryptoKey> {
    let key = cache.get(kid);
    if (!key) {
      key = (async () => (await importJWK(jwk(), 'ES256')) as CryptoKey)();
      cache.set(kid, key);
      key.catch(() => cache.delete(kid));
    }
    return key;
  }

  async function signing(): Promise<{ kid: string; key: CryptoKey }> {
    if (!active || now() - active.at >= cacheMs) {
      const entry = { at: now(), row: readActive() };
      active = entry;
      entry.row.catch(() => {
        if (active === entry) active = undefined;
      });
    }
    const { kid, sealed_private_jwk: sealed } = await active.row;
    return { kid, key: await importOnce(privateKeys, kid, () => openSealed(sealed, kid, authKey)) };
  }

  return {
    signing,
    async jwks() {
      const current = (await rows(cacheMs)).filter((k) => k.withdrawn_at === null);
      return { keys: current.map((k) => published(k.kid, k.public_jwk as JWK)) };
    },
    async lookup(kid) {
      let found = (await rows(cacheMs)).find((k) => k.kid === kid);
      // Made a moment ago on another instance: read again, at most once a second whatever kids strangers send.
      if (!found && kid.startsWith(KID_PREFIX)) found = (await rows(UNKNOWN_KID_REFRESH_MS)).find((k) => k.kid === kid);
      if (!found) return { kind: 'unknown' };
      if (found.withdrawn_at !== null) return { kind: 'withdrawn' };
      return { kind: 'published', key: await importOnce(publicKeys, kid, () => found.public_jwk) };
    },
    async ready() {
      await signing();
    },
  };
}
