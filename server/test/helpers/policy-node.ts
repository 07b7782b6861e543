import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type LaunchedNode } from '../../dev/bitcoin/node-launcher.ts';
import { launchPolicyNode } from '../../dev/bitcoin/policy-node.ts';
import { createRpcClient, type RpcClient } from '../../src/bitcoin/rpc-client.ts';
import { connectPolicyOracle, type PolicyOracle } from '../../src/modules/policy/policy-oracle.ts';
import { KNOTS_CACHE_DIR } from './regtest.ts';
import { until } from './until.ts';

/**
 * A Knots node that follows a test's pool node (dev/bitcoin/policy-node.ts):
 * the standard-policy oracle (`policy: 'core-29'`, the default), the
 * Knots-policy one (`'knots'`), or a stand-in for the public network's
 * mempool. The pool node must accept it: start that one with
 * `poolNodeP2pArgs(poolP2pPort)`. In its own temporary datadir, deleted by stop().
 *
 *   const p2pPort = await freePort();
 *   pool = await startTestNode({ extraArgs: poolNodeP2pArgs(p2pPort) });
 *   policy = await startTestPolicyNode(p2pPort);
 *   ... { policy: policy.oracle } ...
 *   after: await policy?.stop();
 */
export interface TestPolicyNode {
  node: LaunchedNode;
  /** The node as the portal's oracle (modules/policy/policy-oracle.ts). */
  oracle: PolicyOracle;
  /** A plain RPC client to it (the public-mempool stand-in, or checks of the test's own). */
  rpc: RpcClient;
  /** Until it has the pool node's best block (transactions spending new coins are judged only then). */
  synced(pool: { rpc: RpcClient }): Promise<void>;
  /** Stops it and deletes its datadir. */
  stop(): Promise<void>;
}

export async function startTestPolicyNode(poolP2pPort: number, options: { policy?: 'core-29' | 'knots' } = {}): Promise<TestPolicyNode> {
  const datadir = await mkdtemp(join(tmpdir(), `${options.policy ?? 'core-29'}-policy-`));
  let node: LaunchedNode;
  try {
    node = await launchPolicyNode({ datadir, rpcPort: await freePort(), poolP2pPort, cacheDir: KNOTS_CACHE_DIR, bitcoindPath: process.env.BITCOIND || undefined, log: () => {}, ...(options.policy ? { policy: options.policy } : {}) });
  } catch (error) {
    await rm(datadir, { recursive: true, force: true });
    throw error;
  }
  const auth = { kind: 'cookie' as const, cookieFile: node.cookieFile };
  const rpc = createRpcClient({ url: node.rpcUrl, auth, timeoutMs: 60_000, maxConcurrency: 4, maxRetries: 2 });
  return {
    node,
    oracle: connectPolicyOracle({ url: node.rpcUrl, auth }),
    rpc,
    async synced(pool) {
      const tip = await pool.rpc.call<string>('getbestblockhash');
      await until(async () => (await rpc.call<string>('getbestblockhash')) === tip, async () => `the ${options.policy ?? 'core-29'} policy node is at ${await rpc.call<number>('getblockcount')}, the pool at ${await pool.rpc.call<number>('getblockcount')}`, 60_000);
    },
    async stop() {
      await node.stop();
      await rm(datadir, { recursive: true, force: true });
    },
  };
}
