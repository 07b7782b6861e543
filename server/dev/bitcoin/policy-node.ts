import { launchRegtestNode, type LaunchedNode } from './node-launcher.ts';

/**
 * The standard-policy oracle for development and tests: a second regtest node
 * with Bitcoin Core's default standardness policy that follows the pool
 * node's chain, so `testmempoolaccept` there says whether the public network
 * would relay a transaction (modules/policy/).
 *
 * Why it looks like this:
 * - Policy: `-corepolicy=1` (from the launcher's defaults; Knots then uses
 *   Core's policy defaults) and `-acceptnonstdtxn=0` set explicitly; nothing
 *   that widens it is passed.
 * - Chain: it connects to the pool node's P2P port only (`-connect`), which
 *   listens on 127.0.0.1 (poolNodeP2pArgs); it listens nowhere itself.
 * - No mempool of its own: `-blocksonly=1` tells its one peer not to relay
 *   transactions to it, so its mempool stays empty and `testmempoolaccept`
 *   judges exactly the package it is given. No wallet.
 * - Small: the minimum caches and mempool, one script-check thread, few RPC
 *   threads, so it stays well under 100 MB on regtest.
 */

export interface LaunchPolicyNodeOptions {
  datadir: string;
  rpcPort: number;
  /** The pool node's P2P port on 127.0.0.1 (it must listen there: poolNodeP2pArgs). */
  poolP2pPort: number;
  bitcoindPath?: string | undefined;
  cacheDir: string;
  log: (message: string) => void;
  /**
   * Whose policy it runs: Bitcoin Core 29's (`-corepolicy=1`, the default),
   * or Knots' own defaults (`-corepolicy=0`, which the command line's last
   * value sets: its filters and its 1 sat/vB floor).
   */
  policy?: 'core-29' | 'knots';
  /** More arguments, appended last (tests). */
  extraArgs?: string[];
}

/** Arguments that make the pool node accept the oracle's connection: on loopback only, and serving blocks even while it considers itself syncing. */
export function poolNodeP2pArgs(p2pPort: number): string[] {
  // An explicit -bind, or bitcoind also binds a Tor onion listener on the next port (the ZMQ port by default).
  // `download` lets the oracle fetch blocks from a pool node whose tip is old (a regtest chain left for a day counts as initial block download).
  return ['-listen=1', `-bind=127.0.0.1:${p2pPort}`, '-listenonion=0', '-whitelist=download@127.0.0.1'];
}

export function policyNodeArgs(poolP2pPort: number): string[] {
  return [
    '-acceptnonstdtxn=0',
    `-connect=127.0.0.1:${poolP2pPort}`,
    '-listen=0',
    '-blocksonly=1',
    '-disablewallet=1',
    '-dbcache=4',
    '-maxmempool=5',
    '-maxsigcachesize=4',
    '-par=1',
    '-rpcthreads=4',
  ];
}

export async function launchPolicyNode(options: LaunchPolicyNodeOptions): Promise<LaunchedNode> {
  return launchRegtestNode({
    datadir: options.datadir,
    rpcPort: options.rpcPort,
    // It does not listen (-listen=0) and publishes nothing: these ports are never bound.
    p2pPort: options.poolP2pPort,
    zmqPort: 0,
    bitcoindPath: options.bitcoindPath,
    cacheDir: options.cacheDir,
    log: options.log,
    follower: true,
    extraArgs: [...policyNodeArgs(options.poolP2pPort), ...(options.policy === 'knots' ? ['-corepolicy=0'] : []), ...(options.extraArgs ?? [])],
  });
}
