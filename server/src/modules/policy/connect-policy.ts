import type { AppConfig, StandardPolicyConfig } from '../../config/config.ts';
import { loadPolicyNode } from '../../embedded-defaults.ts';
import { connectPolicyOracle, type PolicyOracle } from './policy-oracle.ts';

/**
 * The policy nodes the configuration asks for, one per relay policy a node
 * can run (policy-verdicts.ts): Bitcoin Core 29's (Knots with `-corepolicy`)
 * and Knots' defaults. Each is the operator's node
 * (STANDARD_POLICY_RPC_URL, KNOTS_POLICY_RPC_URL), a node launched beside
 * the embedded regtest node, or none (STANDARD_POLICY_NODE=off, or an
 * operator's pool node without policy nodes of their own). A policy node
 * that fails to start leaves the portal running without it: its verdicts
 * are "unknown", and submissions never depend on it.
 */

export interface StandardPolicyConnection {
  /** Core 29's policy: the `core-29` verdict, and the scripts behind `core`'s. */
  oracle: PolicyOracle | undefined;
  /** Knots' default policy: the `knots` verdict. */
  knotsOracle: PolicyOracle | undefined;
  /** Stops the embedded policy nodes, if any were launched. Idempotent. */
  stop(): Promise<void>;
}

interface OneConnection {
  oracle: PolicyOracle | undefined;
  stop(): Promise<void>;
}

const NONE: OneConnection = { oracle: undefined, stop: () => Promise.resolve() };

export async function connectStandardPolicy(config: Pick<AppConfig, 'standardPolicy' | 'knotsPolicy' | 'node'>, log: (message: string) => void): Promise<StandardPolicyConnection> {
  // Both start at once: each takes as long as one node's start.
  const [core29, knots] = await Promise.all([
    connectOne(config.standardPolicy, 'core-29', config, (message) => log(`standard-policy node: ${message}`)),
    connectOne(config.knotsPolicy, 'knots', config, (message) => log(`Knots-policy node: ${message}`)),
  ]);
  return { oracle: core29.oracle, knotsOracle: knots.oracle, stop: async () => { await Promise.all([core29.stop(), knots.stop()]); } };
}

async function connectOne(policy: StandardPolicyConfig, flavour: 'core-29' | 'knots', config: Pick<AppConfig, 'node'>, log: (message: string) => void): Promise<OneConnection> {
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
      policy: flavour,
      log,
    });
    return { oracle: connectPolicyOracle({ url: node.rpcUrl, auth: { kind: 'cookie', cookieFile: node.cookieFile } }), stop: () => node.stop() };
  } catch (error) {
    log(`not started (${(error as Error).message}); parse-tx will say "unknown" for its policy`);
    return NONE;
  }
}
