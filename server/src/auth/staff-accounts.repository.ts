import type { Queryable } from '../db/database.ts';

/** Local staff accounts (migration 008). Sign-in failures are counted apart, per address (login-throttle.ts). */

export interface StaffAccountRow {
  username: string;
  password_hash: string;
  is_admin: boolean;
  /** Read with the hash: a token issued for this password check carries this version (migration 014), never one read later. */
  token_version: number;
}

export async function findAccount(db: Queryable, username: string): Promise<StaffAccountRow | undefined> {
  const { rows } = await db.query<StaffAccountRow>(
    'SELECT username, password_hash, is_admin, token_version FROM staff_accounts WHERE username = $1',
    [username],
  );
  return rows[0];
}

/** Adds an account, or sets the password and role of an existing one. */
export async function saveAccount(db: Queryable, account: { username: string; passwordHash: string; isAdmin: boolean }): Promise<'added' | 'updated'> {
  const { rows } = await db.query<{ inserted: boolean }>(
    `INSERT INTO staff_accounts (username, password_hash, is_admin) VALUES ($1, $2, $3)
     ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, is_admin = EXCLUDED.is_admin, updated_at = now()
     RETURNING (xmax = 0) AS inserted`,
    [account.username, account.passwordHash, account.isAdmin],
  );
  return rows[0]!.inserted ? 'added' : 'updated';
}

export async function removeAccount(db: Queryable, username: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM staff_accounts WHERE username = $1', [username]);
  return rowCount === 1;
}

export async function listAccounts(db: Queryable): Promise<Array<{ username: string; is_admin: boolean }>> {
  const { rows } = await db.query<{ username: string; is_admin: boolean }>(
    'SELECT username, is_admin FROM staff_accounts ORDER BY username',
  );
  return rows;
}

/** Makes an account an administrator or a viewer; its tokens are revoked by the change (migration 014). */
export async function setAccountRole(db: Queryable, username: string, isAdmin: boolean): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE staff_accounts SET is_admin = $2, updated_at = now() WHERE username = $1', [username, isAdmin]);
  return rowCount === 1;
}

/** What a token's account says now (its role, and the version a revocation raises); undefined when it is gone. */
export async function accountTokenState(db: Queryable, username: string): Promise<{ is_admin: boolean; token_version: number } | undefined> {
  const { rows } = await db.query<{ is_admin: boolean; token_version: number }>('SELECT is_admin, token_version FROM staff_accounts WHERE username = $1', [username]);
  return rows[0];
}
