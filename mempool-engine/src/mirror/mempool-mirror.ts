import { reportedVsize, sigopCostFloor, TXID_BYTES, writeTxidBytes, type MempoolSnapshot } from './mempool-snapshot.ts';
import { ParentSegments } from './parent-segments.ts';

/**
 * The in-memory copy of the node's mempool that the engine projects from,
 * kept in typed arrays so that handing the projection worker a snapshot
 * costs copies of contiguous memory, not a walk over objects (the bench
 * measures a snapshot built from 300,000 plain objects at several times the
 * 10 ms main-thread budget).
 *
 * Layout: every transaction has a slot, stable for as long as it stays;
 * freed slots are reused. Per-slot fields live in typed arrays; parent links
 * are segments of one typed array (parent-segments.ts), child links short
 * lists per slot. A snapshot packs the live slots in
 * slot order: runs of consecutive live slots are copied with one set() per
 * array, and the parent lists are renumbered in one pass.
 *
 * The mirror stays closed under `depends` by construction: a link is made
 * only between two transactions both present, from either side (a new
 * transaction's `depends` names parents already here, its `spentby` names
 * children already here: the node's answers may arrive in any order, and a
 * transaction a reorg brings back has children already in the mempool), and
 * removing a transaction drops its links.
 *
 * Chunks: a cluster-mempool node (Bitcoin Core 31 and later) says in each
 * entry the fee and weight of the transaction's chunk, which the projection
 * fills blocks by (chunk-selection.ts). Unlike the rest of an entry, they
 * change while the transaction stays: whenever its cluster (the
 * transactions linked to it by spending) gains or loses one, or a fee delta
 * changes. So then the mirror forgets the chunks of the whole cluster, and
 * lists its transactions for the node to be asked again
 * (staleChunkTxids(), setChunk(): node-poll.ts refreshChunks()). And a
 * chunk counts only while the mirror links the transaction to exactly as
 * many parents and children as its entry named: one named but not held
 * (yet to arrive, or gone before its entry was read) is in the node's chunk
 * but not in the mirror. A snapshot carries chunks only when every
 * transaction's counts; until then the projection goes by ancestor score.
 * (A node that relinearizes a cluster later, with no change to it, is not
 * seen until the cluster next changes.)
 *
 * No I/O here: mirror-sync.ts feeds it from the node.
 */

/** What the node's getmempoolentry says of a transaction, fees in integer satoshis. */
export interface MirrorEntry {
  /** fees.base */
  fee: number;
  /** fees.modified: base plus any prioritisetransaction delta; block assembly ranks by it. */
  modifiedFee: number;
  /** Sigop-adjusted virtual size (policy.cpp GetVirtualTransactionSize); held at no less than ceil(weight / 4) (reportedVsize). */
  vsize: number;
  weight: number;
  /** Unix seconds the node first saw it (`time`). */
  time: number;
  /** In-mempool parents. */
  depends: readonly string[];
  /** In-mempool children. */
  spentby: readonly string[];
  /** A cluster-mempool node's `fees.chunk` (integer satoshis) and `chunkweight`, when it sends them. */
  chunkFee?: number | undefined;
  chunkWeight?: number | undefined;
}

/** Why a transaction left: taken by a block, or anything else (Core's `R` notification does not say which). */
export type RemovalReason = 'mined' | 'removed';

export interface RemovedTx extends MirroredTx {
  removedAtMs: number;
  reason: RemovalReason;
  /** The block that took it, when `reason` is 'mined'. */
  blockHash: string | undefined;
}

/** A transaction as the mirror holds it. */
export interface MirroredTx {
  txid: string;
  fee: number;
  modifiedFee: number;
  vsize: number;
  weight: number;
  firstSeen: number;
}

export interface MirrorSnapshot {
  snapshot: MempoolSnapshot;
  /** Slot → index in `snapshot`, -1 for a free slot; covers every slot in use when it was taken. */
  indexOfSlot: Int32Array;
  /** Transactions added up to this count are in the snapshot (see MempoolMirror.projectedIndex). */
  addedUpTo: number;
  /** The mirror's version when the snapshot was taken. */
  version: number;
  /** When the oldest change in this snapshot, not in the previous one, was observed (ms), or undefined. */
  oldestChangeAtMs: number | undefined;
}

