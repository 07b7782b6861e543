import type { TxidOrder } from './ranking/score-order.ts';

/** How Core limits, prices and orders packages inside a block (node/miner.cpp), shared by the projected blocks and the rest of the mempool. */

/** consensus/consensus.h MAX_BLOCK_SIGOPS_COST. */
export const MAX_BLOCK_SIGOPS_COST = 80_000;
/** consensus/consensus.h WITNESS_SCALE_FACTOR: TestPackage charges 4 WU per package vbyte. */
export const WITNESS_SCALE_FACTOR = 4;
/** node/miner.cpp addPackageTxs: give up after this many consecutive misfits when the block is nearly full. */
export const MAX_CONSECUTIVE_FAILURES = 1_000;
/** node/miner.cpp addPackageTxs: "nearly full" is within this many weight units of the maximum. */
export const BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4_000;

/** The fee Core's CFeeRate::GetFee (policy/feerate.cpp) asks of `size` vbytes: rounded up, at least 1 sat for a positive rate. */
export function minimumFee(ratePerKvB: number, size: number): number {
  const fee = Math.ceil((ratePerKvB * size) / 1000);
  return fee === 0 && size !== 0 && ratePerKvB > 0 ? 1 : fee;
}

/**
 * fee < minimumFee(ratePerKvB, size), asked once per package: for an
 * integer fee, below the rounded-up minimum is below the exact one (the
 * 1-sat floor included), so where both products are exact integers one
 * multiplication each replaces a division and a rounding.
 */
export function belowMinimumFee(fee: number, ratePerKvB: number, size: number): boolean {
  const paid = fee * 1000;
  const asked = ratePerKvB * size;
  if (Number.isSafeInteger(paid) && Number.isSafeInteger(asked)) return paid < asked;
  return fee < minimumFee(ratePerKvB, size);
}

/**
 * SortForBlock (node/miner.cpp): by ancestor count, then txid
 * (CompareTxIterByAncestorCount). A parent has fewer ancestors than its
 * child, so parents come first. Packages are small: insertion sort.
 */
export function sortForBlock(txs: Int32Array, counts: Int32Array, length: number, txidOrder: TxidOrder): void {
  for (let k = 1; k < length; k++) {
    const tx = txs[k]!;
    const c = counts[k]!;
    let at = k;
    while (at > 0) {
      const prev = txs[at - 1]!;
      const pc = counts[at - 1]!;
      if (pc < c || (pc === c && txidOrder.less(prev, tx))) break;
      txs[at] = prev;
      counts[at] = pc;
      at--;
    }
    txs[at] = tx;
    counts[at] = c;
  }
}
