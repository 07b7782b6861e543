import type { Database } from '../db/database.ts';
import type { AuthKey } from './auth-key-secret.ts';
import { ACCOUNT_CHECK_CACHE_MS, rotateSigningKey } from './local-issuer.ts';
import { findAccount, listAccounts, removeAccount, saveAccount, setAccountRole } from './staff-accounts.repository.ts';
import { describeReceiptKeys, RECEIPT_KEY_CACHE_MS, rotateReceiptKey, withdrawReceiptKeyByKid } from '../modules/receipts/receipt-keys.ts';

/**
 * What `npm run staff -- <command>` does to the database, apart from reading
 * its arguments and making passwords: run by the CLI on a database it opened
 * itself, or by the running portal for it (staff-channel.ts), when the
 * portal holds the embedded database. Passwords arrive hashed: the portal
 * never sees one.
 */

export const STAFF_COMMANDS = ['add', 'passwd', 'remove', 'list', 'role', 'rotate-key', 'receipt-keys', 'rotate-receipt-key', 'withdraw-receipt-key'] as const;
export type StaffCommandName = (typeof STAFF_COMMANDS)[number];

export type StaffCommand =
  | { command: 'list' }
  | { command: 'rotate-key' }
  | { command: 'receipt-keys' }
  | { command: 'rotate-receipt-key' }
  | { command: 'withdraw-receipt-key'; kid: string }
  | { command: 'remove'; name: string }
  | { command: 'role'; name: string; admin: boolean }
  | { command: 'add'; name: string; admin: boolean; passwordHash: string }
  | { command: 'passwd'; name: string; passwordHash: string };

/** A refusal meant for the user (no such account...): printed as it is. */
export class StaffCommandError extends Error {}

export const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;
/** A receipt key's id, as receipt-keys.ts makes them. */
export const RECEIPT_KID = /^receipt-[0-9a-f-]{36}$/;
/** The commands that name no account. */
const WITHOUT_NAME: readonly string[] = ['list', 'rotate-key', 'receipt-keys', 'rotate-receipt-key', 'withdraw-receipt-key'];

/** Checks a request that came over the channel as thoroughly as the CLI checked its arguments. */
export function parseStaffCommand(value: unknown): StaffCommand {
  const v = value as Record<string, unknown> | null;
  const command = v?.command;
  const name = v?.name;
  if (typeof command !== 'string' || !(STAFF_COMMANDS as readonly string[]).includes(command)) throw new StaffCommandError('Unknown staff command');
  const needsName = !WITHOUT_NAME.includes(command);
  if (needsName && (typeof name !== 'string' || !USERNAME.test(name))) throw new StaffCommandError('A username is 1-64 letters, digits or . _ @ -');
  if (command === 'withdraw-receipt-key' && (typeof v?.kid !== 'string' || !RECEIPT_KID.test(v.kid))) throw new StaffCommandError('A receipt key id is receipt- followed by a UUID (npm run staff -- receipt-keys lists them)');
  if ((command === 'add' || command === 'passwd') && (typeof v?.passwordHash !== 'string' || !v.passwordHash.startsWith('scrypt$'))) throw new StaffCommandError('A password hash is needed');
  if ((command === 'add' || command === 'role') && typeof v?.admin !== 'boolean') throw new StaffCommandError('Say whether the account is an admin');
  return v as StaffCommand;
}

/** Runs one command; answers the lines to print. */
export async function runStaffCommand(db: Database, authKey: () => Promise<AuthKey>, request: StaffCommand): Promise<string[]> {
  switch (request.command) {
    case 'list':
      return (await listAccounts(db)).map((account) => `${account.username}\t${account.is_admin ? 'admin' : 'viewer'}`);
    case 'role': {
      const { name, admin } = request;
      const existing = await findAccount(db, name);
      if (!existing) throw new StaffCommandError(`No account named ${name}`);
      const role = admin ? 'an admin' : 'a viewer';
      // The change takes a new token version (migration 014): the tokens held with the old role stop working.
      if (existing.is_admin === admin) return [`${name} is ${role} already`];
      if (await setAccountRole(db, name, admin)) return [`${name} is now ${role}; its tokens are revoked`];
      throw new StaffCommandError(`No account named ${name}`);
    }
    case 'rotate-key': {
      const { kid, retired } = await rotateSigningKey(db, await authKey());
      return [`new signing key ${kid}; ${retired} retired: every local staff token signed before now is refused (within ${ACCOUNT_CHECK_CACHE_MS / 1000} s on a running portal)`];
    }
    case 'receipt-keys':
      return describeReceiptKeys(db);
    case 'rotate-receipt-key': {
      const { kid, retired } = await rotateReceiptKey(db, await authKey());
      return [`new receipt signing key ${kid}; ${retired} retired: receipts signed before stay valid (the retired key stays published); every instance signs with the new key within ${RECEIPT_KEY_CACHE_MS / 1000} s`];
    }
    case 'withdraw-receipt-key': {
      const { outcome, replacedBy } = await withdrawReceiptKeyByKid(db, await authKey(), request.kid);
      if (outcome === 'unknown') throw new StaffCommandError(`No receipt key ${request.kid}`);
      if (outcome === 'already') return [`${request.kid} was withdrawn already`];
      return [
        `withdrew ${request.kid}: it is no longer published, and receipts it signed no longer verify (within ${RECEIPT_KEY_CACHE_MS / 1000} s on a running portal)`,
        ...(replacedBy ? [`it was the signing key: new receipt signing key ${replacedBy}`] : []),
      ];
    }
    case 'remove':
      return [(await removeAccount(db, request.name)) ? `removed ${request.name}` : `no account named ${request.name}`];
    case 'add':
    case 'passwd': {
      const { name } = request;
      const existing = await findAccount(db, name);
      if (request.command === 'passwd' && !existing) throw new StaffCommandError(`No account named ${name}`);
      const isAdmin = request.command === 'add' ? request.admin : existing!.is_admin;
      const outcome = await saveAccount(db, { username: name, passwordHash: request.passwordHash, isAdmin });
      return [`${outcome} ${name} (${isAdmin ? 'admin' : 'viewer'})`];
    }
  }
}
