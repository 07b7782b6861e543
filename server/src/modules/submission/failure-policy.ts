import { RpcCode, RpcError, RpcTransportError } from '../../bitcoin/rpc-client.ts';

/**
 * Node rejections that can pass with time: the mempool is full, the
 * unconfirmed chain is too long right now, or a timelock has not matured yet
 * (BIP65/BIP68/BIP113). Reasons as Bitcoin Core / Knots word them
 * (validation.cpp, policy/packages.cpp).
 */
const PASSING_REJECTIONS = /mempool min fee not met|mempool full|too-long-mempool-chain|too-large-cluster|package-mempool-limits|^non-final|^non-BIP68-final/;

/** Whether a failed submission is worth keeping for a later retry. */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof RpcTransportError) return true;
  // A node still starting (-28) has not judged the transaction at all.
  if (error instanceof RpcError && error.code === RpcCode.IN_WARMUP) return true;
  if (error instanceof RpcError) return PASSING_REJECTIONS.test(error.message);
  return false;
}
