/**
 * A block's transaction ids, kept compactly so that the block tracker can
 * say which of the blocks it follows holds a txid without asking the node:
 * the first 52 bits of each txid (as displayed, its first 13 hex digits) as
 * an integer in a sorted Float64Array, searched by bisection. A double holds
 * an integer below 2^53 exactly, and a typed array of them sorts and compares
 * as plain numbers: a lookup that no block answers (every block searched)
 * takes tens of microseconds over a mainnet week, where 64-bit BigInt keys
 * took over a millisecond.
 *
 * Memory: 8 bytes a transaction. A mainnet week (1,008 blocks of some 3,500
 * transactions) is about 3.5 million txids: about 28 MB, plus a typed
 * array's small header per block. `npm run bench -- load` prints the figure
 * measured on its chain and on a week's worth built in the bench.
 *
 * A key can match a txid the block does not hold (two txids sharing 52
 * bits: about 3.5 million ÷ 2^52, under 10^-9 a lookup, and not to be ground
 * for at will). The caller confirms a match with the node, in that block
 * only, so such a match costs one bounded call and answers nothing false.
 */

export type BlockTxids = Float64Array;

const KEY_DIGITS = 13;
const HEX_PREFIX = /^[0-9a-fA-F]{13}/;

/** The key of a txid (its first 13 hex digits, 52 bits, exact in a double); undefined for anything that is not a txid. */
export function txidKey(txid: string): number | undefined {
  return HEX_PREFIX.test(txid) ? parseInt(txid.slice(0, KEY_DIGITS), 16) : undefined;
}

/** The sorted keys of a block's txids (getblock verbosity 1's `tx`). */
export function blockTxids(txids: readonly string[]): BlockTxids {
  const keys = new Float64Array(txids.length);
  let n = 0;
  for (const txid of txids) {
    const key = txidKey(txid);
    if (key !== undefined) keys[n++] = key;
  }
  // A typed array sorts numerically.
  return (n === keys.length ? keys : keys.slice(0, n)).sort();
}

/** Whether `keys` holds `key`: bisection over the sorted keys. */
export function holdsKey(keys: BlockTxids, key: number): boolean {
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
