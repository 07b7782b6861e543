import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isProcessRunning } from '../lib/process-alive.ts';

/**
 * PGlite keeps its database in a directory that exactly one process may have
 * open: a second one (the staff command while the portal runs, or a second
 * portal) would corrupt it. A pid file in the directory says who holds it; a
 * file left by a process that no longer runs is taken over.
 */
export async function lockPgliteDir(dataDir: string): Promise<() => Promise<void>> {
  const lockFile = path.join(dataDir, 'portal.pid');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockFile, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isProcessRunning(holder)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${holder} (a running portal?). Stop it first, or use a Postgres server with DATABASE_URL.`,
        );
      }
      await rm(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database in ${dataDir}`);
}
