import { ArrayPool } from '../array-pool.ts';
import { TXID_BYTES } from '../../mirror/mempool-snapshot.ts';

/**
 * The order in which the block assembler considers packages.
 *
 * Bitcoin Core ranks candidates with CompareTxMemPoolEntryByAncestorFee
 * (txmempool.h): by a fee / size pair, compared as a_fee × b_size against
 * a_size × b_fee in doubles, ties broken by txid. Fees and sizes are
 * integers, so those products are exact below 2^53 (a 1 BTC package of
 * 1,000,000 vB makes 10^14), where Core's comparison is the exact comparison
 * of the two fractions, and so is this module's. (Beyond, with fees of tens
 * of BTC on megabyte packages, Core's rounded products and the quotients
 * below could disagree on near-equal rates.)
 *
 * Shortcut: each score also keeps its quotient fee / size. Division rounds
 * monotonically, so a strictly greater quotient means a strictly greater
 * fraction. Equal quotients mean equal fractions when |rate| × maxSize² <
 * 2^52 (`exactTieRate`): two different fractions with sizes up to maxSize
 * differ by at least 1 / maxSize², more than two roundings can hide; the txid
 * then decides. Only above that (thousands of sat/vB over megabyte packages)
 * are the products computed.
 *
 * A txid "less than" another compares Core's uint256 bytes with memcmp, that
 * is in internal byte order (the display hex reversed).
 */

/** Core's txid tie-break: memcmp of the internal bytes, lower first. */
export class TxidOrder {
  /** The first 6 internal bytes as one exact number: nearly every comparison ends here. */
  readonly prefix: Float64Array;
  private readonly txids: Uint8Array;
  private readonly snapshotIndex: Int32Array | undefined;

  /**
   * Transaction i's txid is the snapshot's transaction snapshotIndex[i]
   * (default: i); `prefix` holds txidPrefixes() of them in that numbering.
   */
  constructor(txids: Uint8Array, prefix: Float64Array, snapshotIndex?: Int32Array) {
    this.txids = txids;
    this.prefix = prefix;
    this.snapshotIndex = snapshotIndex;
  }

  less(a: number, b: number): boolean {
    const pa = this.prefix[a]!;
    const pb = this.prefix[b]!;
    if (pa !== pb) return pa < pb;
    return this.lessAfterPrefix(a, b);
  }

  /** For two transactions whose txid prefixes are equal: the remaining 26 bytes. */
  lessAfterPrefix(a: number, b: number): boolean {
    const bytes = this.txids;
    const at = (this.snapshotIndex ? this.snapshotIndex[a]! : a) * TXID_BYTES;
    const bt = (this.snapshotIndex ? this.snapshotIndex[b]! : b) * TXID_BYTES;
    for (let i = 6; i < TXID_BYTES; i++) {
      const x = bytes[at + i]!;
      const y = bytes[bt + i]!;
      if (x !== y) return x < y;
    }
    // The same txid twice cannot be in a mempool; keep the order total anyway.
    return a < b;
  }
}

/** Each snapshot transaction's first 6 txid bytes (internal order) as one number, into `out`. */
export function txidPrefixes(txids: Uint8Array, out: Float64Array): Float64Array {
  for (let i = 0; i < out.length; i++) out[i] = txidPrefixAt(txids, i);
  return out;
}

/** Transaction i's first 6 txid bytes (internal order) as one number. */
export function txidPrefixAt(txids: Uint8Array, i: number): number {
  const at = i * TXID_BYTES;
  return txids[at]! * 2 ** 40 + txids[at + 1]! * 2 ** 32 + txids[at + 2]! * 2 ** 24 + txids[at + 3]! * 2 ** 16 + txids[at + 4]! * 2 ** 8 + txids[at + 5]!;
}

/** The largest |rate| at which equal quotients are equal fractions, for scores whose sizes never exceed maxSize. */
export function exactTieRateFor(maxSize: number): number {
  return 2 ** 52 / (maxSize * maxSize);
}

/**
 * Per-transaction scores (a fee / size pair and its quotient) and the order
 * they define. Whoever changes a score calls set().
 */
export class ScoreOrder {
  readonly fee: Float64Array;
  readonly size: Float64Array;
  readonly rate: Float64Array;
  readonly txidOrder: TxidOrder;
  readonly exactTieRate: number;

  /** Three arrays with a slot per transaction; set() fills them. */
  constructor(fee: Float64Array, size: Float64Array, rate: Float64Array, txidOrder: TxidOrder, exactTieRate: number) {
    this.fee = fee;
    this.size = size;
    this.rate = rate;
    this.txidOrder = txidOrder;
    this.exactTieRate = exactTieRate;
  }