export interface MempoolMirrorOptions {
  /** How many departed transactions to remember (default 50,000). */
  rememberRemoved?: number;
}

const INITIAL_CAPACITY = 1_024;

export class MempoolMirror {
  /** Bumped on every change. */
  version = 0;
  /**
   * The node's mempool sequence the mirror is known to reflect up to: the
   * `mempool_sequence` getrawmempool answered (the next number the node will
   * use), or one past the last A/R notification applied. Notifications below
   * it are already reflected.
   */
  sequence = 0;
  /** The chain tip the mirror's mempool goes with. */
  tip: { hash: string; height: number } | undefined;

  private capacity = 0;
  private highWater = 0;
  private live = new Uint8Array(0);
  private fee = new Float64Array(0);
  private modifiedFee = new Float64Array(0);
  private vsize = new Int32Array(0);
  private weight = new Int32Array(0);
  private sigops = new Int32Array(0);
  private time = new Float64Array(0);
  /** Per slot: the chunk fee and weight the node gave; weight 0 when it gave none, or they changed since. */
  private chunkFee = new Float64Array(0);
  private chunkWeight = new Int32Array(0);
  /** Transactions held whose chunk is known. */
  private chunksKnown = 0;
  /** Transactions whose chunk changed with their cluster, or may count one not held: to ask the node for again. */
  private readonly staleChunks = new Set<string>();
  /** Per slot: how many in-mempool parents and children the node's entry named, and how many the mirror links it to. */
  private named = new Int32Array(0);
  private linkCount = new Int32Array(0);
  /** Transactions held whose links differ in number from what their entry named. */
  private unmatched = 0;
  /**
   * Whether a new link forgets the chunks of the cluster it joins (default).
   * Off while a fresh mirror is filled from one mempool list (node-poll.ts):
   * every entry is read after the list was taken, so its chunk already
   * counts the other transactions of the list it is linked to; what changes
   * after the list arrives as notifications, with this back on.
   */
  chunksFollowLinks = true;
  /** The add counter when the slot's transaction arrived. */
  private addedSeq = new Float64Array(0);
  /**
   * Per slot: a stamp renewed whenever what a snapshot holds of the slot
   * changes (another transaction, its modified fee, its parents). With the
   * slot it tells the block assembler which transactions it has already
   * ranked (MempoolSnapshot.identity).
   */
  private slotVersion = new Float64Array(0);
  private lastStamp = 0;
  /** Tells this mirror's stamps from another's (a resynchronised mirror starts its own). */
  private readonly source = Math.random();
  /** The last snapshot taken, and the lowest slot changed since (added, removed, or stamped). */
  private last: { snapshot: MempoolSnapshot; indexOfSlot: Int32Array } | undefined;
  private lowestChange = 0;
  /** Each slot's parents (parent-segments.ts); their number is the snapshot's edge count. */
  private readonly parents = new ParentSegments();
  private txidBytes = new Uint8Array(0);
  private ids: Array<string | undefined> = [];
  private childrenOf: Array<number[] | undefined> = [];
  private readonly slots = new Map<string, number>();
  private readonly free: number[] = [];
  private addCounter = 0;
  private totalVsize = 0;
  private totalFee = 0;
  private oldestChangeAt: number | undefined;
  private readonly removed = new Map<string, RemovedTx>();
  private readonly rememberRemoved: number;

  constructor(options: MempoolMirrorOptions = {}) {
    this.rememberRemoved = options.rememberRemoved ?? 50_000;
    this.grow(INITIAL_CAPACITY);
  }

  get count(): number {
    return this.slots.size;
  }

  /** Sum of vsizes and of base fees (sats) of every transaction held. */
  get totals(): { txCount: number; vsize: number; totalFees: number } {
    return { txCount: this.slots.size, vsize: this.totalVsize, totalFees: this.totalFee };
  }

