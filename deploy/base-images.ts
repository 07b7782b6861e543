import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { run } from './exec.ts';
import type { Podman } from './podman.ts';

/**
 * The images the Dockerfile and docker-compose.yml start from, made on this
 * machine because no image registry may be reachable: Debian bases by
 * debootstrap from the machine's own Debian mirror (read from its apt
 * sources, never written into the repository), a Node build image, and a
 * stand-in for the official Postgres image.
 */

export const BASE_IMAGES = {
  bookworm: 'localhost/slipstream-deploy/debian:bookworm-slim',
  trixie: 'localhost/slipstream-deploy/debian:trixie-slim',
  node: 'localhost/slipstream-deploy/node:24-bookworm-slim',
  postgres: 'localhost/slipstream-deploy/postgres:17-trixie',
} as const;

interface AptSource {
  types: string[];
  uris: string[];
  suites: string[];
}

/** Entries of the machine's apt sources, deb822 (`*.sources`) and one-line (`sources.list`, `*.list`) alike. */
async function aptSources(): Promise<AptSource[]> {
  const sources: AptSource[] = [];
  const dir = '/etc/apt/sources.list.d';
  const files = ['/etc/apt/sources.list', ...(existsSync(dir) ? (await readdir(dir)).map((f) => path.join(dir, f)) : [])];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const text = await readFile(file, 'utf8');
    if (file.endsWith('.sources')) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (name: string) => (new RegExp(`^${name}:\\s*(.*)$`, 'mi').exec(stanza)?.[1] ?? '').split(/\s+/).filter(Boolean);
        if (/^Enabled:\s*no/mi.test(stanza)) continue;
        sources.push({ types: field('Types'), uris: field('URIs'), suites: field('Suites') });
      }
    } else if (file.endsWith('.list')) {
      for (const line of text.split('\n')) {
        const match = /^\s*(deb)\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
        if (match) sources.push({ types: [match[1]!], uris: [match[2]!], suites: [match[3]!] });
      }
    }
  }
  return sources.filter((s) => s.types.includes('deb') && s.uris.length > 0);
}

export interface DebianMirrors {
  archive: string;
  security: string | undefined;
}

/** The machine's Debian archive (and security archive), or DEBIAN_MIRROR. */
export async function debianMirrors(): Promise<DebianMirrors> {
  const sources = await aptSources();
  const security = sources.find((s) => s.suites.some((suite) => suite.endsWith('-security')))?.uris[0];
  const archive = process.env.DEBIAN_MIRROR ?? sources.find((s) => s.suites.length > 0 && !s.suites.some((suite) => suite.endsWith('-security')))?.uris[0];
  if (!archive) throw new Error('no Debian archive in /etc/apt/sources.list{,.d}: set DEBIAN_MIRROR to one');
  return { archive, security };
}

/**
 * What the official slim images leave out (their /etc/dpkg/dpkg.cfg.d/docker):
 * documentation, manual pages and translations, in the base and in every
 * package installed on it later.
 */
const SLIM_DPKG_CONFIG = `path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
`;

/**
 * A Debian base image like debian:SUITE-slim: debootstrap's minbase, apt
 * sources in the deb822 file the official images carry
 * (/etc/apt/sources.list.d/debian.sources, which the Dockerfile's node stage
 * reads), no package lists or downloaded packages, no documentation.
 */