  set(tx: number, fee: number, size: number): void {
    this.fee[tx] = fee;
    this.size[tx] = size;
    // +0 for a zero fee, so that the radix sort's bit patterns see one zero.
    this.rate[tx] = fee === 0 ? 0 : fee / size;
  }

  /** Whether a is considered before b. */
  before(a: number, b: number): boolean {
    const ra = this.rate[a]!;
    const rb = this.rate[b]!;
    if (ra !== rb) return ra > rb;
    if (Math.abs(ra) < this.exactTieRate) return this.txidOrder.less(a, b);
    return exactlyBefore(this.fee[a]!, this.size[a]!, a, this.fee[b]!, this.size[b]!, b, this.txidOrder);
  }
}

/** Whether a, scored in x, is considered before b, scored in y (orders over the same transactions). */
export function beforeAcross(x: ScoreOrder, a: number, y: ScoreOrder, b: number): boolean {
  const ra = x.rate[a]!;
  const rb = y.rate[b]!;
  if (ra !== rb) return ra > rb;
  if (Math.abs(ra) < x.exactTieRate) return x.txidOrder.less(a, b);
  return exactlyBefore(x.fee[a]!, x.size[a]!, a, y.fee[b]!, y.size[b]!, b, x.txidOrder);
}

/** Core's comparison itself: cross-multiplied, then the txid. */
export function exactlyBefore(feeA: number, sizeA: number, a: number, feeB: number, sizeB: number, b: number, txidOrder: TxidOrder): boolean {
  const left = feeA * sizeB;
  const right = sizeA * feeB;
  if (left !== right) return left > right;
  return txidOrder.less(a, b);
}

/** Below this many, a comparison sort beats the radix sort's fixed cost. */
const RADIX_THRESHOLD = 2_048;
const DIGIT_BITS = 16;
const BUCKETS = 1 << DIGIT_BITS;
const DIGIT_MASK = BUCKETS - 1;

/**
 * Sorts `txs` in place, best first. Large lists go through an LSD radix sort
 * on (quotient descending, txid prefix ascending), 7 passes of 16 bits, the
 * keys travelling with their transactions so that every pass reads in
 * sequence: a comparison sort of 300,000 transactions would take longer than
 * the rest of the projection. Runs of equal quotients at rates beyond the
 * shortcut, and equal prefixes, are then re-sorted with the exact comparison.
 */