  /** Slots in use, free ones included: what a snapshot walks. */
  get slotsInUse(): number {
    return this.highWater;
  }

  has(txid: string): boolean {
    return this.slots.has(txid);
  }

  slotOf(txid: string): number | undefined {
    return this.slots.get(txid);
  }

  get(txid: string): MirroredTx | undefined {
    const slot = this.slots.get(txid);
    if (slot === undefined) return undefined;
    return { txid, fee: this.fee[slot]!, modifiedFee: this.modifiedFee[slot]!, vsize: this.vsize[slot]!, weight: this.weight[slot]!, firstSeen: this.time[slot]! };
  }

  /** The txids held, in no particular order. */
  txids(): IterableIterator<string> {
    return this.slots.keys();
  }

  /** What the mirror remembers of a transaction that left (the last `rememberRemoved` of them). */
  removal(txid: string): RemovedTx | undefined {
    return this.removed.get(txid);
  }

  /** In-mempool parents of a transaction held. */
  parentsOfTx(txid: string): string[] {
    const slot = this.slots.get(txid);
    if (slot === undefined) return [];
    return Array.from(this.parents.of(slot), (p) => this.ids[p]!);
  }

  /** In-mempool children of a transaction held. */
  childrenOfTx(txid: string): string[] {
    const slot = this.slots.get(txid);
    if (slot === undefined) return [];
    return (this.childrenOf[slot] ?? []).map((c) => this.ids[c]!);
  }

  /**
   * Adds a transaction the node has in its mempool. Returns false, changing
   * nothing, when it is already here (its entry does not change while it
   * stays, except for the modified fee: setModifiedFee()).
   */
  add(txid: string, entry: MirrorEntry, observedAtMs: number): boolean {
    if (this.slots.has(txid)) return false;
    const vsize = reportedVsize(entry.vsize, entry.weight);
    let slot = this.free.pop();
    if (slot === undefined) {
      if (this.highWater === this.capacity) this.grow(this.capacity * 2);
      slot = this.highWater++;
    }
    writeTxidBytes(txid, this.txidBytes, slot * TXID_BYTES);
    this.live[slot] = 1;
    this.fee[slot] = entry.fee;
    this.modifiedFee[slot] = entry.modifiedFee;
    this.vsize[slot] = vsize;
    this.weight[slot] = entry.weight;
    this.sigops[slot] = sigopCostFloor(vsize, entry.weight);
    this.time[slot] = entry.time;
    const known = isChunkWeight(entry.chunkWeight) && Number.isSafeInteger(entry.chunkFee);
    this.chunkFee[slot] = known ? entry.chunkFee! : 0;
    this.chunkWeight[slot] = known ? entry.chunkWeight! : 0;
    if (known) this.chunksKnown++;
    this.addedSeq[slot] = ++this.addCounter;
    this.parents.clear(slot);
    this.ids[slot] = txid;
    this.childrenOf[slot] = undefined;
    this.linkCount[slot] = 0;
    this.named[slot] = entry.depends.length + entry.spentby.length;
    if (this.named[slot] !== 0) this.unmatched++;
    this.slots.set(txid, slot);
    this.stamp(slot);
    this.removed.delete(txid);
    let linked = false;
    for (const parent of entry.depends) {
      const p = this.slots.get(parent);
      if (p !== undefined) linked = this.link(p, slot) || linked;
    }
    for (const child of entry.spentby) {
      const c = this.slots.get(child);
      if (c !== undefined) linked = this.link(slot, c) || linked;
    }
    // It joined a cluster: every chunk of it may have changed (its own too: the node may have seen more of the cluster).
    if (linked && this.chunksFollowLinks) this.forgetChunks([slot]);
    else if (this.chunksKnown > 0 && this.linkCount[slot] !== this.named[slot]) this.staleChunks.add(txid);
    this.totalVsize += vsize;
    this.totalFee += entry.fee;
    this.changed(observedAtMs);
    return true;
  }

