import type { Database, Queryable } from '../../db/database.ts';

/**
 * The keys that sign receipts (receipt_signing_keys, migration 030): one
 * active key, its private half sealed (auth/auth-key-secret.ts); retired
 * ones, still published; withdrawn ones, published no more.
 */

export interface ReceiptKeyRow {
  kid: string;
  sealed: string;
  publicJwk: object;
}

export interface PublishedReceiptKey {
  kid: string;
  public_jwk: object;
  created_at: Date;
  retired_at: Date | null;
}

export interface ReceiptKeyListing extends PublishedReceiptKey {
  withdrawn_at: Date | null;
}

/** The key that signs now; undefined when there is none yet. */
export async function activeReceiptKey(db: Queryable): Promise<{ kid: string; sealed_private_jwk: string } | undefined> {
  const { rows } = await db.query<{ kid: string; sealed_private_jwk: string }>('SELECT kid, sealed_private_jwk FROM receipt_signing_keys WHERE retired_at IS NULL');
  return rows[0];
}

/** Adds `key` as the active one unless one is already (the unique index keeps the first of racing instances). */
export async function addReceiptKeyUnlessActive(db: Queryable, key: ReceiptKeyRow): Promise<void> {
  await db.query('INSERT INTO receipt_signing_keys (kid, sealed_private_jwk, public_jwk) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [key.kid, key.sealed, JSON.stringify(key.publicJwk)]);
}

/** Every key whose receipts still verify: the active one and the retired ones, oldest first. A handful of rows. */
export async function publishedReceiptKeys(db: Queryable): Promise<PublishedReceiptKey[]> {
  const { rows } = await db.query<PublishedReceiptKey>('SELECT kid, public_jwk, created_at, retired_at FROM receipt_signing_keys WHERE withdrawn_at IS NULL ORDER BY created_at, kid');
  return rows;
}

/** Whether `kid` is a withdrawn key (for the message a receipt it signed gets). */
export async function isWithdrawnReceiptKey(db: Queryable, kid: string): Promise<boolean> {
  const { rows } = await db.query<{ withdrawn: boolean }>('SELECT withdrawn_at IS NOT NULL AS withdrawn FROM receipt_signing_keys WHERE kid = $1', [kid]);
  return rows[0]?.withdrawn === true;
}

/** Every key, withdrawn ones included, oldest first (the staff command's list). */
export async function listReceiptKeys(db: Queryable): Promise<ReceiptKeyListing[]> {
  const { rows } = await db.query<ReceiptKeyListing>('SELECT kid, public_jwk, created_at, retired_at, withdrawn_at FROM receipt_signing_keys ORDER BY created_at, kid');
  return rows;
}

/** Retires the active key (erasing its private half; it stays published) and makes `key` the active one, in one transaction: how many were retired. */
export async function rotateReceiptKeys(db: Database, key: ReceiptKeyRow): Promise<number> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query('UPDATE receipt_signing_keys SET retired_at = now(), sealed_private_jwk = NULL WHERE retired_at IS NULL');
    await tx.query('INSERT INTO receipt_signing_keys (kid, sealed_private_jwk, public_jwk) VALUES ($1, $2, $3)', [key.kid, key.sealed, JSON.stringify(key.publicJwk)]);
    return rowCount;
  });
}

/**
 * Withdraws `kid` (retired too, its private half erased); when it was the
 * active key, `replacement` becomes the active one in the same transaction.
 * 'unknown' when there is no such key, 'already' when it was withdrawn.
 */
export async function withdrawReceiptKey(db: Database, kid: string, replacement: ReceiptKeyRow): Promise<{ outcome: 'withdrawn' | 'unknown' | 'already'; wasActive: boolean }> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ active: boolean; withdrawn: boolean }>(
      'SELECT retired_at IS NULL AS active, withdrawn_at IS NOT NULL AS withdrawn FROM receipt_signing_keys WHERE kid = $1 FOR UPDATE',
      [kid],
    );
    const row = rows[0];
    if (!row) return { outcome: 'unknown', wasActive: false };
    if (row.withdrawn) return { outcome: 'already', wasActive: false };
    await tx.query('UPDATE receipt_signing_keys SET withdrawn_at = now(), retired_at = COALESCE(retired_at, now()), sealed_private_jwk = NULL WHERE kid = $1', [kid]);
    if (row.active) {
      await tx.query('INSERT INTO receipt_signing_keys (kid, sealed_private_jwk, public_jwk) VALUES ($1, $2, $3)', [replacement.kid, replacement.sealed, JSON.stringify(replacement.publicJwk)]);
    }
    return { outcome: 'withdrawn', wasActive: row.active };
  });
}
