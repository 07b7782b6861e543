import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hashPassword } from '../auth/passwords.ts';
import { loadAuthKey } from '../auth/auth-key-secret.ts';
import { ACCOUNT_CHECK_CACHE_MS, rotateSigningKey } from '../auth/local-issuer.ts';
import { findAccount, listAccounts, removeAccount, saveAccount, setAccountRole } from '../auth/staff-accounts.repository.ts';
import { ConfigError, parseConfig } from '../config/config.ts';
import { PRIVATE_UMASK } from '../lib/private-dir.ts';
import { openDatabase, prepareDataDir } from '../runtime.ts';

/**
 * `npm run staff -- <command>`: local staff accounts, for pools without single
 * sign-on and for break-glass access.
 */

const USAGE = `Usage: npm run staff -- <command>
  add NAME [--admin] [--password-stdin]   create an account (or reset an existing one's password and role)
  passwd NAME [--password-stdin]          set a new password, keeping the role
  role NAME --admin|--viewer              make an account an admin or a viewer
  remove NAME                             delete an account
  list                                    list accounts
  rotate-key                              replace the key that signs local staff tokens
Without --password-stdin a random password is generated and printed once.
A new password, a new role or removal ends the account's sign-ins at once
(within ${ACCOUNT_CHECK_CACHE_MS / 1000} s on a running portal); rotate-key ends every account's.`;

const repoRoot = path.resolve(import.meta.dirname, '../../..');

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { admin: { type: 'boolean' }, viewer: { type: 'boolean' }, 'password-stdin': { type: 'boolean' }, help: { type: 'boolean' } },
  });
  const [command, name] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const needsName = ['add', 'passwd', 'remove', 'role'].includes(command);
  if (!['add', 'passwd', 'remove', 'list', 'role', 'rotate-key'].includes(command) || (needsName && !name)) throw new Error(USAGE);
  if (command === 'role' && values.admin === values.viewer) throw new Error('Say --admin or --viewer: npm run staff -- role NAME --admin|--viewer');
  if (name !== undefined && !/^[A-Za-z0-9._@-]{1,64}$/.test(name)) throw new Error('A username is 1-64 letters, digits or . _ @ -');

  // Like the portal: what this process writes in DATA_DIR (the embedded database, the key secret) is private.
  process.umask(PRIVATE_UMASK);
  const config = parseConfig(process.env, { repoRoot });
  await prepareDataDir(config.dataDir, (message) => console.error(`[staff] ${message}`));
  const db = await openDatabase(config);
  try {
    const newPassword = async () => {
      const password = values['password-stdin'] ? await readStdin() : randomBytes(12).toString('base64url');
      if (password.length < 12) throw new Error('Use a password of at least 12 characters.');
      return { password, generated: !values['password-stdin'] };
    };
    if (command === 'list') {
      for (const account of await listAccounts(db)) console.log(`${account.username}\t${account.is_admin ? 'admin' : 'viewer'}`);
    } else if (command === 'role') {
      const existing = await findAccount(db, name!);
      if (!existing) throw new Error(`No account named ${name}`);
      const isAdmin = values.admin === true;
      const role = isAdmin ? 'an admin' : 'a viewer';
      // The change takes a new token version (migration 014): the tokens held with the old role stop working.
      if (existing.is_admin === isAdmin) console.log(`${name} is ${role} already`);
      else if (await setAccountRole(db, name!, isAdmin)) console.log(`${name} is now ${role}; its tokens are revoked`);
      else throw new Error(`No account named ${name}`);
    } else if (command === 'rotate-key') {
      const authKey = await loadAuthKey({ secret: config.authKeySecret, dataDir: config.dataDir });
      const { kid, retired } = await rotateSigningKey(db, authKey);
      console.log(`new signing key ${kid}; ${retired} retired: every local staff token signed before now is refused (within ${ACCOUNT_CHECK_CACHE_MS / 1000} s on a running portal)`);
    } else if (command === 'remove') {
      console.log((await removeAccount(db, name!)) ? `removed ${name}` : `no account named ${name}`);
    } else {
      const existing = await findAccount(db, name!);
      if (command === 'passwd' && !existing) throw new Error(`No account named ${name}`);
      const isAdmin = command === 'add' ? values.admin === true : existing!.is_admin;
      const { password, generated } = await newPassword();
      const outcome = await saveAccount(db, { username: name!, passwordHash: await hashPassword(password), isAdmin });
      console.log(`${outcome} ${name} (${isAdmin ? 'admin' : 'viewer'})`);
      if (generated) console.log(`password: ${password}`);
    }
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : (error as Error).message);
  process.exit(1);
});
