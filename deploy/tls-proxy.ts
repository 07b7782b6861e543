import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from './exec.ts';

/**
 * TLS in front of the portal: the nginx example of docs/production.md, as
 * written there, with only its ports, certificate paths and host name made
 * local, and a self-signed certificate for that name.
 */

export const PROXY_HOST_NAME = 'portal.example.com';

export interface TlsProxy {
  httpsPort: number;
  httpPort: number;
  /** The self-signed certificate clients must trust. */
  certificate: string;
  stop(): Promise<void>;
}

/** The guide's nginx configuration (the first ```nginx block of docs/production.md). */
export async function guideNginxConfig(repoRoot: string): Promise<string> {
  const guide = await readFile(path.join(repoRoot, 'docs/production.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(guide)?.[1];
  if (!block) throw new Error('docs/production.md has no ```nginx block');
  return block;
}

/** Replaces `from` in `text`, failing when the guide no longer says it (the test would otherwise try something else). */
function replaceRequired(text: string, from: RegExp, to: string): string {
  if (!from.test(text)) throw new Error(`the nginx example of docs/production.md no longer matches ${from}: update deploy/tls-proxy.ts with it`);
  return text.replace(new RegExp(from.source, from.flags.includes('g') ? from.flags : `${from.flags}g`), to);
}

/** A port nothing listens on now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, nginx: ChildProcess, errorLog: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}:\n${existsSync(errorLog) ? await readFile(errorLog, 'utf8') : ''}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx not listening on ${port} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Stops the nginx a previous run left (its pid file in `dir`). */
export async function stopLeftoverProxy(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'nginx.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).trim());
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (pid > 0 && command.includes('nginx') && command.includes(dir)) process.kill(pid, 'SIGTERM');
}

/** Starts Debian's nginx with the guide's server blocks in front of the portal at 127.0.0.1:portalPort. */
export async function startTlsProxy(repoRoot: string, dir: string, portalPort: number): Promise<TlsProxy> {
  await mkdir(path.join(dir, 'tmp'), { recursive: true });
  // Worker processes run as an unprivileged user when nginx starts as root: they must reach the temp paths.
  await chmod(dir, 0o755);
  const certificate = path.join(dir, 'fullchain.pem');
  const key = path.join(dir, 'privkey.pem');
  await run('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', `/CN=${PROXY_HOST_NAME}`, '-addext', `subjectAltName=DNS:${PROXY_HOST_NAME}`,
    '-keyout', key, '-out', certificate,
  ]);
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  let servers = await guideNginxConfig(repoRoot);
  servers = replaceRequired(servers, /listen 443 ssl/, `listen 127.0.0.1:${httpsPort} ssl`);
  servers = replaceRequired(servers, /listen 80;/, `listen 127.0.0.1:${httpPort};`);
  servers = replaceRequired(servers, /\/etc\/ssl\/portal\//, `${dir}/`);
  servers = replaceRequired(servers, /127\.0\.0\.1:8080\b/, `127.0.0.1:${portalPort}`);
  const errorLog = path.join(dir, 'error.log');
  const config = `# The server blocks are docs/production.md's nginx example; the rest runs it as a test, in ${dir}.
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${errorLog} warn;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
${servers}
}
`;
  const configFile = path.join(dir, 'nginx.conf');
  await writeFile(configFile, config);
  await run('nginx', ['-t', '-q', '-p', dir, '-c', configFile]);
  const output = openSync(path.join(dir, 'nginx.out'), 'a');
  const nginx = spawn('nginx', ['-p', dir, '-c', configFile, '-g', 'daemon off;'], { stdio: ['ignore', output, output] });
  await waitForPort(httpsPort, nginx, errorLog);
  return {
    httpsPort,
    httpPort,
    certificate: await readFile(certificate, 'utf8'),
    async stop() {
      if (nginx.exitCode !== null) return;
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await Promise.race([exited, sleep(10_000).then(() => nginx.kill('SIGKILL'))]);
    },
  };
}
