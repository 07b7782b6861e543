/**
 * A block's transaction ids, kept compactly so that the block tracker can
 * say which of the blocks it follows holds a txid without asking the node:
 * the first 8 bytes of each txid (as displayed, 16 hex digits) in a sorted
 * BigUint64Array, searched by bisection.
 *
 * Memory: 8 bytes a transaction. A mainnet week (1,008 blocks of some 3,500
 * transactions) is about 3.5 million txids: about 28 MB, plus a typed
 * array's small header per block. `npm run bench -- load` prints the figure
 * measured on its chain (trackedTxids, trackedTxidBytes).
 *
 * A prefix can match a txid the block does not hold (two txids sharing 64
 * bits: about 3.5 million ÷ 2^64, some 2 × 10^-13 a lookup, and not to be
 * ground for at will). The caller confirms a match with the node, in that
 * block only, so such a match costs one bounded call and answers nothing false.
 */

export type BlockTxids = BigUint64Array;

const PREFIX_DIGITS = 16;
const HEX_PREFIX = /^[0-9a-fA-F]{16}/;

/** The 64-bit key of a txid (its first 16 hex digits); undefined for anything that is not a txid. */
export function txidKey(txid: string): bigint | undefined {
  return HEX_PREFIX.test(txid) ? BigInt(`0x${txid.slice(0, PREFIX_DIGITS)}`) : undefined;
}

/** The sorted keys of a block's txids (getblock verbosity 1's `tx`). */
export function blockTxids(txids: readonly string[]): BlockTxids {
  const keys = new BigUint64Array(txids.length);
  let n = 0;
  for (const txid of txids) {
    const key = txidKey(txid);
    if (key !== undefined) keys[n++] = key;
  }
  // A typed array sorts numerically.
  return (n === keys.length ? keys : keys.slice(0, n)).sort();
}

/** Whether `keys` holds `key`: bisection over the sorted keys. */
export function holdsKey(keys: BlockTxids, key: bigint): boolean {
  let low = 0;
  let high = keys.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = keys[mid]!;
    if (at === key) return true;
    if (at < key) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}
