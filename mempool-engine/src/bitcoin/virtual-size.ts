/**
 * The sigop-adjusted virtual size, as Bitcoin Core computes it for mempool
 * acceptance, fee rates and block templates: `GetVirtualTransactionSize(weight,
 * sigop_cost, -bytespersigop)` (policy/policy.cpp) charges `bytes_per_sigop`
 * virtual bytes per sigop when that exceeds the weight. The node's mempool
 * entries are in this unit; the portal's sigop cost of a decoded transaction
 * is server/src/bitcoin/sigops.ts.
 */

/** policy/policy.h DEFAULT_BYTES_PER_SIGOP: the node's -bytespersigop default. */
export const DEFAULT_BYTES_PER_SIGOP = 20;

/** consensus/consensus.h WITNESS_SCALE_FACTOR: weight units per virtual byte. */
const WITNESS_SCALE_FACTOR = 4;

/**
 * policy/policy.cpp GetVirtualTransactionSize(nWeight, nSigOpCost, bytes_per_sigop):
 * ceil(max(weight, sigop_cost × bytes_per_sigop) / WITNESS_SCALE_FACTOR).
 */
export function sigopAdjustedVsize(weight: number, sigopCost: number, bytesPerSigop: number = DEFAULT_BYTES_PER_SIGOP): number {
  return Math.ceil(Math.max(weight, sigopCost * bytesPerSigop) / WITNESS_SCALE_FACTOR);
}
