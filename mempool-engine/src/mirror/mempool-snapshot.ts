import { btcToSats } from '../bitcoin/amounts.ts';
import { DEFAULT_BYTES_PER_SIGOP, sigopAdjustedVsize } from '../bitcoin/virtual-size.ts';

/**
 * A mempool snapshot as the block assembler reads it: one transaction per
 * index, every field in a typed array.
 *
 * Why typed arrays: the projection runs on a worker thread (projection-worker.ts)
 * over hundreds of thousands of transactions. Typed arrays are handed to the
 * worker by transferring their buffers, which costs nothing on the main
 * thread, where structured-cloning as many objects would take longer than the
 * projection itself; and the assembler's inner loops read them without
 * allocating.
 *
 * A snapshot must be closed under `depends`: every parent of a transaction in
 * it is in it too (a parent outside is a confirmed one, and is simply not
 * listed).
 */
export interface MempoolSnapshot {
  /** Number of transactions; every per-transaction array has this length. */
  count: number;
  /** Base fee, integer satoshis: what the miner collects (getrawmempool `fees.base`). */
  fee: Float64Array;
  /**
   * Modified fee, integer satoshis: base fee plus any prioritisetransaction
   * delta (`fees.modified`). Block assembly ranks by this one.
   */
  modifiedFee: Float64Array;
  /** Sigop-adjusted virtual size (getrawmempool `vsize`, policy.cpp GetVirtualTransactionSize). */
  vsize: Int32Array;
  /** BIP141 weight. */
  weight: Int32Array;
  /** Sigop cost (BIP141 units); 0 where unknown, see sigopCostFloor(). */
  sigops: Int32Array;
  /** The parents of transaction i are parents[parentStart[i]] .. parents[parentStart[i + 1] - 1]. */
  parentStart: Int32Array;
  /** In-mempool parents (indices into this snapshot), grouped per transaction. */
  parents: Int32Array;
  /**
   * 32 bytes per transaction: its txid in Core's internal byte order (the
   * display hex reversed), for the assembler's tie-break. Transaction i's
   * bytes are txids[32 * i] .. txids[32 * i + 31].
   */
  txids: Uint8Array;
  /**
   * Optional, from a node with a cluster mempool (Bitcoin Core 31 and later):
   * the total modified fee, integer satoshis, of the chunk transaction i is in
   * (getmempoolentry `fees.chunk`). Present, with chunkWeight, only when every
   * transaction has it: the projection then fills blocks chunk by chunk, as
   * such a node does (chunk-selection.ts).
   */
  chunkFee?: Float64Array;
  /** With chunkFee: the sigop-adjusted weight of that chunk (getmempoolentry `chunkweight`), always positive. */
  chunkWeight?: Int32Array;
  /** Optional: which transaction is which from one snapshot to the next (the mirror's snapshots have it). */
  identity?: SnapshotIdentity;
}

/**
 * What lets an assembler that keeps its work between projections
 * (ranked-mempool.ts) tell, without reading every field, which transactions
 * are the same as in the previous snapshot: a transaction is unchanged when
 * the same source gives the same version in the same slot.
 */
export interface SnapshotIdentity {
  /** The source (one mirror): slots and versions compare only between its own snapshots. */
  source: number;
  /** Per transaction, strictly ascending: a number that stays the transaction's while it stays (the mirror's slot). */
  slots: Int32Array;
  /**
   * Per transaction: a number that changes whenever anything the snapshot
   * holds of the transaction in that slot changes (another transaction, its
   * fees, its parents), to a value the source never gave before.
   */
  versions: Float64Array;
}

/** One mempool transaction in plain form, for encodeMempoolSnapshot(). */
export interface SnapshotEntry {
  /** Display hex, as the node's RPC shows it. */
  txid: string;
  /** Integer satoshis. */
  fee: number;
  /** Integer satoshis; defaults to `fee`. */
  modifiedFee?: number;
  vsize: number;
  weight: number;
  /** Sigop cost; defaults to sigopCostFloor(vsize, weight). */
  sigops?: number;
  /** Txids (display hex) of in-mempool parents. */
  depends: readonly string[];
  /** Integer satoshis: the total modified fee of the transaction's chunk (a cluster-mempool node's `fees.chunk`), if known. */
  chunkFee?: number | undefined;
  /** The sigop-adjusted weight of the transaction's chunk (`chunkweight`), if known. */
  chunkWeight?: number | undefined;
}

/**
 * The getrawmempool verbose / getmempoolentry fields the snapshot needs.
 * `chunkweight` and `fees.chunk` come from Bitcoin Core 31 and later (cluster
 * mempool); older nodes and Knots leave them out.
 */
export interface RawMempoolEntry {
  vsize: number;
  weight: number;
  fees: { base: number; modified: number; chunk?: number };
  chunkweight?: number;
  depends: string[];
}