  /** Removes a transaction; returns false when it was not here. */
  remove(txid: string, reason: RemovalReason, observedAtMs: number, blockHash?: string): boolean {
    const slot = this.slots.get(txid);
    if (slot === undefined) return false;
    const neighbours = this.chunksKnown > 0 ? [...this.parents.of(slot), ...(this.childrenOf[slot] ?? [])] : [];
    for (const parent of this.parents.of(slot)) {
      dropFrom(this.childrenOf[parent], slot);
      this.countLink(parent, -1);
    }
    for (const c of this.childrenOf[slot] ?? []) {
      // A child left behind spends a confirmed output now (its parent was mined), or will go too (replaced).
      if (this.parents.remove(c, slot)) {
        this.stamp(c);
        this.countLink(c, -1);
      }
    }
    if (this.linkCount[slot] !== this.named[slot]) this.unmatched--;
    this.remember({
      txid,
      fee: this.fee[slot]!,
      modifiedFee: this.modifiedFee[slot]!,
      vsize: this.vsize[slot]!,
      weight: this.weight[slot]!,
      firstSeen: this.time[slot]!,
      removedAtMs: observedAtMs,
      reason,
      blockHash: reason === 'mined' ? blockHash : undefined,
    });
    this.totalVsize -= this.vsize[slot]!;
    this.totalFee -= this.fee[slot]!;
    if (this.chunkWeight[slot]! > 0) this.chunksKnown--;
    this.chunkWeight[slot] = 0;
    this.staleChunks.delete(txid);
    this.live[slot] = 0;
    if (slot < this.lowestChange) this.lowestChange = slot;
    this.parents.clear(slot);
    this.ids[slot] = undefined;
    this.childrenOf[slot] = undefined;
    this.slots.delete(txid);
    this.free.push(slot);
    // What is left of its cluster (one or several clusters now) has other chunks.
    this.forgetChunks(neighbours);
    this.changed(observedAtMs);
    return true;
  }

  /** A prioritisetransaction delta changed: the modified fee is base + delta. */
  setModifiedFee(txid: string, modifiedFee: number, observedAtMs: number): boolean {
    const slot = this.slots.get(txid);
    if (slot === undefined || this.modifiedFee[slot] === modifiedFee) return false;
    this.modifiedFee[slot] = modifiedFee;
    this.stamp(slot);
    this.forgetChunks([slot]);
    this.changed(observedAtMs);
    return true;
  }

  /**
   * The transactions whose chunk the node must be asked for again (node-poll.ts
   * refreshChunks()): their cluster changed since it said, or their entry
   * named a parent or child the mirror does not link them to. Each stays
   * listed until its chunk counts again (setChunk(), or the missing link
   * made) or it leaves.
   */
  staleChunkTxids(): string[] {
    const stale: string[] = [];
    for (const txid of this.staleChunks) {
      const slot = this.slots.get(txid);
      if (slot !== undefined && this.chunkCounts(slot)) this.staleChunks.delete(txid);
      else stale.push(txid);
    }
    return stale;
  }

  /** Whether every transaction held has a chunk that counts (and there is one): snapshots then carry them. */
  get chunksComplete(): boolean {
    return this.slots.size > 0 && this.chunksKnown === this.slots.size && this.unmatched === 0;
  }

  /**
   * What the node's entry now says of a transaction held: its chunk fee
   * (integer satoshis) and weight, and how many in-mempool parents and
   * children it named. False when not held, not a chunk, or no change.
   */
  setChunk(txid: string, chunkFee: number, chunkWeight: number, named: number, observedAtMs: number): boolean {
    const slot = this.slots.get(txid);
    if (slot === undefined || !isChunkWeight(chunkWeight) || !Number.isSafeInteger(chunkFee)) return false;
    const wasUnmatched = this.linkCount[slot] !== this.named[slot];
    this.named[slot] = named;
    const unmatched = this.linkCount[slot] !== named;
    if (wasUnmatched !== unmatched) this.unmatched += unmatched ? 1 : -1;
    if (!unmatched) this.staleChunks.delete(txid);
    if (this.chunkWeight[slot] === chunkWeight && this.chunkFee[slot] === chunkFee && wasUnmatched === unmatched) return false;
    if (this.chunkWeight[slot] === 0) this.chunksKnown++;
    this.chunkFee[slot] = chunkFee;
    this.chunkWeight[slot] = chunkWeight;
    // Copied into the next snapshot; the ranking by ancestor score does not read chunks, so no new version.
    if (slot < this.lowestChange) this.lowestChange = slot;
    this.changed(observedAtMs);
    return true;
  }

