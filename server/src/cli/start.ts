import path from 'node:path';
import { AuthKeySecretError } from '../auth/auth-key-secret.ts';
import { ConfigError, parseConfig } from '../config/config.ts';
import { EmbeddedDefaultUnavailableError } from '../embedded-defaults.ts';
import { PRIVATE_UMASK } from '../lib/private-dir.ts';
import { removeRunFile, writeRunFile } from '../lib/run-file.ts';
import { portError, PortUnavailableError, startRuntime, type Runtime } from '../runtime.ts';
import { nodeLimitsLine } from './node-limits.ts';

/** `npm start`: the whole product with embedded defaults, or the configured node and database. */

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const log = (message: string) => console.log(`[portal] ${message}`);

/** The address a local tool connects to: a wildcard host is reached on loopback. */
function reachableUrl(host: string, port: number): string {
  const connect = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${connect.includes(':') ? `[${connect}]` : connect}:${port}`;
}

async function main(): Promise<void> {
  // What this process and the node it launches write (DATA_DIR, PGlite's files) is for this user alone.
  process.umask(PRIVATE_UMASK);
  const config = parseConfig(process.env, { repoRoot });
  const runtime = await startRuntime(config, log);
  try {
    await runtime.app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Taken since the check at the start (checkPorts): stop what started, and say it the same way.
    await runtime.stop().catch(() => {});
    throw portError(error, config.port, 'PORT') ?? error;
  }

  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  log(`network: ${runtime.network}; database: ${config.database.kind}; node: ${config.node.kind === 'embedded' ? `embedded regtest (${runtime.node?.rpcUrl})` : 'external'}`);
  await printNodeLimits(runtime);
  log(`web app:     ${base}/`);
  log(`API:         ${base}/rest-api/getinfo`);
  log(`API docs:    ${base}/swagger-ui`);
  if (runtime.network === 'regtest') {
    log('try:         npm run -s demo:tx   (prints a transaction to paste)');
    log('             npm run -s mine -- 1 (mines a block on the node)');
  }
  if (runtime.identityProvider) {
    log(`sign-in:     local development provider at ${runtime.identityProvider.issuer} (set OIDC_ISSUER for your own)`);
    const passwordSignIn = runtime.identityProvider.passwordSignIn ?? {};
    for (const account of runtime.identityProvider.staff) {
      const local = passwordSignIn[account.username] === 'own password' ? '; its local account has its own password' : '';
      log(`             ${account.username} / ${account.password}  (${account.groups.length > 0 ? 'admin' : 'viewer'}${local})`);
    }
    log(`             the same work at ${base}/login?method=password (local staff accounts)`);
    if (runtime.identityProvider.stateFile) log(`             kept in ${runtime.identityProvider.stateFile} (delete it for new ones)`);
  }
  // The development tools (demo:tx, mine) find this portal and its node here, whatever the ports.
  await writeRunFile(config.dataDir, {
    pid: process.pid,
    portalUrl: reachableUrl(config.host, config.port),
    node: runtime.node ? { rpcUrl: runtime.node.rpcUrl, cookieFile: runtime.node.cookieFile } : null,
    startedAt: new Date().toISOString(),
  });
  log('Ctrl+C stops the server and the node.');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping…`);
    runtime
      .stop()
      .then(() => removeRunFile(config.dataDir, process.pid))
      .then(
        () => {
          log('stopped cleanly');
          process.exit(0);
        },
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if (error instanceof AuthKeySecretError || error instanceof EmbeddedDefaultUnavailableError || error instanceof PortUnavailableError) console.error(`[portal] start-up failed: ${error.message}`);
  else console.error('[portal] start-up failed:', error);
  process.exit(1);
});

/** Once, at start: what the node takes of the classes a pool is asked to mine (cli/node-limits.ts). A node that does not say is no reason to stop. */
async function printNodeLimits(runtime: Runtime): Promise<void> {
  try {
    const { subversion } = await runtime.rpc.call<{ subversion: string }>('getnetworkinfo');
    log(`node limits: ${nodeLimitsLine({ subversion, embedded: runtime.node !== undefined })}`);
  } catch (error) {
    log(`node limits: unknown (getnetworkinfo: ${(error as Error).message})`);
  }
}
