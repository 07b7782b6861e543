import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { loadAuthKey } from '../src/auth/auth-key-secret.ts';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import { createLocalLoginService } from '../src/auth/local-login.service.ts';
import { InvalidTokenError, type StaffIdentity } from '../src/auth/token-verifier.ts';
import { parseConfig } from '../src/config/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { openDatabase } from '../src/runtime.ts';
import { ADMIN_GROUP, CLIENT_ID } from './helpers/staff-app.ts';

/**
 * `npm run staff` ends the tokens an account already holds when it changes
 * the account: a new password, a new role, its removal; and `rotate-key`
 * ends every local token at once. Each command runs as the operator runs it
 * (its own process, on the embedded database in DATA_DIR); between commands
 * the test opens the same database as the portal would and signs in.
 */

const run = promisify(execFile);
const cli = path.resolve(import.meta.dirname, '../src/cli/staff.ts');
const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('npm run staff revokes tokens', () => {
  let dataDir: string;
  const env = () => ({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', AUTH_KEY_SECRET: '' });
  const staff = async (args: string[], stdin?: string) => {
    const pending = run(process.execPath, [cli, ...args], { env: env() });
    if (stdin !== undefined) pending.child.stdin!.end(stdin);
    return (await pending).stdout;
  };

  /** Opens the database as the portal does (the same DATA_DIR and secret file) for the length of `fn`. */
  async function asThePortal<T>(fn: (portal: { login(username: string, password: string): Promise<string>; verify(token: string): Promise<StaffIdentity> }) => Promise<T>): Promise<T> {
    const config = parseConfig(env(), { repoRoot });
    const db = await openDatabase(config);
    try {
      const authKey = await loadAuthKey({ secret: config.authKeySecret, dataDir: config.dataDir });
      const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey });
      const login = createLocalLoginService({ db, issuer, clock: systemClock });
      return await fn({ login: async (username, password) => (await login.login(username, password, '127.0.0.1')).token, verify: (token) => issuer.verify(token) });
    } finally {
      await db.close();
    }
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'staff-cli-revocation-'));
  });
  after(async () => rm(dataDir, { recursive: true, force: true }));

  let password: string;
  let token: string;

  test('add, then sign in: an administrator', async () => {
    const added = await staff(['add', 'ops', '--admin']);
    password = /password: (\S+)/.exec(added)![1]!;
    token = await asThePortal(async (portal) => {
      const signedIn = await portal.login('ops', password);
      assert.equal((await portal.verify(signedIn)).isAdmin, true);
      return signedIn;
    });
  });

  test('role --viewer: the admin token is refused, a new sign-in is a viewer', async () => {
    assert.equal(await staff(['role', 'ops', '--viewer']), 'ops is now a viewer; its tokens are revoked\n');
    token = await asThePortal(async (portal) => {
      await assert.rejects(portal.verify(token), InvalidTokenError);
      const signedIn = await portal.login('ops', password);
      assert.equal((await portal.verify(signedIn)).isAdmin, false);
      return signedIn;
    });
    assert.equal(await staff(['role', 'ops', '--viewer']), 'ops is a viewer already\n');
    await assert.rejects(staff(['role', 'nobody', '--admin']), (error: Error & { stderr: string }) => /No account named nobody/.test(error.stderr));
    await assert.rejects(staff(['role', 'ops']), (error: Error & { stderr: string }) => /--admin or --viewer/.test(error.stderr));
  });

  test('passwd: the token signed in with the old password is refused', async () => {
    const newPassword = 'the new password, long enough';
    assert.equal(await staff(['passwd', 'ops', '--password-stdin'], `${newPassword}\n`), 'updated ops (viewer)\n');
    token = await asThePortal(async (portal) => {
      await assert.rejects(portal.verify(token), InvalidTokenError);
      return portal.login('ops', newPassword);
    });
    password = newPassword;
  });

  test('rotate-key: every token of the old key is refused; new sign-ins use the new key', async () => {
    const oldKid = decodeProtectedHeader(token).kid;
    const out = await staff(['rotate-key']);
    const kid = /^new signing key (local-\S+); 1 retired/m.exec(out)?.[1];
    assert.ok(kid, out);
    assert.notEqual(kid, oldKid);
    token = await asThePortal(async (portal) => {
      await assert.rejects(portal.verify(token), InvalidTokenError);
      const signedIn = await portal.login('ops', password);
      assert.equal(decodeProtectedHeader(signedIn).kid, kid);
      assert.equal((await portal.verify(signedIn)).username, 'ops');
      return signedIn;
    });
  });

  test('remove: the account\'s token is refused', async () => {
    assert.equal(await staff(['remove', 'ops']), 'removed ops\n');
    await asThePortal(async (portal) => {
      await assert.rejects(portal.verify(token), InvalidTokenError);
    });
    assert.ok(decodeJwt(token).exp! > Date.now() / 1000, 'refused although not expired');
  });

  test('what the command made in DATA_DIR is private (0700 directories, files without group or other access)', async () => {
    // The last command ran in this test's own process, with its umask; the staff command's own start puts it right.
    assert.equal(await staff(['list']), '', 'no accounts left');
    const open: string[] = [];
    const walk = async (current: string) => {
      const info = await lstat(current);
      if (info.isSymbolicLink()) return;
      if (info.isDirectory()) {
        if ((info.mode & 0o777) !== 0o700) open.push(`${current} ${(info.mode & 0o777).toString(8)}`);
        for (const name of await readdir(current)) await walk(path.join(current, name));
      } else if ((info.mode & 0o077) !== 0) open.push(`${current} ${(info.mode & 0o777).toString(8)}`);
    };
    await walk(dataDir);
    assert.deepEqual(open, []);
  });
});