export const TXID_BYTES = 32;

/**
 * The node reports no sigop cost in its mempool entries, only the vsize it
 * derives from it: vsize = ceil(max(weight, sigops × 20) / 4) with
 * -bytespersigop 20 (policy.cpp GetVirtualTransactionSize). When sigops set
 * the vsize, that is exactly 5 × sigops, so the cost is recovered exactly;
 * otherwise it is at most weight / 20 and unknown, and 0 is a floor. The
 * assembler's sigop limit (80,000 per block) is therefore applied with floors:
 * it binds only for sigop-heavy transactions, which are the ones recovered.
 */
export function sigopCostFloor(vsize: number, weight: number): number {
  const byWeight = Math.ceil(weight / 4);
  return vsize > byWeight && vsize % 5 === 0 ? vsize / 5 : 0;
}

/**
 * The vsize of a transaction the node reports, held at the floor its weight
 * sets. Core's getmempoolentry `vsize` is already sigop-adjusted
 * (GetVirtualTransactionSize) and so never below ceil(weight / 4); an answer
 * below it would make the assembler, which packs by 4 × vsize, overfill the
 * projected block. The sigop part cannot be checked here: the node reports
 * no sigop cost (see sigopCostFloor).
 */
export function reportedVsize(vsize: number, weight: number): number {
  return Math.max(vsize, Math.ceil(weight / 4));
}

/**
 * Refuses an entry whose vsize is below ceil(max(weight, sigops × 20) / 4),
 * the least the node could report for it (policy.cpp
 * GetVirtualTransactionSize, -bytespersigop 20): entries with their own
 * sigop cost are made up by tests and benchmarks, and one that contradicts
 * itself would project blocks the node never builds.
 */
function assertConsistentVsize(entry: SnapshotEntry, sigops: number): void {
  const least = sigopAdjustedVsize(entry.weight, sigops, DEFAULT_BYTES_PER_SIGOP);
  if (!(entry.vsize >= least)) {
    throw new RangeError(
      `Transaction ${entry.txid} has vsize ${entry.vsize}, but its weight ${entry.weight} and sigop cost ${sigops} make it at least ${least} (ceil(max(weight, sigops × ${DEFAULT_BYTES_PER_SIGOP}) / 4))`,
    );
  }
}

/**
 * Refuses chunk data no node would send: the chunk's weight is that of at
 * least one transaction (so a positive integer), its fee an integer amount.
 */
function assertValidChunk(txid: string, chunkFee: number, chunkWeight: number): void {
  if (!Number.isSafeInteger(chunkWeight) || chunkWeight <= 0) throw new RangeError(`Transaction ${txid} has chunk weight ${chunkWeight}`);
  if (!Number.isSafeInteger(chunkFee)) throw new RangeError(`Transaction ${txid} has chunk fee ${chunkFee}`);
}

/** Writes a display-hex txid into `target` at `offset` in internal byte order. */
export function writeTxidBytes(txid: string, target: Uint8Array, offset: number): void {
  if (txid.length !== 2 * TXID_BYTES) throw new RangeError(`Not a txid: ${txid}`);
  for (let i = 0; i < TXID_BYTES; i++) {
    const high = hexValue(txid.charCodeAt(2 * i));
    const low = hexValue(txid.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) throw new RangeError(`Not a txid: ${txid}`);
    // Display hex is the internal bytes reversed: display byte i is internal byte 31 - i.
    target[offset + TXID_BYTES - 1 - i] = (high << 4) | low;
  }
}

