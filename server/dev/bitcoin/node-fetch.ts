import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { isProcessRunning } from '../../src/lib/process-alive.ts';
import { join } from 'node:path';

/**
 * Fetches a Bitcoin node binary for development and tests
 * (docs/architecture.md#the-real-bitcoin-node-in-dev-and-tests).
 *
 * Why it looks like this:
 * - No Bitcoin Core binary is packaged for this machine, but Debian ships
 *   Bitcoin Knots (same RPC interface) in trixie-backports. apt-get runs with a
 *   private state directory and `--download-only`, so nothing is installed
 *   system-wide and no root-owned state is touched; the .debs are unpacked with
 *   `dpkg -x` into a private prefix.
 * - The mirror is read from the system's own apt configuration, so the repo
 *   names no host and works behind whatever mirror the machine already uses.
 * - The binaries are linked against trixie's glibc, newer than the host's, so
 *   they are started through the prefix's own dynamic loader.
 * - A marker file is written last: a half-finished download has no marker and
 *   is redone; a finished one makes every later call instant.
 * - Test files run in parallel processes, so callers are serialized with a
 *   lock file holding the owner's pid (a dead owner's lock is taken over).
 * - A `BITCOIND` path (e.g. a Bitcoin Core build) bypasses all of this.
 */

export interface EnsureBitcoindOptions {
  /** Git-ignored cache directory, e.g. `<repo>/.cache/bitcoin-knots`. */
  cacheDir: string;
  log: (message: string) => void;
  /** Use this bitcoind binary as is and download nothing (the `BITCOIND` setting). */
  bitcoindPath?: string | undefined;
}

export interface BitcoindBinary {
  /** The bitcoind executable itself. */
  bitcoind: string;
  /** The version of the downloaded package, or undefined for a `BITCOIND` binary. */
  packageVersion: string | undefined;
  /** How to spawn bitcoind with `args` (through the private loader when needed). */
  command: (args: string[]) => { file: string; args: string[] };
}

const PACKAGE = 'bitcoin-knots';
const MARKER_FILE = 'complete.json';
const LOCK_FILE = 'download.lock';
const LOCK_WAIT_MS = 10 * 60_000;
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';

interface Marker {
  package: string;
  version: string;
  debs: string[];
  completedAt: string;
}

/** Multiarch triplet and loader name for the host, as laid out in Debian packages. */
function hostAbi(): { triplet: string; loader: string } {
  switch (process.arch) {
    case 'x64':
      return { triplet: 'x86_64-linux-gnu', loader: 'ld-linux-x86-64.so.2' };
    case 'arm64':
      return { triplet: 'aarch64-linux-gnu', loader: 'ld-linux-aarch64.so.1' };
    default:
      throw new Error(`No packaged bitcoind for ${process.platform}/${process.arch}: set BITCOIND to a bitcoind binary, see README`);
  }
}

function prefixBinary(prefix: string): BitcoindBinary & { loader: string } {
  const { triplet, loader } = hostAbi();
  const libDir = join(prefix, 'usr', 'lib', triplet);
  const loaderPath = join(libDir, loader);
  const bitcoind = join(prefix, 'usr', 'bin', 'bitcoind');
  return {
    bitcoind,
    loader: loaderPath,
    packageVersion: undefined,
    command: (args) => ({ file: loaderPath, args: ['--library-path', libDir, bitcoind, ...args] }),
  };
}

export async function ensureBitcoind(options: EnsureBitcoindOptions): Promise<BitcoindBinary> {
  if (options.bitcoindPath) {
    const bitcoind = options.bitcoindPath;
    try {
      await access(bitcoind, constants.X_OK);
    } catch (error) {
      throw new Error(`BITCOIND=${bitcoind} is not an executable file (${(error as Error).message})`, { cause: error });
    }
    return { bitcoind, packageVersion: undefined, command: (args) => ({ file: bitcoind, args }) };
  }

  const { cacheDir, log } = options;
  const prefix = join(cacheDir, 'prefix');
  const ready = await readyBinary(cacheDir, prefix);
  if (ready) return ready;

  await mkdir(cacheDir, { recursive: true });
  const release = await acquireLock(join(cacheDir, LOCK_FILE), log);
  try {
    // Another process may have finished the download while we waited.
    const finished = await readyBinary(cacheDir, prefix);
    if (finished) return finished;
    return await download(cacheDir, prefix, log);
  } finally {
    await release();
  }
}