export async function makeDebianBase(podman: Podman, suite: 'bookworm' | 'trixie', tag: string, mirrors: DebianMirrors, workDir: string): Promise<void> {
  const rootfs = await mkdtemp(path.join(workDir, `rootfs-${suite}-`));
  try {
    await run('debootstrap', ['--variant=minbase', ...(mirrors.archive.startsWith('https:') ? ['--include=ca-certificates'] : []), suite, rootfs, mirrors.archive], {
      logFile: path.join(workDir, `debootstrap-${suite}.log`),
      timeoutMs: 15 * 60_000,
    });
    const sources = [`Types: deb\nURIs: ${mirrors.archive}\nSuites: ${suite} ${suite}-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`];
    if (mirrors.security) sources.push(`Types: deb\nURIs: ${mirrors.security}\nSuites: ${suite}-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`);
    await rm(path.join(rootfs, 'etc/apt/sources.list'), { force: true });
    await writeFile(path.join(rootfs, 'etc/apt/sources.list.d/debian.sources'), sources.join('\n'));
    await writeFile(path.join(rootfs, 'etc/dpkg/dpkg.cfg.d/slim'), SLIM_DPKG_CONFIG);
    for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      for (const entry of await readdir(path.join(rootfs, dir))) {
        if (entry.endsWith('.deb') || dir.endsWith('lists')) await rm(path.join(rootfs, dir, entry), { recursive: true, force: true });
      }
    }
    for (const dir of ['usr/share/man', 'usr/share/info', 'usr/share/locale', 'usr/share/lintian']) {
      await rm(path.join(rootfs, dir), { recursive: true, force: true });
      await mkdir(path.join(rootfs, dir));
    }
    await run('find', [path.join(rootfs, 'usr/share/doc'), '-mindepth', '1', '-not', '-name', 'copyright', '-not', '-type', 'd', '-delete']);
    await run('sh', ['-c', 'tar -C "$1" -c . | podman import - "$2"', 'import', rootfs, tag]);
    // The import as the engine sees it: the runtime must be able to start it.
    await podman.run(['run', '--rm', '--network', 'none', tag, 'true']);
  } finally {
    await rm(rootfs, { recursive: true, force: true });
  }
}

/** The npm package directory of the npm running this script (npm run sets npm_execpath), else the one on PATH. */
async function npmPackageDir(): Promise<string> {
  const execPath = process.env.npm_execpath;
  if (execPath && existsSync(execPath)) return path.resolve(path.dirname(execPath), '..');
  const root = (await run('npm', ['root', '-g'])).stdout.trim();
  return path.join(root, 'npm');
}

/** The certificates this machine trusts: its system bundle and Node's extra ones. */
async function machineCertificates(): Promise<string> {
  const files = ['/etc/ssl/certs/ca-certificates.crt', process.env.NODE_EXTRA_CA_CERTS].filter((f): f is string => Boolean(f && existsSync(f)));
  return (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
}

/**
 * The Dockerfile's NODE_IMAGE: the bookworm base, this Node (the project's
 * pinned Node 24) and npm. Rebuilt only when one of its inputs changed (a
 * label records them): copying and hashing a 120 MB binary costs seconds.
 */
export async function buildNodeImage(podman: Podman, repoRoot: string, workDir: string): Promise<void> {
  const npmDir = await npmPackageDir();
  const certificates = await machineCertificates();
  const recipe = await readFile(path.join(repoRoot, 'deploy/node-image/Containerfile'), 'utf8');
  const npmVersion = (JSON.parse(await readFile(path.join(npmDir, 'package.json'), 'utf8')) as { version: string }).version;
  const baseId = (await podman.run(['image', 'inspect', '--format', '{{.Id}}', BASE_IMAGES.bookworm])).stdout.trim();
  const inputs = createHash('sha256').update([process.version, npmVersion, baseId, certificates, recipe].join('\0')).digest('hex');
  const label = 'slipstream.deploy-test.inputs';
  if (await podman.imageExists(BASE_IMAGES.node)) {
    const built = (await podman.run(['image', 'inspect', '--format', `{{index .Labels "${label}"}}`, BASE_IMAGES.node])).stdout.trim();
    if (built === inputs) return;
  }
  const context = await mkdtemp(path.join(workDir, 'node-image-'));
  try {
    await cp(process.execPath, path.join(context, 'node'));
    await cp(npmDir, path.join(context, 'npm'), { recursive: true });
    await writeFile(path.join(context, 'ca.crt'), certificates);
    await podman.run(
      [
        'build', '--network', 'host', '--format', 'docker', '--build-arg', `BASE_IMAGE=${BASE_IMAGES.bookworm}`, '--label', `${label}=${inputs}`,
        '-t', BASE_IMAGES.node, '-f', path.join(repoRoot, 'deploy/node-image/Containerfile'), context,
      ],
      { logFile: path.join(workDir, 'build-node-image.log'), timeoutMs: 10 * 60_000 },
    );
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/** The stand-in for the official postgres image (deploy/postgres). */
export async function buildPostgresImage(podman: Podman, repoRoot: string, workDir: string): Promise<void> {
  await podman.run(['build', '--network', 'host', '--format', 'docker', '--build-arg', `BASE_IMAGE=${BASE_IMAGES.trixie}`, '-t', BASE_IMAGES.postgres, path.join(repoRoot, 'deploy/postgres')], {
    logFile: path.join(workDir, 'build-postgres-image.log'),
    timeoutMs: 15 * 60_000,
  });
}
