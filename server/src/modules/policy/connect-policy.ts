import type { AppConfig } from '../../config/config.ts';
import { loadPolicyNode } from '../../embedded-defaults.ts';
import { connectPolicyOracle, type PolicyOracle } from './policy-oracle.ts';

/**
 * The standard-policy oracle the configuration asks for: the operator's node
 * (STANDARD_POLICY_RPC_URL), a node launched beside the embedded regtest
 * node, or none (STANDARD_POLICY_NODE=off, or an operator's pool node without
 * a policy node of their own). A policy node that fails to start leaves the
 * portal running without one: its verdicts are "unknown", and submissions
 * never depend on it.
 */

export interface StandardPolicyConnection {
  oracle: PolicyOracle | undefined;
  /** Stops the embedded policy node, if one was launched. Idempotent. */
  stop(): Promise<void>;
}

const NONE: StandardPolicyConnection = { oracle: undefined, stop: () => Promise.resolve() };

export async function connectStandardPolicy(config: Pick<AppConfig, 'standardPolicy' | 'node'>, log: (message: string) => void): Promise<StandardPolicyConnection> {
  const policy = config.standardPolicy;
  if (policy.kind === 'external') return { oracle: connectPolicyOracle({ url: policy.rpcUrl, auth: policy.auth }), stop: () => Promise.resolve() };
  if (policy.kind === 'off' || config.node.kind !== 'embedded') return NONE;
  try {
    // Development tooling (server/dev/), loaded only for this embedded default.
    const { launchPolicyNode } = await loadPolicyNode();
    const node = await launchPolicyNode({
      datadir: policy.datadir,
      rpcPort: policy.rpcPort,
      poolP2pPort: config.node.p2pPort,
      bitcoindPath: config.node.bitcoindPath,
      cacheDir: config.node.cacheDir,
      log: (message) => log(`standard-policy node: ${message}`),
    });
    return { oracle: connectPolicyOracle({ url: node.rpcUrl, auth: { kind: 'cookie', cookieFile: node.cookieFile } }), stop: () => node.stop() };
  } catch (error) {
    log(`standard-policy node not started (${(error as Error).message}); parse-tx will say "unknown" for standardness`);
    return NONE;
  }
}