  /** Base fee of a transaction held (for base + delta). */
  baseFee(txid: string): number | undefined {
    const slot = this.slots.get(txid);
    return slot === undefined ? undefined : this.fee[slot];
  }

  /**
   * Calls `visit` for every transaction held; the set may be changed from
   * inside (removals of visited ones are safe).
   */
  forEachTxid(visit: (txid: string, slot: number) => void): void {
    for (let slot = 0; slot < this.highWater; slot++) {
      const txid = this.ids[slot];
      if (txid !== undefined) visit(txid, slot);
    }
  }

  /**
   * The snapshot index of a transaction in the snapshot `taken`, or -1 when
   * it is not in it: it arrived later, or left (its slot may since hold
   * another transaction, which `addedSeq` tells apart).
   */
  projectedIndex(txid: string, taken: Pick<MirrorSnapshot, 'indexOfSlot' | 'addedUpTo'>): number {
    const slot = this.slots.get(txid);
    if (slot === undefined || slot >= taken.indexOfSlot.length || this.addedSeq[slot]! > taken.addedUpTo) return -1;
    return taken.indexOfSlot[slot]!;
  }

  /**
   * The mirror as the block assembler reads it, in shared memory. With
   * `reuse` (the snapshot the worker handed back: it is done with it), the
   * copy goes into its buffers where they are large enough (see
   * mempool-snapshot.ts cloneSnapshot), so that one snapshot's memory
   * serves update after update; and when `reuse` is the last snapshot taken,
   * only what follows the lowest slot changed since is copied: what precedes
   * it is already there (a slot's parents are renumbered where the slots
   * after it moved).
   */
  snapshot(reuse?: MempoolSnapshot): MirrorSnapshot {
    const n = this.slots.size;
    const used = this.highWater;
    const live = this.live;
    const last = this.last;
    const withChunks = this.chunksComplete;
    // Chunks are copied from where the last snapshot's end only if it had them.
    const from = reuse !== undefined && last !== undefined && reuse === last.snapshot && fits(reuse, n, this.parents.links, withChunks) && (!withChunks || reuse.chunkFee !== undefined)
      ? Math.min(this.lowestChange, used)
      : 0;
    const indexOfSlot = new Int32Array(used);
    // Transactions in slots below `from`, and where they are: as last time.
    let fromIndex = 0;
    if (from > 0) {
      indexOfSlot.set(last!.indexOfSlot.subarray(0, from));
      for (let slot = from - 1; slot >= 0; slot--) {
        if (indexOfSlot[slot]! >= 0) {
          fromIndex = indexOfSlot[slot]! + 1;
          break;
        }
      }
    }
    // Runs of consecutive live slots from there: [slot, length, index] triples.
    const runs: number[] = [];
    let k = fromIndex;
    for (let slot = from; slot < used; ) {
      if (live[slot] === 0) {
        indexOfSlot[slot++] = -1;
        continue;
      }
      const start = slot;
      while (slot < used && live[slot] === 1) indexOfSlot[slot] = k + (slot++ - start);
      runs.push(start, slot - start, k);
      k += slot - start;
    }
    // Which transaction is which from one snapshot to the next, for the assembler's incremental update.
    const slots = into(reuse?.identity?.slots, n, i32);
    const versions = into(reuse?.identity?.versions, n, f64);
    const snapshot: MempoolSnapshot = {
      count: n,
      fee: into(reuse?.fee, n, f64),
      modifiedFee: into(reuse?.modifiedFee, n, f64),
      vsize: into(reuse?.vsize, n, i32),
      weight: into(reuse?.weight, n, i32),
      sigops: into(reuse?.sigops, n, i32),
      parentStart: into(reuse?.parentStart, n + 1, i32),
      parents: into(reuse?.parents, this.parents.links, i32),
      txids: into(reuse?.txids, n * TXID_BYTES, u8),
      ...(withChunks ? { chunkFee: into(reuse?.chunkFee, n, f64), chunkWeight: into(reuse?.chunkWeight, n, i32) } : {}),
      identity: { source: this.source, slots, versions },
    };
    const { parentStart, parents } = snapshot;
    let edge = 0;
    if (fromIndex > 0) {
      // The kept transactions' parents at or past `fromIndex` may have moved: renumbered from their slots,
      // read in the last snapshot (it may have been longer) before the slots past `fromIndex` are overwritten.
      const lastSlots = last!.snapshot.identity!.slots;
      edge = parentStart[fromIndex]!;
      for (let e = 0; e < edge; e++) if (parents[e]! >= fromIndex) parents[e] = indexOfSlot[lastSlots[parents[e]!]!]!;
    }
    for (let r = 0; r < runs.length; r += 3) {
      const start = runs[r]!;
      const end = start + runs[r + 1]!;
      const at = runs[r + 2]!;
      snapshot.fee.set(this.fee.subarray(start, end), at);
      snapshot.modifiedFee.set(this.modifiedFee.subarray(start, end), at);
      snapshot.vsize.set(this.vsize.subarray(start, end), at);
      snapshot.weight.set(this.weight.subarray(start, end), at);
      snapshot.sigops.set(this.sigops.subarray(start, end), at);
      versions.set(this.slotVersion.subarray(start, end), at);
      if (withChunks) {
        snapshot.chunkFee!.set(this.chunkFee.subarray(start, end), at);
        snapshot.chunkWeight!.set(this.chunkWeight.subarray(start, end), at);
      }
      snapshot.txids.set(this.txidBytes.subarray(start * TXID_BYTES, end * TXID_BYTES), at * TXID_BYTES);
    }
    const { count: parentCount, at: parentAt, pool } = this.parents;
    let index = fromIndex;
    for (let slot = from; slot < used; slot++) {
      if (live[slot] === 0) continue;
      slots[index] = slot;
      parentStart[index++] = edge;
      const count = parentCount[slot]!;
      for (let e = parentAt[slot]!, end = e + count; e < end; e++) parents[edge++] = indexOfSlot[pool[e]!]!;
    }
    parentStart[n] = edge;
    const oldestChangeAtMs = this.oldestChangeAt;
    this.oldestChangeAt = undefined;
    this.lowestChange = Number.POSITIVE_INFINITY;
    this.last = { snapshot, indexOfSlot };
    return { snapshot, indexOfSlot, addedUpTo: this.addCounter, version: this.version, oldestChangeAtMs };
  }

