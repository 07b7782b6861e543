import type { Queryable } from '../db/database.ts';

/** Local staff accounts (migration 008). */

export interface StaffAccountRow {
  username: string;
  password_hash: string;
  is_admin: boolean;
  failed_logins: number;
  locked_until: Date | null;
}

/** Failures in a row that lock an account, and for how long. */
export const LOCKOUT_AFTER_FAILURES = 5;
export const LOCKOUT_MINUTES = 15;

export async function findAccount(db: Queryable, username: string): Promise<StaffAccountRow | undefined> {
  const { rows } = await db.query<StaffAccountRow>(
    'SELECT username, password_hash, is_admin, failed_logins, locked_until FROM staff_accounts WHERE username = $1',
    [username],
  );
  return rows[0];
}

/** Counts a failure; the one that reaches the limit locks the account and starts the count again. */
export async function recordFailedLogin(db: Queryable, username: string): Promise<void> {
  await db.query(
    `UPDATE staff_accounts SET
       locked_until = CASE WHEN failed_logins + 1 >= $2 THEN now() + make_interval(mins => $3) ELSE locked_until END,
       failed_logins = CASE WHEN failed_logins + 1 >= $2 THEN 0 ELSE failed_logins + 1 END,
       updated_at = now()
     WHERE username = $1`,
    [username, LOCKOUT_AFTER_FAILURES, LOCKOUT_MINUTES],
  );
}

export async function recordSuccessfulLogin(db: Queryable, username: string): Promise<void> {
  await db.query('UPDATE staff_accounts SET failed_logins = 0, locked_until = NULL, updated_at = now() WHERE username = $1', [username]);
}

/** Adds an account, or sets the password and role of an existing one. */
export async function saveAccount(db: Queryable, account: { username: string; passwordHash: string; isAdmin: boolean }): Promise<'added' | 'updated'> {
  const { rows } = await db.query<{ inserted: boolean }>(
    `INSERT INTO staff_accounts (username, password_hash, is_admin) VALUES ($1, $2, $3)
     ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, is_admin = EXCLUDED.is_admin,
       failed_logins = 0, locked_until = NULL, updated_at = now()
     RETURNING (xmax = 0) AS inserted`,
    [account.username, account.passwordHash, account.isAdmin],
  );
  return rows[0]!.inserted ? 'added' : 'updated';
}

export async function removeAccount(db: Queryable, username: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM staff_accounts WHERE username = $1', [username]);
  return rowCount === 1;
}

export async function listAccounts(db: Queryable): Promise<Array<{ username: string; is_admin: boolean; locked_until: Date | null }>> {
  const { rows } = await db.query<{ username: string; is_admin: boolean; locked_until: Date | null }>(
    'SELECT username, is_admin, locked_until FROM staff_accounts ORDER BY username',
  );
  return rows;
}
