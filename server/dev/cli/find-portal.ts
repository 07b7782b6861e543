import path from 'node:path';
import { createRpcClient, type RpcClient } from '../../src/bitcoin/rpc-client.ts';
import { parseConfig, type AppConfig } from '../../src/config/config.ts';
import { isProcessRunning } from '../../src/lib/process-alive.ts';
import { readRunFile, runFilePath } from '../../src/lib/run-file.ts';

/**
 * How the development tools (`npm run demo:tx`, `npm run mine`) find the
 * portal and the node it started, whatever its PORT and node ports: first
 * the run file the running portal left in DATA_DIR (src/lib/run-file.ts),
 * then the settings of this shell (DATA_DIR, REGTEST_RPC_PORT, PORT, or
 * BITCOIN_RPC_URL). The node is asked over JSON-RPC with the project's own
 * client and the node's cookie: the shipped bitcoin-cli needs the private
 * loader to run at all. When nothing answers, the error lists every place
 * tried and why each failed.
 */

export interface FoundPortal {
  rpc: RpcClient;
  /** Where the portal is believed to listen (the run file's, else this shell's PORT and HOST). */
  portalUrl: string;
  /** Where the node was found, in words. */
  nodeSource: string;
}

interface Candidate {
  source: string;
  portalUrl: string;
  rpcUrl: string;
  rpc: RpcClient;
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

export class PortalNotFoundError extends Error {}

function configuredPortalUrl(config: AppConfig): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

function configuredNode(config: AppConfig): { rpcUrl: string; rpc: RpcClient } {
  if (config.node.kind === 'external') {
    return { rpcUrl: config.node.rpcUrl, rpc: createRpcClient({ url: config.node.rpcUrl, auth: config.node.auth, timeoutMs: config.rpc.timeoutMs, maxConcurrency: 4 }) };
  }
  const rpcUrl = `http://127.0.0.1:${config.node.rpcPort}`;
  const cookieFile = path.join(config.node.datadir, 'regtest', '.cookie');
  return { rpcUrl, rpc: createRpcClient({ url: rpcUrl, auth: { kind: 'cookie', cookieFile }, timeoutMs: config.rpc.timeoutMs, maxConcurrency: 4 }) };
}

export async function findPortal(env: NodeJS.ProcessEnv = process.env): Promise<FoundPortal> {
  const config = parseConfig(env, { repoRoot });
  const tried: string[] = [];
  const candidates: Candidate[] = [];

  const file = runFilePath(config.dataDir);
  const run = await readRunFile(config.dataDir);
  if (!run) {
    tried.push(`${file}: not there (no portal running with DATA_DIR=${config.dataDir})`);
  } else if (!isProcessRunning(run.pid)) {
    tried.push(`${file}: left by portal pid ${run.pid}, which is no longer running`);
  } else if (!run.node) {
    tried.push(`${file}: the portal (pid ${run.pid}, ${run.portalUrl}) uses an external node; set BITCOIN_RPC_URL and its credentials as the portal has them`);
  } else {
    const rpc = createRpcClient({ url: run.node.rpcUrl, auth: { kind: 'cookie', cookieFile: run.node.cookieFile }, timeoutMs: config.rpc.timeoutMs, maxConcurrency: 4 });
    candidates.push({ source: `the running portal (pid ${run.pid}, ${file})`, portalUrl: run.portalUrl, rpcUrl: run.node.rpcUrl, rpc });
  }
  const configured = configuredNode(config);
  const settings = config.node.kind === 'external' ? 'BITCOIN_RPC_URL' : `DATA_DIR=${config.dataDir}, REGTEST_RPC_PORT=${config.node.rpcPort}`;
  candidates.push({ source: `this shell's settings (${settings})`, portalUrl: configuredPortalUrl(config), ...configured });

  for (const candidate of candidates) {
    try {
      await candidate.rpc.call('getblockchaininfo');
      return { rpc: candidate.rpc, portalUrl: candidate.portalUrl, nodeSource: candidate.source };
    } catch (error) {
      tried.push(`node RPC at ${candidate.rpcUrl} (from ${candidate.source}): ${(error as Error).message}`);
    }
  }
  throw new PortalNotFoundError(
    `Could not reach the node the portal started. Tried:\n${tried.map((t) => `  - ${t}`).join('\n')}\n` +
      'Start the portal with npm start, or run this with the DATA_DIR (or BITCOIN_RPC_URL) the portal was started with.',
  );
}

/** The portal's current minimum fee rate (GET /rest-api/getinfo); the error names the address tried and how the portal was found. */
export async function currentMinimum(found: FoundPortal): Promise<number> {
  const url = `${found.portalUrl}/rest-api/getinfo`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { 'x-portal-client': 'web' } });
  } catch (error) {
    throw new PortalNotFoundError(
      `The node answered (found through ${found.nodeSource}), but the portal did not at ${url} (${(error as Error).message}). ` +
        'Start the portal with npm start, or set PORT (and HOST) as the portal has them.',
    );
  }
  if (!response.ok) throw new Error(`The portal answered ${response.status} at ${url}`);
  return ((await response.json()) as { fee_rate: number }).fee_rate;
}