  /** When the oldest change not yet in a snapshot was observed (ms), or undefined. */
  get pendingSinceMs(): number | undefined {
    return this.oldestChangeAt;
  }

  /** The same transactions in fresh, packed slots: after a large drop, snapshots walk fewer free slots. */
  compacted(): MempoolMirror {
    const copy = new MempoolMirror({ rememberRemoved: this.rememberRemoved });
    copy.grow(Math.max(INITIAL_CAPACITY, this.slots.size * 2));
    const slotMap = new Int32Array(this.highWater).fill(-1);
    for (let slot = 0; slot < this.highWater; slot++) {
      if (this.live[slot] === 0) continue;
      const to = copy.highWater++;
      slotMap[slot] = to;
      copy.live[to] = 1;
      copy.fee[to] = this.fee[slot]!;
      copy.modifiedFee[to] = this.modifiedFee[slot]!;
      copy.vsize[to] = this.vsize[slot]!;
      copy.weight[to] = this.weight[slot]!;
      copy.sigops[to] = this.sigops[slot]!;
      copy.time[to] = this.time[slot]!;
      copy.chunkFee[to] = this.chunkFee[slot]!;
      copy.chunkWeight[to] = this.chunkWeight[slot]!;
      copy.named[to] = this.named[slot]!;
      copy.linkCount[to] = this.linkCount[slot]!;
      copy.addedSeq[to] = this.addedSeq[slot]!;
      copy.stamp(to);
      copy.txidBytes.set(this.txidBytes.subarray(slot * TXID_BYTES, (slot + 1) * TXID_BYTES), to * TXID_BYTES);
      copy.ids[to] = this.ids[slot];
      copy.slots.set(this.ids[slot]!, to);
    }
    for (let slot = 0; slot < this.highWater; slot++) {
      const to = slotMap[slot]!;
      if (to < 0) continue;
      for (const parent of this.parents.of(slot)) copy.parents.push(to, slotMap[parent]!);
      copy.childrenOf[to] = this.childrenOf[slot]?.map((c) => slotMap[c]!);
    }
    copy.addCounter = this.addCounter;
    copy.chunksKnown = this.chunksKnown;
    copy.unmatched = this.unmatched;
    for (const txid of this.staleChunks) copy.staleChunks.add(txid);
    copy.totalVsize = this.totalVsize;
    copy.totalFee = this.totalFee;
    copy.version = this.version + 1;
    copy.sequence = this.sequence;
    copy.tip = this.tip;
    for (const [txid, gone] of this.removed) copy.removed.set(txid, gone);
    return copy;
  }

