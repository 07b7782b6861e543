/**
 * What the engine needs of the node's JSON-RPC: single calls and batches.
 * Declared here, by shape, so that the engine takes the server's RPC client
 * (server/src/bitcoin/rpc-client.ts, with its retries and concurrency bound)
 * or a test double without depending on either. Errors are the caller's own:
 * the engine passes them on as they are thrown.
 */

export interface RpcCall {
  method: string;
  params?: unknown[];
}

/** An error the node answered (it understood and refused the call), with its code. */
export interface RpcFailure extends Error {
  readonly code: number;
}

export type RpcBatchItem<T> = { ok: true; result: T } | { ok: false; error: RpcFailure };

export interface RpcCaller {
  call<T>(method: string, params?: unknown[]): Promise<T>;
  /** One round trip for many calls; each answer succeeds or fails on its own. */
  batch<T>(calls: RpcCall[]): Promise<RpcBatchItem<T>[]>;
}

/** Bitcoin Core's src/rpc/protocol.h RPC_METHOD_NOT_FOUND: a node too old for a call. */
export const RPC_METHOD_NOT_FOUND = -32601;
