import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * DATA_DIR holds the embedded database, the spool of submission records, the
 * secret that seals the sign-in keys and the embedded node's chain: nothing
 * another local user should read. The processes that use it run with this
 * umask, so what they (PGlite, bitcoind) create later is private too.
 */
export const PRIVATE_UMASK = 0o077;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes `dir` (0700) when it is not there, and takes group and other access
 * away from everything in it that exists already (directories 0700, files
 * keep only their owner's bits: 0644 becomes 0600), as left by an older
 * version or a umask of 022. Symbolic links are neither followed nor changed:
 * what they point to is not ours to change. `dir` itself may be a link (a
 * DATA_DIR on a mounted volume): it is the operator's own choice.
 * Entries that cannot be changed (another owner) are reported, not fatal.
 */
export async function makePrivateDir(dir: string): Promise<{ changed: number; failed: string[] }> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const result = { changed: 0, failed: [] as string[] };
  const fix = async (file: string, mode: number, wanted: number) => {
    if ((mode & 0o7777) === wanted) return;
    try {
      await chmod(file, wanted);
      result.changed++;
    } catch (error) {
      result.failed.push(`${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  };
  const walk = async (current: string, mode: number): Promise<void> => {
    await fix(current, mode, PRIVATE_DIR_MODE);
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch (error) {
      result.failed.push(`${current} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return;
    }
    for (const entry of entries) {
      const file = path.join(current, entry.name);
      if (entry.isSymbolicLink()) continue;
      // lstat: a file swapped for a link meanwhile is still not followed.
      const info = await lstat(file).catch(() => undefined);
      if (!info || info.isSymbolicLink()) continue;
      if (info.isDirectory()) await walk(file, info.mode);
      else await fix(file, info.mode, info.mode & 0o700);
    }
  };
  await walk(dir, (await stat(dir)).mode);
  return result;
}
