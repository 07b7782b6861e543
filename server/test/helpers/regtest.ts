import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { debuglog } from 'node:util';
import { freePorts, launchRegtestNode, type LaunchedNode } from '../../dev/bitcoin/node-launcher.ts';
import { createRegtestWallet, type RegtestWallet } from '../../dev/bitcoin/regtest-wallet.ts';

export { feeAt, type AddressType, type BuildChildOptions, type BuildOversizeOptions, type BuiltTx, type BuildTxOptions } from '../../dev/bitcoin/regtest-wallet.ts';

/**
 * Integration-test harness: a private regtest Bitcoin node (Bitcoin Knots,
 * downloaded once into `<repo>/.cache/bitcoin-knots`; or the binary named by
 * the `BITCOIND` environment variable) with a funded descriptor wallet, plus
 * builders for signed, NOT broadcast transactions.
 *
 * Usage:
 *
 *   const node = await startTestNode();
 *   after(() => node.stop());
 *   const tx = await node.buildTx({ feeRate: 5, addressType: 'bech32m' });
 *   await node.rpc.call('sendrawtransaction', [tx.hex]);
 *   await node.mine();
 *
 * The builders and their guarantees are in dev/bitcoin/regtest-wallet.ts.
 */

export interface StartTestNodeOptions {
  /** More bitcoind arguments, e.g. ['-minrelaytxfee=0.00002']. */
  extraArgs?: string[];
}

export interface TestNode extends LaunchedNode, RegtestWallet {
  /** Milliseconds from startTestNode() to a funded, ready node. */
  startupMs: number;
  /** Stops the node and deletes its temporary datadir. */
  stop(): Promise<void>;
  /**
   * Stops the node and starts it again on the same datadir and ports, as an
   * operator's restart does (the mempool comes back from mempool.dat). `rpc`
   * and the wallet keep working: the RPC client re-reads the new cookie.
   */
  restart(options?: RestartOptions): Promise<void>;
  /** Stops the node but keeps its datadir, as a crash or an operator's stop does; restart() brings it back. */
  halt(): Promise<void>;
}

export interface RestartOptions {
  /** More bitcoind arguments for this start only, e.g. a higher -minrelaytxfee. */
  extraArgs?: string[];
  /** Start with an empty mempool, as a node whose mempool.dat was lost or not written. */
  dropMempool?: boolean;
}

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const KNOTS_CACHE_DIR = join(REPO_ROOT, '.cache', 'bitcoin-knots');

const debug = debuglog('regtest');

export async function startTestNode(options: StartTestNodeOptions = {}): Promise<TestNode> {
  const started = Date.now();
  const datadir = await mkdtemp(join(tmpdir(), 'regtest-'));
  let launched: LaunchedNode | undefined;
  let ports: { rpcPort: number; p2pPort: number; zmqPort: number } | undefined;
  const launch = (at: { rpcPort: number; p2pPort: number; zmqPort: number }, moreArgs: string[] = []) =>
    launchRegtestNode({
      datadir,
      ...at,
      cacheDir: KNOTS_CACHE_DIR,
      // Test configuration, not the portal's: the app itself reads BITCOIND via its config schema.
      bitcoindPath: process.env.BITCOIND || undefined,
      extraArgs: [...(options.extraArgs ?? []), ...moreArgs],
      // In the test run's process group: a Ctrl+C on the run stops its nodes too.
      ownProcessGroup: false,
      log: (message) => {
        // The one-off download takes seconds: say so; the rest is debug chatter (NODE_DEBUG=regtest).
        if (/download/i.test(message)) process.stderr.write(`[regtest] ${message}\n`);
        else debug(message);
      },
    });
  try {
    for (let attempt = 1; ; attempt++) {
      const [rpcPort, p2pPort, zmqPort] = (await freePorts(3)) as [number, number, number];
      try {
        ports = { rpcPort, p2pPort, zmqPort };
        launched = await launch(ports);
        break;
      } catch (error) {
        // Another process may have grabbed a port between freePorts() and bitcoind's bind.
        if (attempt < 3 && /bind|HTTP server|ZMQ/i.test((error as Error).message)) continue;
        throw error;
      }
    }
  } catch (error) {
    await rm(datadir, { recursive: true, force: true });
    throw error;
  }
  let node = launched;
  const at = ports;
  const testNode: TestNode = {
    ...node,
    ...createRegtestWallet(node.rpc),
    startupMs: 0,
    async stop() {
      await node.stop();
      await rm(datadir, { recursive: true, force: true });
    },
    async restart(restart: RestartOptions = {}) {
      await node.stop();
      if (restart.dropMempool) await rm(join(datadir, 'regtest', 'mempool.dat'), { force: true });
      node = await launch(at, restart.extraArgs);
      testNode.pid = node.pid;
    },
    async halt() {
      await node.stop();
    },
  };
  testNode.startupMs = Date.now() - started;
  return testNode;
}

