/**
 * What a node's version says about its mempool (getnetworkinfo `version`,
 * e.g. 310000 for 31.0.0): from Bitcoin Core 31 the mempool is clustered
 * (cluster mempool), with cluster limits instead of ancestor and
 * descendant limits, and replacements judged by the feerate diagram.
 */

/** The first version with the cluster mempool: Core 31.0, and the development builds before it (30.99, merged into master after 30). */
export const CLUSTER_MEMPOOL_VERSION = 309_900;

export function hasClusterMempool(version: number): boolean {
  return version >= CLUSTER_MEMPOOL_VERSION;
}

/** Core 31's -limitclustercount and -limitclustersize defaults: 64 transactions, 101 kvB. */
export const CLUSTER_LIMITS = { count: 64, vsize: 101_000 } as const;
/** Core 30 and earlier: -limitancestorcount and -limitancestorsize defaults (the descendant limits are the same). */
export const ANCESTOR_LIMITS = { count: 25, vsize: 101_000 } as const;

/** A node's version changes only with a restart: asked again after this long. */
const VERSION_TTL_MS = 60_000;

/** Whether the node runs the cluster mempool, from getnetworkinfo, asked at most once a minute. */
export function createClusterMempoolCheck(rpc: { call<T>(method: string, params?: unknown[]): Promise<T> }, now: () => number = Date.now): () => Promise<boolean> {
  let known: { value: boolean; at: number } | undefined;
  return async () => {
    if (known && now() - known.at < VERSION_TTL_MS) return known.value;
    const { version } = await rpc.call<{ version: number }>('getnetworkinfo');
    known = { value: hasClusterMempool(version), at: now() };
    return known.value;
  };
}