async function readyBinary(cacheDir: string, prefix: string): Promise<BitcoindBinary | undefined> {
  let marker: Marker;
  try {
    marker = JSON.parse(await readFile(join(cacheDir, MARKER_FILE), 'utf8')) as Marker;
  } catch {
    return undefined;
  }
  const binary = prefixBinary(prefix);
  try {
    await access(binary.bitcoind, constants.X_OK);
    await access(binary.loader, constants.X_OK);
  } catch {
    return undefined;
  }
  return { bitcoind: binary.bitcoind, packageVersion: marker.version, command: binary.command };
}

async function download(cacheDir: string, prefix: string, log: (message: string) => void): Promise<BitcoindBinary> {
  await rm(join(cacheDir, MARKER_FILE), { force: true });
  await rm(prefix, { recursive: true, force: true });
  const aptDir = join(cacheDir, 'apt');
  await rm(aptDir, { recursive: true, force: true });

  const mirror = await systemDebianMirror();
  const dirs = {
    lists: join(aptDir, 'lists'),
    cache: join(aptDir, 'cache'),
    archives: join(aptDir, 'cache', 'archives'),
    sourceParts: join(aptDir, 'sources.list.d'),
    preferencesParts: join(aptDir, 'preferences.d'),
  };
  for (const dir of [join(dirs.lists, 'partial'), join(dirs.archives, 'partial'), dirs.sourceParts, dirs.preferencesParts]) {
    await mkdir(dir, { recursive: true });
  }
  const sourceList = join(aptDir, 'sources.list');
  await writeFile(
    sourceList,
    [`deb [signed-by=${KEYRING}] ${mirror} trixie main`, `deb [signed-by=${KEYRING}] ${mirror} trixie-backports main`, ''].join('\n'),
  );
  const statusFile = join(aptDir, 'status');
  await writeFile(statusFile, '');

  const aptOptions = [
    `Dir::Etc::SourceList=${sourceList}`,
    `Dir::Etc::SourceParts=${dirs.sourceParts}`,
    `Dir::Etc::PreferencesParts=${dirs.preferencesParts}`,
    `Dir::State::Lists=${dirs.lists}`,
    `Dir::Cache=${dirs.cache}`,
    `Dir::State::Status=${statusFile}`,
    'Debug::NoLocking=1',
  ].flatMap((option) => ['-o', option]);

  log(`Downloading ${PACKAGE} with a private apt state in ${aptDir} (once; later runs reuse ${prefix})`);
  const started = Date.now();
  await run('apt-get', [...aptOptions, 'update']);
  await run('apt-get', [...aptOptions, 'install', '-y', '--download-only', '--no-install-recommends', '-t', 'trixie-backports', PACKAGE]);

  const debs = (await readdir(dirs.archives)).filter((name) => name.endsWith('.deb')).sort();
  const main = debs.find((name) => name.startsWith(`${PACKAGE}_`));
  if (!main) throw new Error(`apt-get finished but downloaded no ${PACKAGE} package (got: ${debs.join(', ') || 'nothing'})`);
  await mkdir(prefix, { recursive: true });
  for (const deb of debs) await run('dpkg', ['-x', join(dirs.archives, deb), prefix]);
  await removeDanglingLinks(prefix);
  const version = (await run('dpkg-deb', ['-f', join(dirs.archives, main), 'Version'])).trim();

  // Prove the unpacked node starts before declaring the cache complete.
  const binary = prefixBinary(prefix);
  const probe = binary.command(['-version']);
  const banner = (await run(probe.file, probe.args)).split('\n')[0] ?? '';

  const marker: Marker = { package: PACKAGE, version, debs, completedAt: new Date().toISOString() };
  await writeFile(join(cacheDir, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`);
  await rm(aptDir, { recursive: true, force: true });
  log(`${banner} ready in ${prefix} (${debs.length} packages, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return { bitcoind: binary.bitcoind, packageVersion: version, command: binary.command };
}

/**
 * The unpacked dependencies carry links into a system that is not there
 * (`etc/modules-load.d/modules.conf -> ../modules`). Nothing here follows
 * them, but tools that walk the checkout do and stop at them (an older
 * Node's `node --test` among them), so they go.
 */
async function removeDanglingLinks(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const link = join(entry.parentPath, entry.name);
    await stat(link).catch(() => unlink(link));
  }
}

/**
 * The Debian mirror this machine's apt already uses: the first `URIs:` of
 * /etc/apt/sources.list.d/*.sources (deb822), else the first `deb` line of
 * /etc/apt/sources.list.
 */
export async function systemDebianMirror(): Promise<string> {
  const partsDir = '/etc/apt/sources.list.d';
  let parts: string[] = [];
  try {
    parts = (await readdir(partsDir)).filter((name) => name.endsWith('.sources')).sort();
  } catch {
    // No parts directory: fall through to sources.list.
  }
  for (const name of parts) {
    const text = await readFile(join(partsDir, name), 'utf8');
    for (const stanza of text.split(/\n\s*\n/)) {
      if (/^Enabled:\s*no\s*$/im.test(stanza)) continue;
      const uri = /^URIs:\s*(\S+)/im.exec(stanza)?.[1];
      if (uri) return uri.replace(/\/+$/, '');
    }
  }
  try {
    const text = await readFile('/etc/apt/sources.list', 'utf8');
    for (const line of text.split('\n')) {
      // deb [option=value ...] uri suite [component ...]
      const match = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)/.exec(line);
      if (match?.[1]) return match[1].replace(/\/+$/, '');
    }
  } catch {
    // No sources.list either.
  }
  throw new Error('Cannot find a Debian mirror in the system apt configuration: set BITCOIND to a bitcoind binary, see README');
}

/**
 * apt-get and dpkg get only what they need: the search path and any proxy
 * settings. The portal's own environment can hold credentials (database URL,
 * RPC password) that a package tool has no business seeing.
 */
function aptEnvironment(): NodeJS.ProcessEnv {
  const passed = ['PATH', 'HOME', 'TMPDIR', 'http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'];
  const env: NodeJS.ProcessEnv = { LC_ALL: 'C', DEBIAN_FRONTEND: 'noninteractive' };
  for (const name of passed) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** Runs a command, returns its stdout, and fails with its output when it fails. */
function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: aptEnvironment() });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' && (file === 'apt-get' || file.startsWith('dpkg'))) {
        reject(new Error(`no ${file}: set BITCOIND to a bitcoind binary, see README`, { cause: error }));
      } else {
        reject(new Error(`Cannot run ${file}: ${error.message}`, { cause: error }));
      }
    });
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(stdout);
      const output = `${stdout}\n${stderr}`.trim().split('\n').slice(-20).join('\n');
      reject(new Error(`${file} ${args.filter((a) => !a.startsWith('Dir::')).join(' ')} failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return false; // gone already: the next open() will tell
  }
}

/** An exclusive lock file holding our pid; a lock whose owner died is taken over. */
async function acquireLock(path: string, log: (message: string) => void): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    const ownerKnown = Number.isInteger(owner) && owner > 0;
    // An empty lock is normally being written right now; one left empty for long was abandoned.
    const abandoned = ownerKnown ? !isProcessRunning(owner) : await olderThan(path, 30_000);
    if (abandoned) {
      log(`Taking over the download lock of ${ownerKnown ? `dead process ${owner}` : 'an abandoned lock'}`);
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // another waiter took it over first
      });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${path} (held by pid ${owner || 'unknown'})`);
    if (!announced) {
      log(`Waiting for another process (pid ${owner || 'unknown'}) to finish downloading bitcoind`);
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