  /** Carries what this mirror remembers of departed transactions into another (a resynchronised one). */
  rememberInto(other: MempoolMirror): void {
    for (const [txid, gone] of this.removed) if (!other.slots.has(txid) && !other.removed.has(txid)) other.remember(gone);
  }

  /** Links two transactions held; false when they already were. */
  private link(parent: number, child: number): boolean {
    if (this.parents.has(child, parent)) return false;
    this.parents.push(child, parent);
    (this.childrenOf[parent] ??= []).push(child);
    this.stamp(child);
    this.countLink(parent, 1);
    this.countLink(child, 1);
    return true;
  }

  /** Whether the slot's chunk is known and its links are the ones its entry named. */
  private chunkCounts(slot: number): boolean {
    return this.chunkWeight[slot]! > 0 && this.linkCount[slot] === this.named[slot];
  }

  /** A link of the slot made (+1) or dropped (-1); one that leaves it unlike its entry lists it to be asked for again. */
  private countLink(slot: number, delta: number): void {
    const before = this.linkCount[slot] !== this.named[slot];
    this.linkCount[slot]! += delta;
    const after = this.linkCount[slot] !== this.named[slot];
    if (before !== after) this.unmatched += after ? 1 : -1;
    if (after && this.chunksKnown > 0) this.staleChunks.add(this.ids[slot]!);
  }