export function sortByScore(txs: Int32Array, order: ScoreOrder, pool: ArrayPool = new ArrayPool()): void {
  const count = txs.length;
  if (count < RADIX_THRESHOLD) {
    insertionOrComparisonSort(txs, order);
    return;
  }
  // rate: 64-bit key, descending; tie: the 48-bit txid prefix, ascending.
  let rateHigh = pool.uint32('radix.rateHigh', count);
  let rateLow = pool.uint32('radix.rateLow', count);
  let tieHigh = pool.uint32('radix.tieHigh', count);
  let tieLow = pool.uint32('radix.tieLow', count);
  let items = pool.int32('radix.items', count);
  items.set(txs);
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  for (let k = 0; k < count; k++) {
    const tx = items[k]!;
    bits[0] = order.rate[tx]!;
    let low = words[0]!;
    let high = words[1]!;
    // IEEE 754 bits to an unsigned key in numeric order, then inverted for descending order.
    if (high & 0x8000_0000) {
      high = ~high >>> 0;
      low = ~low >>> 0;
    } else {
      high = (high ^ 0x8000_0000) >>> 0;
    }
    rateHigh[k] = ~high >>> 0;
    rateLow[k] = ~low >>> 0;
    const prefix = order.txidOrder.prefix[tx]!;
    tieHigh[k] = Math.floor(prefix / 2 ** 32);
    tieLow[k] = prefix % 2 ** 32;
  }
  let nextRateHigh = pool.uint32('radix.nextRateHigh', count);
  let nextRateLow = pool.uint32('radix.nextRateLow', count);
  let nextTieHigh = pool.uint32('radix.nextTieHigh', count);
  let nextTieLow = pool.uint32('radix.nextTieLow', count);
  let nextItems = pool.int32('radix.nextItems', count);
  const counts = pool.int32('radix.counts', BUCKETS);
  // Least significant first: the prefix's low word, its high bits, the rate's low word, its high word.
  const passes: Array<[0 | 1 | 2 | 3, number]> = [[0, 0], [0, 16], [1, 0], [2, 0], [2, 16], [3, 0], [3, 16]];
  for (const [which, shift] of passes) {
    const key = which === 0 ? tieLow : which === 1 ? tieHigh : which === 2 ? rateLow : rateHigh;
    counts.fill(0);
    for (let k = 0; k < count; k++) counts[(key[k]! >>> shift) & DIGIT_MASK]!++;
    if (counts.includes(count)) continue; // one digit value throughout: nothing to reorder
    let sum = 0;
    for (let d = 0; d < BUCKETS; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    const moveTie = which < 2;
    for (let k = 0; k < count; k++) {
      const to = counts[(key[k]! >>> shift) & DIGIT_MASK]!++;
      nextItems[to] = items[k]!;
      nextRateHigh[to] = rateHigh[k]!;
      nextRateLow[to] = rateLow[k]!;
      if (moveTie) {
        nextTieHigh[to] = tieHigh[k]!;
        nextTieLow[to] = tieLow[k]!;
      }
    }
    [items, nextItems] = [nextItems, items];
    [rateHigh, nextRateHigh] = [nextRateHigh, rateHigh];
    [rateLow, nextRateLow] = [nextRateLow, rateLow];
    if (moveTie) {
      [tieHigh, nextTieHigh] = [nextTieHigh, tieHigh];
      [tieLow, nextTieLow] = [nextTieLow, tieLow];
    }
  }
  txs.set(items);

  // Runs of equal quotients (equal keys) that the shortcut cannot settle, or with equal prefixes: the exact order.
  const prefix = order.txidOrder.prefix;
  for (let start = 0; start < count; ) {
    let end = start + 1;
    let samePrefix = false;
    while (end < count && rateHigh[end] === rateHigh[start] && rateLow[end] === rateLow[start]) {
      if (prefix[items[end]!] === prefix[items[end - 1]!]) samePrefix = true;
      end++;
    }
    if (end - start > 1 && (samePrefix || Math.abs(order.rate[items[start]!]!) >= order.exactTieRate)) insertionOrComparisonSort(txs.subarray(start, end), order);
    start = end;
  }
}

/** Runs this short are insertion-sorted before merging. */
const INSERTION_RUN = 16;

/**
 * A stable merge sort over the typed array itself: runs of 16 sorted by
 * insertion, then merged pairwise through a scratch array. (Copying into a
 * plain array for Array.prototype.sort would box every element and call
 * back through a closure per comparison.)
 */
function insertionOrComparisonSort(txs: Int32Array, order: ScoreOrder): void {
  const count = txs.length;
  for (let start = 0; start < count; start += INSERTION_RUN) insertionSort(txs, start, Math.min(start + INSERTION_RUN, count), order);
  if (count <= INSERTION_RUN) return;
  let from: Int32Array = txs;
  let to: Int32Array = new Int32Array(count);
  for (let width = INSERTION_RUN; width < count; width *= 2) {
    for (let start = 0; start < count; start += 2 * width) {
      const middle = Math.min(start + width, count);
      const end = Math.min(start + 2 * width, count);
      let i = start;
      let j = middle;
      let at = start;
      while (i < middle && j < end) to[at++] = order.before(from[j]!, from[i]!) ? from[j++]! : from[i++]!;
      while (i < middle) to[at++] = from[i++]!;
      while (j < end) to[at++] = from[j++]!;
    }
    [from, to] = [to, from];
  }
  if (from !== txs) txs.set(from);
}

function insertionSort(txs: Int32Array, start: number, end: number, order: ScoreOrder): void {
  for (let k = start + 1; k < end; k++) {
    const tx = txs[k]!;
    let at = k;
    while (at > start && order.before(tx, txs[at - 1]!)) {
      txs[at] = txs[at - 1]!;
      at--;
    }
    txs[at] = tx;
  }
}

/**
 * Merges `few` into `many` (both sorted best first) into `out` (length
 * many.length + few.length, not overlapping either). Between blocks `few`
 * is the handful of transactions re-scored, `many` the hundreds of thousands
 * untouched: each of the few finds its place by binary search, and the runs
 * of the many between them are copied whole.
 */
export function mergeByScore(many: Int32Array, few: Int32Array, out: Int32Array, order: ScoreOrder): void {
  // When the few are not few (a mempool ranked from scratch, a long run of fresh labels), one comparison per element beats a search per few.
  if (few.length * 16 > many.length) {
    mergeLinear(many, few, out, order);
    return;
  }
  let from = 0;
  let at = 0;
  for (let j = 0; j < few.length; j++) {
    const tx = few[j]!;
    // The first of many[from..] that tx ranks before.
    let low = from;
    let high = many.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (order.before(tx, many[middle]!)) high = middle;
      else low = middle + 1;
    }
    out.set(many.subarray(from, low), at);
    at += low - from;
    from = low;
    out[at++] = tx;
  }
  out.set(many.subarray(from), at);
}

function mergeLinear(many: Int32Array, few: Int32Array, out: Int32Array, order: ScoreOrder): void {
  let i = 0;
  let j = 0;
  let at = 0;
  while (i < many.length && j < few.length) out[at++] = order.before(few[j]!, many[i]!) ? few[j++]! : many[i++]!;
  while (i < many.length) out[at++] = many[i++]!;
  while (j < few.length) out[at++] = few[j++]!;
}
