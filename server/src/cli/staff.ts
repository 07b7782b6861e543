import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hashPassword } from '../auth/passwords.ts';
import { loadAuthKey } from '../auth/auth-key-secret.ts';
import { ACCOUNT_CHECK_CACHE_MS } from '../auth/local-issuer.ts';
import { askRunningPortal } from '../auth/staff-channel.ts';
import { RECEIPT_KID, runStaffCommand, STAFF_COMMANDS, USERNAME, type StaffCommand } from '../auth/staff-commands.ts';
import { ConfigError, parseConfig } from '../config/config.ts';
import { PRIVATE_UMASK } from '../lib/private-dir.ts';
import { openDatabase, prepareDataDir } from '../runtime.ts';

/**
 * `npm run staff -- <command>`: local staff accounts, for pools without single
 * sign-on and for break-glass access. While a portal runs on the embedded
 * database, the command is sent to it (auth/staff-channel.ts); otherwise the
 * database is opened here.
 */

const USAGE = `Usage: npm run staff -- <command>
  add NAME [--admin] [--password-stdin]   create an account (or reset an existing one's password and role)
  passwd NAME [--password-stdin]          set a new password, keeping the role
  role NAME --admin|--viewer              make an account an admin or a viewer
  remove NAME                             delete an account
  list                                    list accounts
  rotate-key                              replace the key that signs local staff tokens
  receipt-keys                            list the keys that sign receipts (signing, retired, withdrawn)
  rotate-receipt-key                      replace the key that signs receipts (receipts signed before stay valid)
  withdraw-receipt-key KID                withdraw a receipt key whose private half may have leaked (receipts it signed stop verifying)
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
  const kid = command === 'withdraw-receipt-key' ? name : undefined;
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const needsName = ['add', 'passwd', 'remove', 'role'].includes(command);
  if (!(STAFF_COMMANDS as readonly string[]).includes(command) || (needsName && !name)) throw new Error(USAGE);
  if (command === 'role' && values.admin === values.viewer) throw new Error('Say --admin or --viewer: npm run staff -- role NAME --admin|--viewer');
  if (command === 'withdraw-receipt-key' && (kid === undefined || !RECEIPT_KID.test(kid))) throw new Error('Usage: npm run staff -- withdraw-receipt-key KID (npm run staff -- receipt-keys lists them)');
  if (name !== undefined && kid === undefined && !USERNAME.test(name)) throw new Error('A username is 1-64 letters, digits or . _ @ -');

  // Like the portal: what this process writes in DATA_DIR (the embedded database, the key secret) is private.
  process.umask(PRIVATE_UMASK);
  const config = parseConfig(process.env, { repoRoot });

  let generated: string | undefined;
  const newPasswordHash = async () => {
    const password = values['password-stdin'] ? await readStdin() : randomBytes(12).toString('base64url');
    if (password.length < 12) throw new Error('Use a password of at least 12 characters.');
    if (!values['password-stdin']) generated = password;
    return hashPassword(password);
  };
  const request: StaffCommand =
    command === 'add'
      ? { command, name: name!, admin: values.admin === true, passwordHash: await newPasswordHash() }
      : command === 'passwd'
        ? { command, name: name!, passwordHash: await newPasswordHash() }
        : command === 'role'
          ? { command, name: name!, admin: values.admin === true }
          : command === 'remove'
            ? { command, name: name! }
            : command === 'withdraw-receipt-key'
              ? { command, kid: kid! }
              : { command: command as 'list' | 'rotate-key' | 'receipt-keys' | 'rotate-receipt-key' };

  let lines: string[];
  // The embedded database is the running portal's alone (db/pglite-lock.ts): it runs the command (auth/staff-channel.ts).
  const answer = config.database.kind === 'pglite' ? await askRunningPortal(config.dataDir, request) : undefined;
  if (answer) {
    if (!answer.ok) throw new Error(answer.error);
    lines = answer.lines;
  } else {
    await prepareDataDir(config.dataDir, (message) => console.error(`[staff] ${message}`));
    const db = await openDatabase(config);
    try {
      lines = await runStaffCommand(db, () => loadAuthKey({ secret: config.authKeySecret, dataDir: config.dataDir }), request);
    } finally {
      await db.close();
    }
  }
  for (const line of lines) console.log(line);
  if (generated !== undefined) console.log(`password: ${generated}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : (error as Error).message);
  process.exit(1);
});
