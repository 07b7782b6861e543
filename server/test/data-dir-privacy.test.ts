import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makePrivateDir } from '../src/lib/private-dir.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { startServerProcess } from './helpers/server-process.ts';

/**
 * DATA_DIR is private to the portal's user: the embedded database, the spool
 * of submission records and the secret that seals the sign-in keys are not
 * for other local users. Directories end up 0700 and files 0600, whether the
 * portal makes them or finds them made by an older version.
 */

const modeOf = async (file: string) => (await lstat(file)).mode & 0o777;
const octal = (mode: number) => mode.toString(8).padStart(3, '0');

/** Every directory and file under `dir` (itself included) that is open to group or others, links aside. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string) => {
    const mode = await modeOf(current);
    if ((await lstat(current)).isDirectory()) {
      if (mode !== 0o700) found.push(`${current} ${octal(mode)}`);
      for (const entry of await readdir(current, { withFileTypes: true })) {
        if (!entry.isSymbolicLink()) await walk(path.join(current, entry.name));
      }
    } else if ((mode & 0o077) !== 0) {
      found.push(`${current} ${octal(mode)}`);
    }
  };
  await walk(dir);
  return found;
}

/** A DATA_DIR as an older version (umask 022) left it: 0755 directories, 0644 files. */
async function legacyDataDir(root: string): Promise<string> {
  const dataDir = path.join(root, 'data');
  await mkdir(path.join(dataDir, 'pglite', 'base'), { recursive: true });
  await writeFile(path.join(dataDir, 'pglite', 'base', 'old-table'), 'rows');
  await writeFile(path.join(dataDir, 'notes.txt'), 'left by an older version');
  for (const dir of [dataDir, path.join(dataDir, 'pglite'), path.join(dataDir, 'pglite', 'base')]) await chmod(dir, 0o755);
  for (const file of [path.join(dataDir, 'pglite', 'base', 'old-table'), path.join(dataDir, 'notes.txt')]) await chmod(file, 0o644);
  return dataDir;
}

describe('a private DATA_DIR', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'data-dir-privacy-'));
  });
  after(async () => rm(root, { recursive: true, force: true }));

  test('made 0700 when missing, with its parents', async () => {
    const dataDir = path.join(root, 'fresh', 'nested', 'data');
    await makePrivateDir(dataDir);
    assert.equal(await modeOf(dataDir), 0o700);
    assert.deepEqual(await openToOthers(dataDir), []);
  });

  test('what exists is made private; links are not followed, and what they point to is left alone', async () => {
    const dataDir = await legacyDataDir(path.join(root, 'legacy'));
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'shared.txt'), 'not the portal\'s');
    await chmod(outside, 0o755);
    await chmod(path.join(outside, 'shared.txt'), 0o644);
    await symlink(path.join(outside, 'shared.txt'), path.join(dataDir, 'link-to-file'));
    await symlink(outside, path.join(dataDir, 'link-to-dir'));
    await chmod(path.join(dataDir, 'notes.txt'), 0o754);

    const result = await makePrivateDir(dataDir);
    assert.deepEqual(result.failed, []);
    assert.deepEqual(await openToOthers(dataDir), []);
    assert.equal(await modeOf(path.join(dataDir, 'pglite', 'base', 'old-table')), 0o600);
    assert.equal(await modeOf(path.join(dataDir, 'notes.txt')), 0o700, "the owner's own bits are kept");
    assert.equal((await stat(outside)).mode & 0o777, 0o755);
    assert.equal((await stat(path.join(outside, 'shared.txt'))).mode & 0o777, 0o644);
  });

  describe('npm start', () => {
    let node: TestNode;
    let dataDir: string;
    before(async () => {
      node = await startTestNode();
      dataDir = await legacyDataDir(path.join(root, 'started'));
    });
    after(async () => node?.stop());

    test('fixes a 0755 DATA_DIR at start, and what PGlite and the portal make is private (0700/0600)', async () => {
      // No AUTH_KEY_SECRET: the portal makes DATA_DIR/auth-key.secret.
      const server = await startServerProcess({ node, databaseUrl: '', env: { DATA_DIR: dataDir, AUTH_KEY_SECRET: '' } });
      try {
        const health = await fetch(`${server.baseUrl}/rest-api/health`);
        assert.ok([200, 503].includes(health.status), `the portal answers (${health.status})`);
        assert.deepEqual(await openToOthers(dataDir), [], server.output());
        assert.equal(await modeOf(path.join(dataDir, 'auth-key.secret')), 0o600);
        assert.ok((await readdir(path.join(dataDir, 'pglite'))).includes('PG_VERSION'), 'PGlite made its cluster here');
      } finally {
        await server.kill('SIGTERM');
      }
    });

    test('started with another AUTH_KEY_SECRET than the key was sealed with, it stops with a clear message, not a stack trace', async () => {
      const outcome = await startServerProcess({ node, databaseUrl: '', env: { DATA_DIR: dataDir, AUTH_KEY_SECRET: 'not the secret the key was sealed with, 32+ chars' } }).then(
        async (server) => {
          await server.kill('SIGTERM');
          return { started: true, output: server.output() };
        },
        (error: Error) => ({ started: false, output: error.message }),
      );
      assert.equal(outcome.started, false, `the server started:\n${outcome.output}`);
      assert.match(outcome.output, /The server exited \(1\)/);
      assert.match(outcome.output, /cannot be decrypted with AUTH_KEY_SECRET/);
      assert.match(outcome.output, /npm run staff -- rotate-key/);
      assert.doesNotMatch(outcome.output, /^\s+at /m, 'no stack trace');
    });
  });
});
