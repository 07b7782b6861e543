import { assertSnapshotShape, assertValidTransaction, TXID_BYTES, type MempoolSnapshot } from '../../mirror/mempool-snapshot.ts';

/**
 * What changed from one mempool snapshot to the next, for an assembler that
 * keeps its work between projections (ranked-mempool.ts).
 *
 * With an identity (MempoolSnapshot.identity: the mirror's snapshots), a
 * transaction is unchanged when its slot holds the same version as last
 * time: the mirror renews a slot's version whenever anything the snapshot
 * holds of it changes. Slots are ascending in both snapshots, so comparing
 * is one merge-like pass over the two lists, reading 12 bytes a
 * transaction.
 *
 * Without one (snapshots built from plain entries), the index is the slot,
 * and a transaction is unchanged when its txid and every field the
 * assembler reads are the same, parents included (as slots): slower, and
 * exact whatever the snapshots are.
 *
 * Either way, a transaction treated as new when it is not costs time, never
 * correctness. What the assembler will read of a snapshot is validated on
 * the way (assertValidSnapshot's checks): every transaction without an
 * identity, the new and changed ones with one.
 */

const TXID_WORDS = TXID_BYTES / 4;
/** Slots up to four times the transactions and this many more are used as they are (diff()). */
const SPARSE_SLOTS = 1 << 20;

export interface SnapshotChanges {
  /** Per index of the new snapshot: the index of the same, unchanged or changed, transaction in the previous one, or -1 when it is new. */
  previousIndex: Int32Array;
  /** Indices (new snapshot) of transactions new or changed: another modified fee, or other parents. */
  changed: Int32Array;
  /** Indices (previous snapshot) of transactions no longer in the snapshot. */
  departed: Int32Array;
}

export class SnapshotDiffer {
  /** Per slot, the previous snapshot's transaction: txid as 32-bit words, and every field compared. */
  private txidWords = new Int32Array(0);
  private fee = new Float64Array(0);
  private modifiedFee = new Float64Array(0);
  private vsize = new Int32Array(0);
  private weight = new Int32Array(0);
  private sigops = new Int32Array(0);
  /** Per slot, with an identity: the version last seen. */
  private version = new Float64Array(0);
  /** The identity's source last seen, or NaN for snapshots without one: a change of either kind starts afresh. */
  private source = Number.NaN;
  /** The previous snapshot's slots and parents (as slots), in its own order; and the buffers for the next. */
  private previous = emptyList();
  private spare = emptyList();
  private previousIndex = new Int32Array(0);
  private changed = new Int32Array(0);
  private departed = new Int32Array(0);

  /** Forgets the previous snapshot: everything in the next one is new. */
  reset(): void {
    this.previous.count = 0;
  }

  get byteLength(): number {
    const lists = [this.previous, this.spare].reduce((a, l) => a + l.slots.byteLength + l.parentStart.byteLength + l.parentSlots.byteLength, 0);
    return lists + this.version.byteLength + this.txidWords.byteLength + this.fee.byteLength + this.modifiedFee.byteLength + this.vsize.byteLength + this.weight.byteLength + this.sigops.byteLength +
      this.previousIndex.byteLength + this.changed.byteLength + this.departed.byteLength;
  }

  /**
   * Compares `snapshot` with the one given last time, and remembers it for
   * next time. Throws on a malformed snapshot; then call reset().
   */
  diff(snapshot: MempoolSnapshot): SnapshotChanges {
    assertSnapshotShape(snapshot);
    const n = snapshot.count;
    // Slots far sparser than the transactions (a mirror long past its peak) would cost more memory than comparing fields.
    const identity = snapshot.identity && (n === 0 || snapshot.identity.slots[n - 1]! < 4 * n + SPARSE_SLOTS) ? snapshot.identity : undefined;
    const source = identity ? identity.source : Number.NaN;
    if (!Object.is(source, this.source)) {
      this.reset();
      this.source = source;
    }
    const slots = identity?.slots;
    this.reserveSlots(n === 0 ? 0 : (slots ? slots[n - 1]! : n - 1) + 1, identity !== undefined);
    if (this.previousIndex.length < n) {
      this.previousIndex = new Int32Array(grown(n));
      this.changed = new Int32Array(grown(n));
    }
    const before = this.previous;
    if (this.departed.length < before.count) this.departed = new Int32Array(grown(before.count));
    const after = this.spare;
    reserveList(after, n, identity ? 0 : snapshot.parents.length);
    const counts = identity ? this.byVersion(snapshot, identity.slots, identity.versions, before, after) : this.byFields(snapshot, before, after);
    after.count = n;
    this.previous = after;
    this.spare = before;
    return { previousIndex: this.previousIndex.subarray(0, n), changed: this.changed.subarray(0, counts.changed), departed: this.departed.subarray(0, counts.departed) };
  }

