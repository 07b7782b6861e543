import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a running `npm start` left in its DATA_DIR for the development tools
 * (`npm run demo:tx`, `npm run mine`): where the portal listens and how to
 * reach the node it talks to, whatever ports it was started with. Written
 * once the portal listens, removed when it stops; one left by a portal that
 * died is recognised by its pid.
 */

export interface RunFile {
  pid: number;
  /** The portal's own address, e.g. http://127.0.0.1:9090 (a wildcard host is written as loopback). */
  portalUrl: string;
  /** The node's RPC: the embedded node's address and cookie; null for an external node (its credentials are not copied here). */
  node: { rpcUrl: string; cookieFile: string } | null;
  startedAt: string;
}

export const RUN_FILE_NAME = 'portal.run.json';

export const runFilePath = (dataDir: string) => path.join(dataDir, RUN_FILE_NAME);

export async function writeRunFile(dataDir: string, info: RunFile): Promise<void> {
  await writeFile(runFilePath(dataDir), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the run file if it is this process's (a newer portal on the same DATA_DIR may have written its own). */
export async function removeRunFile(dataDir: string, pid: number): Promise<void> {
  if ((await readRunFile(dataDir))?.pid === pid) await rm(runFilePath(dataDir), { force: true });
}

/** The run file, or undefined when there is none or it is not one (a half-written or foreign file). */
export async function readRunFile(dataDir: string): Promise<RunFile | undefined> {
  let text: string;
  try {
    text = await readFile(runFilePath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<RunFile>;
    return typeof parsed.pid === 'number' && typeof parsed.portalUrl === 'string' ? (parsed as RunFile) : undefined;
  } catch {
    return undefined;
  }
}
