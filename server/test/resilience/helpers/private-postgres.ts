import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../dev/bitcoin/node-launcher.ts';

/**
 * A Postgres server of the test's own (initdb + pg_ctl in a temporary
 * directory, on a free port, listening on 127.0.0.1 only), for tests that
 * stop and start the database: the machine's shared server at 5432 is never
 * touched. initdb refuses to run as root, so as root the cluster belongs to
 * the `postgres` OS user, whom the Debian package creates.
 *
 * Durability is off (fsync, full_page_writes): nothing here must survive a
 * power cut, and a stop or start takes a fraction of a second.
 */

export interface PrivatePostgres {
  port: number;
  /** The superuser's URL of `database` (default `postgres`). */
  url(database?: string): string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m fast`: sessions are terminated, the server exits; connections are refused until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * SIGSTOP to the server and all its processes: connections stay open and
   * new ones are accepted by the kernel, but nothing answers, as with a
   * frozen host or a network partition. thaw() sends SIGCONT.
   */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Stops it (if running) and deletes its directory. */
  destroy(): Promise<void>;
}

const run = promisify(execFile);

/** The postmaster and every process it started (backends, checkpointer, ...), from /proc. */
async function clusterPids(dataDir: string): Promise<number[]> {
  const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === postmaster) children.push(Number(entry));
  }
  return [postmaster, ...children];
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

/** uid and gid of an OS user, from /etc/passwd. */
function osUser(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Who runs the cluster: ourselves, or `postgres` when we are root. */
function owner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return osUser('postgres');
}

/** Why a private server cannot be started here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (!binDir()) return 'needs the PostgreSQL server binaries (/usr/lib/postgresql/*/bin, the postgresql package)';
  if (process.getuid?.() === 0 && !osUser('postgres')) return 'running as root needs the postgres OS user (initdb refuses root)';
  return undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (!bin) throw new Error(privatePostgresUnavailable());
  const user = owner();
  const dir = await mkdtemp(path.join(tmpdir(), 'private-pg-'));
  if (user) await chown(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const options = { ...(user ?? {}), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } };
  const pgCtl = (args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, ...args], options);
  let port = 0;
  let running = false;
  let frozen: number[] = [];

  // If the test process dies without destroy(), the server must not outlive it.
  const onExit = () => {
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    if (running) spawnSync(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...options, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const start = async () => {
    try {
      await pgCtl(['-l', logFile, '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`, 'start']);
    } catch (error) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`The private Postgres did not start: ${(error as Error).message}\n${log.split('\n').slice(-20).join('\n')}`, { cause: error });
    }
    running = true;
  };

  try {
    await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'], options);
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (error) {
        // Another process may have taken the port between freePort() and the bind.
        if (attempt >= 3 || !/could not bind|could not create any TCP\/IP sockets/i.test((error as Error).message)) throw error;
      }
    }
  } catch (error) {
    process.removeListener('exit', onExit);
    onExit();
    throw error;
  }

  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      await pgCtl(['-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    start,
    async freeze() {
      frozen = await clusterPids(data);
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    async thaw() {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      frozen = [];
    },
    async destroy() {
      process.removeListener('exit', onExit);
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      frozen = [];
      if (running) await pgCtl(['-m', 'immediate', '-w', 'stop']).catch(() => {});
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
