import { createRpcClient, type RpcClient, type RpcClientOptions } from '../../bitcoin/rpc-client.ts';

/**
 * The standard-policy oracle: a node running Bitcoin Core's default
 * standardness policy (the embedded one, dev/bitcoin/policy-node.ts, or the
 * operator's own, STANDARD_POLICY_RPC_URL). Its `testmempoolaccept` says
 * whether the public network would relay a transaction. An adapter, so that
 * tests can give a stopped or absent one.
 */

export interface OracleAnswer {
  txid: string;
  /** Absent when the node stopped before judging it (an earlier package member failed). */
  allowed?: boolean;
  'reject-reason'?: string;
  'package-error'?: string;
}

export interface PolicyOracle {
  /** testmempoolaccept on the package, parents first; no fee-rate ceiling (that is a wallet's guard, not relay policy). */
  testAccept(hexes: string[]): Promise<OracleAnswer[]>;
  /** The oracle's chain height: a verdict from behind the pool node's tip is not given. */
  height(): Promise<number>;
}

/** An oracle answers quickly or not at all: parse-tx must not wait on it. */
export const ORACLE_TIMEOUT_MS = 5_000;

export function createRpcPolicyOracle(rpc: RpcClient): PolicyOracle {
  return {
    testAccept: (hexes) => rpc.call<OracleAnswer[]>('testmempoolaccept', [hexes, 0]),
    height: () => rpc.call<number>('getblockcount'),
  };
}

/** The oracle at an RPC address (cookie or user/password, as the pool node's). */
export function connectPolicyOracle(options: Pick<RpcClientOptions, 'url' | 'auth'>): PolicyOracle {
  return createRpcPolicyOracle(createRpcClient({ ...options, timeoutMs: ORACLE_TIMEOUT_MS, maxConcurrency: 2, maxRetries: 0 }));
}
