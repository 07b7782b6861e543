import { RpcError, RpcTransportError } from '../../bitcoin/rpc-client.ts';

/**
 * Node rejections that can pass with time: the mempool is full or the
 * transaction's unconfirmed chain is too long right now. Reasons as Bitcoin
 * Core / Knots word them (validation.cpp, policy/packages.cpp).
 */
const PASSING_REJECTIONS = /mempool min fee not met|mempool full|too-long-mempool-chain|too-large-cluster|package-mempool-limits/;

/** Whether a failed submission is worth keeping for a later retry. */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof RpcTransportError) return true;
  if (error instanceof RpcError) return PASSING_REJECTIONS.test(error.message);
  return false;
}