/** One hex digit's value, -1 for anything else; char codes, as slicing 64-character strings per txid is slow. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/** The display hex of transaction `index`'s txid. */
export function txidAt(snapshot: Pick<MempoolSnapshot, 'txids'>, index: number): string {
  let hex = '';
  for (let i = TXID_BYTES - 1; i >= 0; i--) hex += snapshot.txids[index * TXID_BYTES + i]!.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Plain entries to a snapshot, in the given order (index i is entries[i]).
 * Throws on a parent that is not in `entries`: a snapshot taken mid-update
 * would project a child without its parent; and on a vsize below what the
 * entry's weight and sigop cost make it (assertConsistentVsize).
 */
export function encodeMempoolSnapshot(entries: readonly SnapshotEntry[]): MempoolSnapshot {
  const count = entries.length;
  const indexOf = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (indexOf.has(entry.txid)) throw new RangeError(`Transaction ${entry.txid} appears twice in the snapshot`);
    indexOf.set(entry.txid, i);
  });
  // Chunk data only when every entry has it: a projection by chunks needs every transaction's (chunk-selection.ts).
  const chunked = count > 0 && entries.every((e) => e.chunkFee !== undefined && e.chunkWeight !== undefined);
  const chunkFee = chunked ? new Float64Array(count) : undefined;
  const chunkWeight = chunked ? new Int32Array(count) : undefined;
  const snapshot: MempoolSnapshot = {
    count,
    ...(chunkFee && chunkWeight ? { chunkFee, chunkWeight } : {}),
    fee: new Float64Array(count),
    modifiedFee: new Float64Array(count),
    vsize: new Int32Array(count),
    weight: new Int32Array(count),
    sigops: new Int32Array(count),
    parentStart: new Int32Array(count + 1),
    parents: new Int32Array(entries.reduce((n, e) => n + e.depends.length, 0)),
    txids: new Uint8Array(count * TXID_BYTES),
  };
  let edge = 0;
  entries.forEach((entry, i) => {
    snapshot.fee[i] = entry.fee;
    snapshot.modifiedFee[i] = entry.modifiedFee ?? entry.fee;
    const sigops = entry.sigops ?? sigopCostFloor(entry.vsize, entry.weight);
    assertConsistentVsize(entry, sigops);
    snapshot.vsize[i] = entry.vsize;
    snapshot.weight[i] = entry.weight;
    snapshot.sigops[i] = sigops;
    writeTxidBytes(entry.txid, snapshot.txids, i * TXID_BYTES);
    if (chunkFee && chunkWeight) {
      assertValidChunk(entry.txid, entry.chunkFee!, entry.chunkWeight!);
      chunkFee[i] = entry.chunkFee!;
      chunkWeight[i] = entry.chunkWeight!;
    }
    snapshot.parentStart[i] = edge;
    for (const parent of entry.depends) {
      const parentIndex = indexOf.get(parent);
      if (parentIndex === undefined) throw new RangeError(`Transaction ${entry.txid} depends on ${parent}, which is not in the snapshot`);
      snapshot.parents[edge++] = parentIndex;
    }
  });
  snapshot.parentStart[count] = edge;
  return snapshot;
}

/**
 * The node's `getrawmempool true` answer to a snapshot, transactions in the
 * answer's order; vsizes as reportedVsize() holds them. A cluster-mempool
 * node's chunk fee and weight are kept (BTC amounts to satoshis as the other
 * fees), and reach the snapshot when every entry has them.
 */
export function snapshotFromRawMempool(raw: Readonly<Record<string, RawMempoolEntry>>): MempoolSnapshot {
  return encodeMempoolSnapshot(
    Object.entries(raw).map(([txid, entry]) => ({
      txid,
      fee: btcToSats(entry.fees.base),
      modifiedFee: btcToSats(entry.fees.modified),
      vsize: reportedVsize(entry.vsize, entry.weight),
      weight: entry.weight,
      depends: entry.depends,
      ...chunkOfEntry(entry),
    })),
  );
}

/**
 * A cluster-mempool node's chunk fee (`fees.chunk`, BTC, to integer
 * satoshis) and weight (`chunkweight`), when the entry has both; nothing
 * from a node without them.
 */
export function chunkOfEntry(entry: { fees: { chunk?: number }; chunkweight?: number }): { chunkFee: number; chunkWeight: number } | undefined {
  if (entry.fees.chunk === undefined || entry.chunkweight === undefined) return undefined;
  return { chunkFee: btcToSats(entry.fees.chunk), chunkWeight: entry.chunkweight };
}

/** The distinct buffers behind a snapshot's arrays, for postMessage's transfer list. */
export function snapshotBuffers(snapshot: MempoolSnapshot): ArrayBuffer[] {
  return distinctTransferable([
    snapshot.fee, snapshot.modifiedFee, snapshot.vsize, snapshot.weight, snapshot.sigops,
    snapshot.parentStart, snapshot.parents, snapshot.txids, ...(snapshot.identity ? [snapshot.identity.slots, snapshot.identity.versions] : []),
    ...(snapshot.chunkFee && snapshot.chunkWeight ? [snapshot.chunkFee, snapshot.chunkWeight] : []),
  ]);
}

/**
 * A deep copy, e.g. to hand one to the worker while the original goes on
 * changing. With `reuse` (a snapshot the worker handed back), the copy goes
 * into its buffers where they are large enough (and of the kind asked for):
 * copying into memory already in use costs a fraction of fresh allocations,
 * which the system must map and zero. New buffers get some headroom for the
 * mempool to grow into.
 */
