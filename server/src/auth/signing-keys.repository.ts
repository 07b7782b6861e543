import type { Database, Queryable } from '../db/database.ts';

/**
 * The local issuer's signing keys (auth_signing_keys): one active key, whose
 * private half is stored sealed (auth-key-secret.ts), and the retired ones,
 * whose public halves still say "retired" for tokens they signed.
 */

export interface SigningKeyRow {
  kid: string;
  sealed: string;
  publicJwk: object;
}

/** The key that signs now; undefined when there is none yet. */
export async function activeSigningKey(db: Queryable): Promise<{ kid: string; sealed_private_jwk: string } | undefined> {
  const { rows } = await db.query<{ kid: string; sealed_private_jwk: string }>('SELECT kid, sealed_private_jwk FROM auth_signing_keys WHERE retired_at IS NULL');
  return rows[0];
}

/** Adds `key` as the active one unless one is already (the unique index on the active key keeps the first of racing instances). */
export async function addSigningKeyUnlessActive(db: Queryable, key: SigningKeyRow): Promise<void> {
  await db.query('INSERT INTO auth_signing_keys (kid, sealed_private_jwk, public_jwk) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [key.kid, key.sealed, JSON.stringify(key.publicJwk)]);
}

/** The key `kid`'s public half, and whether it is retired; undefined when unknown. */
export async function signingKeyByKid(db: Queryable, kid: string): Promise<{ public_jwk: object; retired: boolean } | undefined> {
  const { rows } = await db.query<{ public_jwk: object; retired: boolean }>('SELECT public_jwk, retired_at IS NOT NULL AS retired FROM auth_signing_keys WHERE kid = $1', [kid]);
  return rows[0];
}

/** Retires every active key (erasing its private half) and makes `key` the active one, in one transaction: how many were retired. */
export async function replaceSigningKeys(db: Database, key: SigningKeyRow): Promise<number> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query('UPDATE auth_signing_keys SET retired_at = now(), sealed_private_jwk = NULL WHERE retired_at IS NULL');
    await tx.query('INSERT INTO auth_signing_keys (kid, sealed_private_jwk, public_jwk) VALUES ($1, $2, $3)', [key.kid, key.sealed, JSON.stringify(key.publicJwk)]);
    return rowCount;
  });
}