  /**
   * Forgets the chunks of the clusters of `slots` (walked by parent and
   * child links), and lists their transactions to be asked for again.
   * Nothing to do, and no walk, while no chunk is known (a node without
   * cluster mempool).
   */
  private forgetChunks(slots: readonly number[]): void {
    if (this.chunksKnown === 0) return;
    const seen = new Set<number>(slots);
    const stack = [...slots];
    while (stack.length > 0) {
      const slot = stack.pop()!;
      if (this.chunkWeight[slot]! > 0) {
        this.chunkWeight[slot] = 0;
        this.chunksKnown--;
        if (slot < this.lowestChange) this.lowestChange = slot;
      }
      this.staleChunks.add(this.ids[slot]!);
      for (const next of [...this.parents.of(slot), ...(this.childrenOf[slot] ?? [])]) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
  }

  private stamp(slot: number): void {
    this.slotVersion[slot] = ++this.lastStamp;
    if (slot < this.lowestChange) this.lowestChange = slot;
  }

  private remember(gone: RemovedTx): void {
    this.removed.delete(gone.txid);
    this.removed.set(gone.txid, gone);
    if (this.removed.size > this.rememberRemoved) this.removed.delete(this.removed.keys().next().value!);
  }

  private changed(observedAtMs: number): void {
    this.version++;
    if (this.oldestChangeAt === undefined || observedAtMs < this.oldestChangeAt) this.oldestChangeAt = observedAtMs;
  }

  private grow(capacity: number): void {
    const widen = <T extends Float64Array | Int32Array | Uint8Array>(old: T, make: (size: number) => T, size: number): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.live = widen(this.live, (s) => new Uint8Array(s), capacity);
    this.fee = widen(this.fee, (s) => new Float64Array(s), capacity);
    this.modifiedFee = widen(this.modifiedFee, (s) => new Float64Array(s), capacity);
    this.vsize = widen(this.vsize, (s) => new Int32Array(s), capacity);
    this.weight = widen(this.weight, (s) => new Int32Array(s), capacity);
    this.sigops = widen(this.sigops, (s) => new Int32Array(s), capacity);
    this.time = widen(this.time, (s) => new Float64Array(s), capacity);
    this.chunkFee = widen(this.chunkFee, (s) => new Float64Array(s), capacity);
    this.chunkWeight = widen(this.chunkWeight, (s) => new Int32Array(s), capacity);
    this.named = widen(this.named, (s) => new Int32Array(s), capacity);
    this.linkCount = widen(this.linkCount, (s) => new Int32Array(s), capacity);
    this.addedSeq = widen(this.addedSeq, (s) => new Float64Array(s), capacity);
    this.slotVersion = widen(this.slotVersion, (s) => new Float64Array(s), capacity);
    this.parents.grow(capacity);
    this.txidBytes = widen(this.txidBytes, (s) => new Uint8Array(s), capacity * TXID_BYTES);
    this.capacity = capacity;
  }
}

function dropFrom(list: number[] | undefined, value: number): void {
  if (!list) return;
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
}

interface ViewType<T> {
  bytes: number;
  view(buffer: ArrayBufferLike, length: number): T;
}
/** Whether every buffer of `snapshot` can take a snapshot of `count` transactions and `edges` links (and their chunks). */
function fits(snapshot: MempoolSnapshot, count: number, edges: number, withChunks: boolean): boolean {
  const enough = (view: ArrayBufferView | undefined, bytes: number) => view !== undefined && view.buffer.byteLength - view.byteOffset >= bytes;
  const { identity } = snapshot;
  return enough(snapshot.fee, count * 8) && enough(snapshot.modifiedFee, count * 8) && enough(snapshot.vsize, count * 4) && enough(snapshot.weight, count * 4) &&
    enough(snapshot.sigops, count * 4) && enough(snapshot.parentStart, (count + 1) * 4) && enough(snapshot.parents, edges * 4) && enough(snapshot.txids, count * TXID_BYTES) &&
    enough(identity?.slots, count * 4) && enough(identity?.versions, count * 8) && (!withChunks || (enough(snapshot.chunkFee, count * 8) && enough(snapshot.chunkWeight, count * 4)));
}

/** A chunk weight a node could give: a positive integer that fits the mirror's Int32 slots. */
function isChunkWeight(weight: number | undefined): weight is number {
  return weight !== undefined && Number.isInteger(weight) && weight > 0 && weight <= 0x7fff_ffff;
}

const f64: ViewType<Float64Array> = { bytes: 8, view: (buffer, length) => new Float64Array(buffer, 0, length) };
const i32: ViewType<Int32Array> = { bytes: 4, view: (buffer, length) => new Int32Array(buffer, 0, length) };
const u8: ViewType<Uint8Array> = { bytes: 1, view: (buffer, length) => new Uint8Array(buffer, 0, length) };

/**
 * A view of `length` elements over `old`'s buffer when it is large enough,
 * else over a new shared buffer with a quarter's headroom (as cloneSnapshot
 * does). Shared: the projection worker reads the snapshot where it is,
 * rather than taking it over and handing it back, which would make every
 * update allocate tens of megabytes of buffer objects on this thread, and
 * its garbage collector run the more often.
 */
function into<T extends Float64Array | Int32Array | Uint8Array>(old: T | undefined, length: number, type: ViewType<T>): T {
  const bytes = length * type.bytes;
  const buffer = old && old.buffer.byteLength >= bytes ? old.buffer : new SharedArrayBuffer(Math.ceil(bytes * 1.25) + 64);
  return type.view(buffer, length);
}
