import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import { API_KEY_PREFIX } from './api-key-format.ts';

/**
 * API keys issued to clients (migration 016_client_api_keys.sql). A key is
 * shown once, when issued; the table keeps its SHA-256 and first characters.
 * Keys start with API_KEY_PREFIX (api-key-format.ts).
 */

/** How much of the key the list shows: the marker and 6 characters, about 36 bits: enough to tell keys apart, far too little to guess one. */
const SHOWN_CHARS = API_KEY_PREFIX.length + 6;

export interface ApiKeyRow {
  id: number;
  client_id: number;
  key_prefix: string;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  last_used_at: string | null;
}

const COLUMNS = `id, client_id, key_prefix, created_by, created_at, revoked_at, revoked_by, last_used_at`;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

interface StoredRow {
  id: number;
  client_id: number;
  key_prefix: string;
  created_by: string;
  created_at: Date;
  revoked_at: Date | null;
  revoked_by: string | null;
  last_used_at: Date | null;
}

function rowOut(row: StoredRow): ApiKeyRow {
  const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
  return { ...row, id: Number(row.id), client_id: Number(row.client_id), created_at: iso(row.created_at)!, revoked_at: iso(row.revoked_at), last_used_at: iso(row.last_used_at) };
}

/** Issues a key to a client: the row, and the key itself (the only time it exists outside the caller). Undefined for no such client. */
export async function issueApiKey(db: Queryable, clientId: number, staff: string): Promise<{ key: string; row: ApiKeyRow } | undefined> {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const { rows } = await db.query<StoredRow>(
    `INSERT INTO client_api_keys (client_id, key_hash, key_prefix, created_by)
     SELECT c.id, $2, $3, $4 FROM clients c WHERE c.id = $1
     RETURNING ${COLUMNS}`,
    [clientId, hashApiKey(key), key.slice(0, SHOWN_CHARS), staff],
  );
  return rows[0] ? { key, row: rowOut(rows[0]) } : undefined;
}

/** A client's keys, newest first, revoked ones included (with who revoked them and when). */
export async function listApiKeys(db: Queryable, clientId: number): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<StoredRow>(`SELECT ${COLUMNS} FROM client_api_keys WHERE client_id = $1 ORDER BY created_at DESC, id DESC`, [clientId]);
  return rows.map(rowOut);
}

/** Revokes a client's key; revoking one already revoked keeps the first revocation. Undefined when the client holds no such key. */
export async function revokeApiKey(db: Queryable, clientId: number, keyId: number, staff: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<StoredRow>(
    `UPDATE client_api_keys SET revoked_at = COALESCE(revoked_at, now()), revoked_by = COALESCE(revoked_by, $3)
     WHERE id = $2 AND client_id = $1 RETURNING ${COLUMNS}`,
    [clientId, keyId, staff],
  );
  return rows[0] ? rowOut(rows[0]) : undefined;
}

/** The client a presented key belongs to, when it is a live key; its use is noted. One statement either way. */
export async function clientOfApiKey(db: Queryable, key: string): Promise<{ clientId: number; keyId: number } | undefined> {
  const { rows } = await db.query<{ id: number; client_id: number }>(
    `UPDATE client_api_keys SET last_used_at = now() WHERE key_hash = $1 AND revoked_at IS NULL RETURNING id, client_id`,
    [hashApiKey(key)],
  );
  return rows[0] ? { clientId: Number(rows[0].client_id), keyId: Number(rows[0].id) } : undefined;
}