export function cloneSnapshot(snapshot: MempoolSnapshot, reuse?: MempoolSnapshot, options: { shared?: boolean } = {}): MempoolSnapshot {
  // Shared: read in place by the projection worker, as the mirror's snapshots are (MempoolMirror.snapshot()).
  const Buffer = options.shared ? SharedArrayBuffer : ArrayBuffer;
  const copy = <T extends Float64Array | Int32Array | Uint8Array>(source: T, old: T | undefined, make: (buffer: ArrayBufferLike, length: number) => T): T => {
    const bytes = source.byteLength;
    const buffer = old && old.buffer instanceof Buffer && old.buffer.byteLength >= bytes ? old.buffer : new Buffer(Math.ceil(bytes * 1.25) + 64);
    const target = make(buffer, source.length);
    target.set(source);
    return target;
  };
  const f64 = (buffer: ArrayBufferLike, length: number) => new Float64Array(buffer, 0, length);
  const i32 = (buffer: ArrayBufferLike, length: number) => new Int32Array(buffer, 0, length);
  return {
    count: snapshot.count,
    fee: copy(snapshot.fee, reuse?.fee, f64),
    modifiedFee: copy(snapshot.modifiedFee, reuse?.modifiedFee, f64),
    vsize: copy(snapshot.vsize, reuse?.vsize, i32),
    weight: copy(snapshot.weight, reuse?.weight, i32),
    sigops: copy(snapshot.sigops, reuse?.sigops, i32),
    parentStart: copy(snapshot.parentStart, reuse?.parentStart, i32),
    parents: copy(snapshot.parents, reuse?.parents, i32),
    txids: copy(snapshot.txids, reuse?.txids, (buffer, length) => new Uint8Array(buffer, 0, length)),
    ...(snapshot.chunkFee && snapshot.chunkWeight
      ? { chunkFee: copy(snapshot.chunkFee, reuse?.chunkFee, f64), chunkWeight: copy(snapshot.chunkWeight, reuse?.chunkWeight, i32) }
      : {}),
    ...(snapshot.identity
      ? { identity: { source: snapshot.identity.source, slots: copy(snapshot.identity.slots, reuse?.identity?.slots, i32), versions: copy(snapshot.identity.versions, reuse?.identity?.versions, f64) } }
      : {}),
  };
}

/**
 * Buffers that can be transferred, each once: two views on one buffer would
 * make postMessage throw, and a SharedArrayBuffer is shared, not transferred.
 */
export function distinctTransferable(views: readonly ArrayBufferView[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const view of views) if (view.buffer instanceof ArrayBuffer) buffers.add(view.buffer);
  return [...buffers];
}

/**
 * Throws unless the snapshot is well formed: arrays of the right lengths,
 * positive vsizes, parents that are other transactions of the snapshot,
 * slots (if any) strictly ascending. (Cycles are found while walking
 * ancestors.)
 */
export function assertValidSnapshot(s: MempoolSnapshot): void {
  assertSnapshotShape(s);
  let previousSlot = -1;
  for (let i = 0; i < s.count; i++) {
    assertValidTransaction(s, i);
    if (s.identity) {
      if (s.identity.slots[i]! <= previousSlot) throw new RangeError(`Snapshot slots are not strictly ascending at ${i}`);
      previousSlot = s.identity.slots[i]!;
    }
  }
}

/** The constant-time part of assertValidSnapshot(): array lengths and framing. */
export function assertSnapshotShape(s: MempoolSnapshot): void {
  const n = s.count;
  if (!Number.isInteger(n) || n < 0 || n > 0x3fff_ffff) throw new RangeError(`Bad snapshot count ${n}`);
  for (const [name, array] of [['fee', s.fee], ['modifiedFee', s.modifiedFee], ['vsize', s.vsize], ['weight', s.weight], ['sigops', s.sigops]] as const) {
    if (array.length !== n) throw new RangeError(`Snapshot ${name} has ${array.length} entries for ${n} transactions`);
  }
  if (s.txids.length !== n * TXID_BYTES) throw new RangeError(`Snapshot txids hold ${s.txids.length} bytes for ${n} transactions`);
  if (s.parentStart.length !== n + 1 || s.parentStart[0] !== 0 || s.parentStart[n] !== s.parents.length) throw new RangeError('Snapshot parentStart does not frame its parents');
  if (s.identity && (s.identity.slots.length !== n || s.identity.versions.length !== n)) throw new RangeError(`Snapshot identity has ${s.identity.slots.length} slots and ${s.identity.versions.length} versions for ${n} transactions`);
}

/** The per-transaction part of assertValidSnapshot(), for callers that walk the snapshot anyway. */
export function assertValidTransaction(s: MempoolSnapshot, i: number): void {
  if (!(s.vsize[i]! > 0)) throw new RangeError(`Transaction ${i} has vsize ${s.vsize[i]}`);
  const first = s.parentStart[i]!;
  const end = s.parentStart[i + 1]!;
  if (end < first) throw new RangeError('Snapshot parentStart is not ascending');
  for (let e = first; e < end; e++) {
    const p = s.parents[e]!;
    if (p < 0 || p >= s.count || p === i) throw new RangeError(`Transaction ${i} has parent ${p}`);
  }
}
