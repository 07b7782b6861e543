import { createConnection, createServer, type Server } from 'node:net';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../db/database.ts';
import type { AuthKey } from './auth-key-secret.ts';
import { parseStaffCommand, runStaffCommand, StaffCommandError, type StaffCommand } from './staff-commands.ts';

/**
 * `npm run staff` while the portal runs on the embedded database. PGlite is
 * one process's directory (db/pglite-lock.ts): a second process opening it
 * would corrupt it, so the staff command asks the running portal to do the
 * work instead, over this channel.
 *
 * Why a Unix socket in DATA_DIR, and why that is safe:
 * - It is local only: no TCP port, nothing another machine or a web page
 *   (CSRF, DNS rebinding) can reach.
 * - It is authenticated by the operating system: DATA_DIR is 0700 (the
 *   portal makes it private at start, runtime.ts prepareDataDir) and the
 *   socket is made 0600 (the start's umask), and connecting to a Unix socket
 *   needs search permission on its directory and write permission on the
 *   socket. Only the user who owns DATA_DIR can connect, and that user can
 *   already read and write the database files, the key secret and
 *   everything else there: the channel grants nothing new.
 * - It does only what the CLI does (staff-commands.ts), one JSON request
 *   per connection, bounded in size and time. Passwords travel hashed.
 */

export const STAFF_SOCKET = 'staff.sock';
const MAX_REQUEST_BYTES = 4096;
const REQUEST_TIMEOUT_MS = 10_000;
/** sockaddr_un.sun_path is 108 bytes on Linux, 104 on macOS, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

export type ChannelAnswer = { ok: true; lines: string[] } | { ok: false; error: string };

export function staffSocketPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), STAFF_SOCKET);
}

export interface StaffChannel {
  /** undefined when DATA_DIR's path is too long for a socket: staff commands then need the portal stopped. */
  path: string | undefined;
  close(): Promise<void>;
}

export async function startStaffChannel(options: { dataDir: string; db: Database; authKey: AuthKey; log: (message: string) => void }): Promise<StaffChannel> {
  const file = staffSocketPath(options.dataDir);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    options.log(`DATA_DIR's path is too long for ${STAFF_SOCKET}: npm run staff needs the portal stopped`);
    return { path: undefined, close: async () => {} };
  }
  // Left by a portal that did not stop cleanly: this process holds the database lock, so no live portal owns it.
  await rm(file, { force: true });
  const server: Server = createServer((socket) => {
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    let received = '';
    const answer = (reply: ChannelAnswer) => socket.end(`${JSON.stringify(reply)}\n`);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.length > MAX_REQUEST_BYTES) {
        answer({ ok: false, error: 'The request is too large' });
        return;
      }
      const end = received.indexOf('\n');
      if (end === -1) return;
      socket.pause();
      let request: StaffCommand;
      try {
        request = parseStaffCommand(JSON.parse(received.slice(0, end)));
      } catch (error) {
        answer({ ok: false, error: error instanceof StaffCommandError ? error.message : 'The request is not a staff command' });
        return;
      }
      runStaffCommand(options.db, async () => options.authKey, request).then(
        (lines) => answer({ ok: true, lines }),
        (error: unknown) => {
          if (!(error instanceof StaffCommandError)) options.log(`staff command ${request.command} failed: ${(error as Error).message}`);
          answer({ ok: false, error: (error as Error).message });
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    path: file,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(file, { force: true });
    },
  };
}

/**
 * Sends `request` to the portal running on `dataDir`'s database. Answers
 * undefined when no portal listens there (no socket, or nobody behind it).
 */
export function askRunningPortal(dataDir: string, request: StaffCommand): Promise<ChannelAnswer | undefined> {
  const file = staffSocketPath(dataDir);
  return new Promise((resolve, reject) => {
    const socket = createConnection(file);
    let received = '';
    let connected = false;
    socket.setTimeout(REQUEST_TIMEOUT_MS * 2, () => socket.destroy(new Error(`The portal did not answer on ${file}`)));
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(received) as ChannelAnswer);
      } catch {
        reject(new Error(`The portal's answer on ${file} could not be read`));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) resolve(undefined);
      else reject(error);
    });
  });
}