  private byVersion(snapshot: MempoolSnapshot, slots: Int32Array, versions: Float64Array, before: SlotList, after: SlotList): { changed: number; departed: number } {
    const { previousIndex, changed, departed, version } = this;
    let changedCount = 0;
    let departedCount = 0;
    let j = 0;
    let lastSlot = -1;
    for (let i = 0; i < snapshot.count; i++) {
      const s = slots[i]!;
      if (s <= lastSlot) throw new RangeError(`Snapshot slots are not strictly ascending at ${i}`);
      lastSlot = s;
      after.slots[i] = s;
      while (j < before.count && before.slots[j]! < s) departed[departedCount++] = j++;
      const sameSlot = j < before.count && before.slots[j] === s;
      if (sameSlot && version[s] === versions[i]) {
        previousIndex[i] = j++;
        continue;
      }
      // Another transaction, or the same one changed: either way the old one goes and this one is ranked afresh.
      // Only what is ranked afresh is read from the snapshot, so only that needs checking.
      assertValidTransaction(snapshot, i);
      if (sameSlot) departed[departedCount++] = j++;
      previousIndex[i] = -1;
      changed[changedCount++] = i;
      version[s] = versions[i]!;
    }
    while (j < before.count) departed[departedCount++] = j++;
    return { changed: changedCount, departed: departedCount };
  }

  private byFields(snapshot: MempoolSnapshot, before: SlotList, after: SlotList): { changed: number; departed: number } {
    const n = snapshot.count;
    const words = txidWordsOf(snapshot.txids);
    const { fee, modifiedFee, vsize, weight, sigops, parentStart, parents } = snapshot;
    const { previousIndex, changed, departed } = this;
    const store = { words: this.txidWords, fee: this.fee, modifiedFee: this.modifiedFee, vsize: this.vsize, weight: this.weight, sigops: this.sigops };
    let changedCount = 0;
    let departedCount = 0;
    // The index is the slot: transaction i is compared with the previous snapshot's transaction i.
    for (let i = 0; i < n; i++) {
      assertValidTransaction(snapshot, i);
      after.slots[i] = i;
      const wasHere = i < before.count;
      const sameTx = wasHere && sameTxid(store.words, i, words, i);
      if (wasHere && !sameTx) departed[departedCount++] = i;
      if (!sameTx) for (let w = 0; w < TXID_WORDS; w++) store.words[i * TXID_WORDS + w] = words[i * TXID_WORDS + w]!;
      previousIndex[i] = sameTx ? i : -1;
      let unchanged = sameTx && store.fee[i] === fee[i] && store.modifiedFee[i] === modifiedFee[i] && store.vsize[i] === vsize[i] && store.weight[i] === weight[i] && store.sigops[i] === sigops[i];
      const first = parentStart[i]!;
      const end = parentStart[i + 1]!;
      if (unchanged) {
        const beforeFirst = before.parentStart[i]!;
        if (end - first !== before.parentStart[i + 1]! - beforeFirst) unchanged = false;
        for (let e = first; unchanged && e < end; e++) if (before.parentSlots[beforeFirst + e - first] !== parents[e]) unchanged = false;
      }
      if (!unchanged) {
        changed[changedCount++] = i;
        store.fee[i] = fee[i]!;
        store.modifiedFee[i] = modifiedFee[i]!;
        store.vsize[i] = vsize[i]!;
        store.weight[i] = weight[i]!;
        store.sigops[i] = sigops[i]!;
      }
    }
    for (let j = n; j < before.count; j++) departed[departedCount++] = j;
    after.parentStart.set(parentStart);
    after.parentSlots.set(parents);
    return { changed: changedCount, departed: departedCount };
  }

  /** Room for `needed` slots: versions with an identity, every field compared without. */
  private reserveSlots(needed: number, byVersion: boolean): void {
    const widen = <T extends Int32Array | Float64Array>(old: T, make: (size: number) => T, perSlot = 1): T => {
      if (old.length >= needed * perSlot) return old;
      const next = make(grown(needed) * perSlot);
      next.set(old);
      return next;
    };
    const f64 = (size: number) => new Float64Array(size);
    const i32 = (size: number) => new Int32Array(size);
    if (byVersion) {
      this.version = widen(this.version, f64);
      return;
    }
    this.txidWords = widen(this.txidWords, i32, TXID_WORDS);
    this.fee = widen(this.fee, f64);
    this.modifiedFee = widen(this.modifiedFee, f64);
    this.vsize = widen(this.vsize, i32);
    this.weight = widen(this.weight, i32);
    this.sigops = widen(this.sigops, i32);
  }
}

interface SlotList {
  count: number;
  slots: Int32Array;
  parentStart: Int32Array;
  parentSlots: Int32Array;
}

function emptyList(): SlotList {
  return { count: 0, slots: new Int32Array(0), parentStart: new Int32Array(1), parentSlots: new Int32Array(0) };
}

function reserveList(list: SlotList, count: number, edges: number): void {
  if (list.slots.length < count) list.slots = new Int32Array(grown(count));
  if (list.parentStart.length < count + 1) list.parentStart = new Int32Array(grown(count + 1));
  if (list.parentSlots.length < edges) list.parentSlots = new Int32Array(grown(edges));
}

/** Room for a mempool that grows a little without reallocating, as ArrayPool gives. */
function grown(length: number): number {
  return Math.ceil(length * 1.25) + 16;
}

/** The txids as 32-bit words (8 comparisons per txid rather than 32), over the same memory when aligned. */
function txidWordsOf(txids: Uint8Array): Int32Array {
  if (txids.byteOffset % 4 === 0) return new Int32Array(txids.buffer, txids.byteOffset, txids.length / 4);
  return new Int32Array(txids.slice().buffer);
}

function sameTxid(stored: Int32Array, slot: number, words: Int32Array, index: number): boolean {
  const a = slot * TXID_WORDS;
  const b = index * TXID_WORDS;
  for (let w = 0; w < TXID_WORDS; w++) if (stored[a + w] !== words[b + w]) return false;
  return true;
}
