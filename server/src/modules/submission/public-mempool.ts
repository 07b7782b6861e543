import { createRpcClient, RpcCode, type RpcClient, type RpcClientOptions } from '../../bitcoin/rpc-client.ts';

/**
 * The public network's mempool (PUBLIC_MEMPOOL_RPC_URL): a node that takes
 * transactions from the public network and none from the pool's node, such
 * as the pool's edge node (docs/production.md, "Keeping submissions
 * private"). A parent it holds is public, so child-pays-for-parent may price
 * a child with it (prevouts.ts). An adapter, so tests can give any node.
 */

export interface PublicMempool {
  /** Of these txids, those in the public mempool. A node out of reach holds none of them (the answer is then "not public", never an error). */
  holds(txids: readonly string[]): Promise<Set<string>>;
}

/** It answers quickly or not at all: a submission must not wait on it. */
export const PUBLIC_MEMPOOL_TIMEOUT_MS = 5_000;

export function createRpcPublicMempool(rpc: RpcClient, onError: (error: unknown) => void = () => {}): PublicMempool {
  return {
    async holds(txids) {
      if (txids.length === 0) return new Set();
      try {
        const replies = await rpc.batch<unknown>(txids.map((txid) => ({ method: 'getmempoolentry', params: [txid] })));
        const held = new Set<string>();
        replies.forEach((reply, i) => {
          if (reply.ok) held.add(txids[i]!);
          else if (reply.error.code !== RpcCode.INVALID_ADDRESS_OR_KEY) throw reply.error;
        });
        return held;
      } catch (error) {
        // Out of reach, warming up, or refusing: no parent counts as public meanwhile, for anyone.
        onError(error);
        return new Set();
      }
    },
  };
}

/** The public mempool at an RPC address (cookie or user/password, as the pool node's). */
export function connectPublicMempool(options: Pick<RpcClientOptions, 'url' | 'auth'>, onError?: (error: unknown) => void): PublicMempool {
  return createRpcPublicMempool(createRpcClient({ ...options, timeoutMs: PUBLIC_MEMPOOL_TIMEOUT_MS, maxConcurrency: 2, maxRetries: 0 }), onError);
}
