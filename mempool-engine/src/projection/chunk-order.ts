import type { ArrayPool } from './array-pool.ts';
import { DEFAULT_BYTES_PER_SIGOP } from '../bitcoin/virtual-size.ts';
import { assertSnapshotShape, assertValidTransaction, type MempoolSnapshot } from '../mirror/mempool-snapshot.ts';
import { TxidOrder, txidPrefixes } from './ranking/score-order.ts';

/**
 * A cluster-mempool node's mining order rebuilt from its mempool entries:
 * the chunks, and the order in which its block builder offers them
 * (chunk-selection.ts fills blocks from it).
 *
 * Bitcoin Core 31 keeps every cluster (transactions linked by spending) in a
 * linearization cut into chunks, and hands the block assembler chunk after
 * chunk, highest chunk fee rate first (txgraph.h BlockBuilder). What its
 * getmempoolentry says of each transaction is the fee (`fees.chunk`) and
 * sigop-adjusted weight (`chunkweight`) of the chunk it is in, not which
 * chunk that is. So, here:
 * - a chunk is a set of linked transactions with the same chunk fee and
 *   weight (Core's chunks are connected: PostLinearize makes them so). Two
 *   chunks of one cluster alike in both (a chain of identical transactions:
 *   equal rates do not merge) look like one set whose transactions weigh
 *   several times the chunk weight; it is cut back into pieces of the chunk
 *   weight, in the order below;
 * - inside a chunk, parents before children, then by txid (the entries do
 *   not say the node's linearization order);
 * - chunks by fee rate, compared exactly (a.fee × b.weight against
 *   b.fee × a.weight, in integers), highest first; equal rates the smaller
 *   first, counting with each chunk the equal-rate chunks of its cluster it
 *   depends on, after Core's mining order (equalRatePrefixes()); then by
 *   the lowest txid of the chunk's set (ours: Core's last tie-breaks, a
 *   cluster's sequence and a fallback order, are not in the entries);
 * - in a valid linearization a parent's chunk never ranks below its child's;
 *   should the node's data say otherwise (entries read at different
 *   moments), the order is made topological anyway: a chunk waits for the
 *   chunks of its parents, which then go first (Kahn's algorithm over the
 *   ranks).
 * Cost O(n + e) and a sort of the chunks, O(c log c); inside a chunk of k
 * transactions O(k²) (Core's clusters hold at most 64 by default).
 */

/** A snapshot that has every transaction's chunk fee and weight. */
export type ChunkedSnapshot = MempoolSnapshot & { chunkFee: Float64Array; chunkWeight: Int32Array };

/** The chunks of a snapshot in mining order; arrays from the pool, valid until its next use. */
export interface ChunkOrder {
  /** Chunks, in mining order: `order[r]` is the r-th chunk offered. */
  order: Int32Array;
  count: number;
  /** Per chunk: its transactions are members[start[u]] .. members[start[u] + length[u] - 1], parents first. */
  start: Int32Array;
  length: Int32Array;
  members: Int32Array;
  /** Per chunk: fee (modified, sats) and sigop-adjusted weight, as the node gave them. */
  fee: Float64Array;
  weight: Float64Array;
  /** Per chunk: the sum of its transactions' sigop costs. */
  sigops: Float64Array;
  /** Per chunk: its cluster, as the lowest-numbered root of the cluster's transactions (an index into the snapshot). */
  cluster: Int32Array;
}

/**
 * Whether the projection can go by chunks: the snapshot carries a chunk for
 * every transaction (chunk weight above 0). O(1) without chunk data (a node
 * before cluster mempool); one pass with it. Throws on chunk arrays of the
 * wrong length.
 */
export function hasCompleteChunks(snapshot: MempoolSnapshot): snapshot is ChunkedSnapshot {
  const { chunkFee, chunkWeight, count } = snapshot;
  if (!chunkFee || !chunkWeight) return false;
  if (chunkFee.length !== count || chunkWeight.length !== count) throw new RangeError(`Snapshot chunk arrays have ${chunkFee.length} and ${chunkWeight.length} entries for ${count} transactions`);
  if (count === 0) return false;
  for (let i = 0; i < count; i++) if (!(chunkWeight[i]! > 0)) return false;
  return true;
}

/** The snapshot's chunks in the order the node's block builder offers them. */
export function chunkOrder(snapshot: ChunkedSnapshot, pool: ArrayPool): ChunkOrder {
  assertSnapshotShape(snapshot);
  const n = snapshot.count;
  for (let i = 0; i < n; i++) {
    assertValidTransaction(snapshot, i);
    if (!Number.isSafeInteger(snapshot.chunkFee[i]!)) throw new RangeError(`Transaction ${i} has chunk fee ${snapshot.chunkFee[i]}`);
  }
  const txidOrder = new TxidOrder(snapshot.txids, txidPrefixes(snapshot.txids, pool.float64('chunks.txidPrefix', n)));
  const { clusterOf, groupOf } = findClustersAndGroups(snapshot, pool);
  const groups = orderGroups(snapshot, groupOf, txidOrder, pool);
  const chunks = cutIntoChunks(snapshot, groups, clusterOf, pool);
  equalRatePrefixes(snapshot, chunks, pool);
  const order = sortChunks(chunks, txidOrder, pool);
  makeTopological(snapshot, chunks, order, pool);
  return { order, count: chunks.count, start: chunks.start, length: chunks.length, members: chunks.members, fee: chunks.fee, weight: chunks.weight, sigops: chunks.sigops, cluster: chunks.cluster };
}

/** Union-find root of `i`, halving the path on the way. */
function rootOf(parent: Int32Array, i: number): number {
  while (parent[i] !== i) {
    const up = parent[parent[i]!]!;
    parent[i] = up;
    i = up;
  }
  return i;
}

function union(parent: Int32Array, a: number, b: number): void {
  const ra = rootOf(parent, a);
  const rb = rootOf(parent, b);
  // The lower index becomes the root: a cluster's root is its lowest-numbered transaction.
  if (ra < rb) parent[rb] = ra;
  else if (rb < ra) parent[ra] = rb;
}

/**
 * Per transaction: its cluster's root (linked by any parent link), and its
 * group's root (linked by parent links between transactions of the same
 * chunk fee and weight).
 */
function findClustersAndGroups(s: ChunkedSnapshot, pool: ArrayPool): { clusterOf: Int32Array; groupOf: Int32Array } {
  const n = s.count;
  const { parentStart, parents, chunkFee, chunkWeight } = s;
  const clusterOf = pool.int32('chunks.clusterOf', n);
  const groupOf = pool.int32('chunks.groupOf', n);
  for (let i = 0; i < n; i++) {
    clusterOf[i] = i;
    groupOf[i] = i;
  }
  for (let i = 0; i < n; i++) {
    for (let e = parentStart[i]!; e < parentStart[i + 1]!; e++) {
      const p = parents[e]!;
      union(clusterOf, i, p);
      if (chunkFee[i] === chunkFee[p] && chunkWeight[i] === chunkWeight[p]) union(groupOf, i, p);
    }
  }
  for (let i = 0; i < n; i++) {
    clusterOf[i] = rootOf(clusterOf, i);
    groupOf[i] = rootOf(groupOf, i);
  }
  return { clusterOf, groupOf };
}

/** Groups as runs of `members`, each in topological order (parents first, then txid). */
interface Groups {
  count: number;
  start: Int32Array;
  length: Int32Array;
  members: Int32Array;
  /** Per group: the member with the lowest txid. */
  lowest: Int32Array;
}

function orderGroups(s: ChunkedSnapshot, groupOf: Int32Array, txidOrder: TxidOrder, pool: ArrayPool): Groups {
  const n = s.count;
  // Group ids in order of their roots (a root is its group's lowest index); members counted, then placed.
  const idOfRoot = pool.int32('chunks.groupIdOfRoot', n);
  let count = 0;
  for (let i = 0; i < n; i++) if (groupOf[i] === i) idOfRoot[i] = count++;
  const start = pool.int32('chunks.groupStart', count + 1, 0);
  const length = pool.int32('chunks.groupLength', count, 0);
  const lowest = pool.int32('chunks.groupLowest', count, -1);
  const groupIdOf = pool.int32('chunks.groupIdOf', n);
  for (let i = 0; i < n; i++) {
    const g = idOfRoot[groupOf[i]!]!;
    groupIdOf[i] = g;
    length[g]!++;
    if (lowest[g]! < 0 || txidOrder.less(i, lowest[g]!)) lowest[g] = i;
  }
  for (let g = 0; g < count; g++) start[g + 1] = start[g]! + length[g]!;
  const members = pool.int32('chunks.members', n);
  const filled = pool.int32('chunks.groupFilled', count, 0);
  for (let i = 0; i < n; i++) {
    const g = groupIdOf[i]!;
    members[start[g]! + filled[g]!++] = i;
  }
  const emitted = pool.int32('chunks.emitted', n, 0);
  for (let g = 0; g < count; g++) if (length[g]! > 1) sortInsideGroup(s, members, start[g]!, length[g]!, groupIdOf, g, emitted, txidOrder);
  return { count, start, length, members, lowest };
}

/**
 * A group's members (members[from] .. members[from + k - 1]) in topological
 * order: again and again the lowest txid among those whose parents in the
 * group are all placed. Throws on a cycle.
 */
function sortInsideGroup(s: ChunkedSnapshot, members: Int32Array, from: number, k: number, groupIdOf: Int32Array, g: number, emitted: Int32Array, txidOrder: TxidOrder): void {
  const { parentStart, parents } = s;
  for (let placed = from; placed < from + k; placed++) {
    let best = -1;
    for (let m = placed; m < from + k; m++) {
      const tx = members[m]!;
      let ready = true;
      for (let e = parentStart[tx]!; e < parentStart[tx + 1]! && ready; e++) {
        const p = parents[e]!;
        if (groupIdOf[p] === g && emitted[p] === 0) ready = false;
      }
      if (ready && (best < 0 || txidOrder.less(tx, members[best]!))) best = m;
    }
    if (best < 0) throw new RangeError(`The transactions of chunk ${g} spend each other in a cycle`);
    const tx = members[best]!;
    members[best] = members[placed]!;
    members[placed] = tx;
    emitted[tx] = 1;
  }
  for (let m = from; m < from + k; m++) emitted[members[m]!] = 0;
}

/** Chunks as runs of the groups' members, with what the order and the blocks read of them. */
interface Chunks {
  count: number;
  /** The groups' members, which the chunks' runs index. */
  members: Int32Array;
  start: Int32Array;
  length: Int32Array;
  fee: Float64Array;
  weight: Float64Array;
  sigops: Float64Array;
  cluster: Int32Array;
  /** Tie-breaks: the group's lowest txid (a transaction index), and the chunk's place among its group's pieces. */
  lowest: Int32Array;
  piece: Int32Array;
  /** Per chunk: its weight and that of the equal-rate chunks of its cluster it depends on (equalRatePrefixes()). */
  prefix: Float64Array;
  /** Per transaction: its chunk. */
  chunkOf: Int32Array;
}

/**
 * Each group as one chunk, or, when its transactions weigh several times
 * the chunk weight (equal chunks of one cluster, linked), as that many
 * pieces in its order: a piece ends once it holds the chunk weight.
 */
function cutIntoChunks(s: ChunkedSnapshot, groups: Groups, clusterOf: Int32Array, pool: ArrayPool): Chunks {
  const n = s.count;
  const { weight, sigops, chunkFee, chunkWeight } = s;
  const { members } = groups;
  // At most one chunk per transaction.
  const chunks: Chunks = {
    count: 0,
    members,
    start: pool.int32('chunks.start', n),
    length: pool.int32('chunks.length', n),
    fee: pool.float64('chunks.fee', n),
    weight: pool.float64('chunks.weight', n),
    sigops: pool.float64('chunks.sigops', n),
    cluster: pool.int32('chunks.cluster', n),
    lowest: pool.int32('chunks.lowest', n),
    piece: pool.int32('chunks.piece', n),
    prefix: pool.float64('chunks.prefix', n),
    chunkOf: pool.int32('chunks.chunkOf', n),
  };
  const adjusted = (tx: number) => Math.max(weight[tx]!, sigops[tx]! * DEFAULT_BYTES_PER_SIGOP);
  for (let g = 0; g < groups.count; g++) {
    const from = groups.start[g]!;
    const end = from + groups.length[g]!;
    const first = members[from]!;
    const target = chunkWeight[first]!;
    let total = 0;
    for (let m = from; m < end; m++) total += adjusted(members[m]!);
    const pieces = Math.max(1, Math.round(total / target));
    let piece = 0;
    let pieceStart = from;
    let pieceWeight = 0;
    let pieceSigops = 0;
    for (let m = from; m < end; m++) {
      const tx = members[m]!;
      pieceWeight += adjusted(tx);
      pieceSigops += sigops[tx]!;
      chunks.chunkOf[tx] = chunks.count;
      // A piece ends at the chunk weight (within the vbyte rounding of each transaction), the last one at the group's end.
      if (m === end - 1 || (piece < pieces - 1 && pieceWeight + 3 * (m - pieceStart + 1) >= target)) {
        const c = chunks.count++;
        chunks.start[c] = pieceStart;
        chunks.length[c] = m - pieceStart + 1;
        chunks.fee[c] = chunkFee[first]!;
        chunks.weight[c] = target;
        chunks.sigops[c] = pieceSigops;
        chunks.cluster[c] = clusterOf[first]!;
        chunks.lowest[c] = groups.lowest[g]!;
        chunks.piece[c] = piece++;
        pieceStart = m + 1;
        pieceWeight = 0;
        pieceSigops = 0;
      }
    }
  }
  return chunks;
}

/** Whether chunks a and b have the same fee rate, exactly. */
function sameRate(c: Chunks, a: number, b: number): boolean {
  const x = c.fee[a]! * c.weight[b]!;
  const y = c.fee[b]! * c.weight[a]!;
  if (Number.isSafeInteger(x) && Number.isSafeInteger(y)) return x === y;
  return BigInt(c.fee[a]!) * BigInt(c.weight[b]!) === BigInt(c.fee[b]!) * BigInt(c.weight[a]!);
}

/**
 * Each chunk's weight plus the largest such prefix among the chunks of its
 * cluster it depends on that have the same rate. Core's mining order puts
 * the smaller of two equal-rate chunks first, counting the equal-rate
 * chunks of its cluster before it (so that a cluster's equal-rate chunks
 * keep their linearization's order); the entries do not say that order,
 * but a chunk follows those it depends on, which this counts. For a chain
 * it is Core's figure; where several chunks of one rate share a parent
 * chunk, a lower bound. One walk over the links, parents first.
 */
function equalRatePrefixes(s: ChunkedSnapshot, c: Chunks, pool: ArrayPool): void {
  const { parentStart, parents } = s;
  const { members, start, length, chunkOf, weight, prefix } = c;
  // 0: not reached, 1: its parents being walked, 2: done. A chunk may be stacked once per link to it.
  const state = pool.int32('chunks.prefixState', c.count, 0);
  const stack = pool.int32('chunks.prefixStack', c.count + parents.length);
  for (let root = 0; root < c.count; root++) {
    if (state[root] !== 0) continue;
    let top = 0;
    stack[top++] = root;
    while (top > 0) {
      const u = stack[top - 1]!;
      if (state[u] === 2) {
        top--;
        continue;
      }
      if (state[u] === 0) {
        state[u] = 1;
        const before = top;
        for (let m = start[u]!; m < start[u]! + length[u]!; m++) {
          const tx = members[m]!;
          for (let e = parentStart[tx]!; e < parentStart[tx + 1]!; e++) {
            const v = chunkOf[parents[e]!]!;
            if (v !== u && state[v] === 0 && sameRate(c, u, v)) stack[top++] = v;
          }
        }
        if (top > before) continue; // its parents first
      }
      // Parents done (one still being walked is a cycle, which makeTopological() refuses).
      let largest = 0;
      for (let m = start[u]!; m < start[u]! + length[u]!; m++) {
        const tx = members[m]!;
        for (let e = parentStart[tx]!; e < parentStart[tx + 1]!; e++) {
          const v = chunkOf[parents[e]!]!;
          if (v !== u && state[v] === 2 && prefix[v]! > largest && sameRate(c, u, v)) largest = prefix[v]!;
        }
      }
      prefix[u] = weight[u]! + largest;
      state[u] = 2;
      top--;
    }
  }
}

/**
 * Whether chunk a comes before chunk b: the higher fee rate (exact: the
 * cross products in integers, through BigInt beyond 2^53), then the smaller
 * equal-rate prefix, then the lower txid, then the earlier piece of one group.
 */
function compareChunks(c: Chunks, txidOrder: TxidOrder, a: number, b: number): number {
  const fa = c.fee[a]!;
  const fb = c.fee[b]!;
  const wa = c.weight[a]!;
  const wb = c.weight[b]!;
  const x = fa * wb;
  const y = fb * wa;
  if (Number.isSafeInteger(x) && Number.isSafeInteger(y)) {
    if (x !== y) return x > y ? -1 : 1;
  } else {
    const bx = BigInt(fa) * BigInt(wb);
    const by = BigInt(fb) * BigInt(wa);
    if (bx !== by) return bx > by ? -1 : 1;
  }
  const pa = c.prefix[a]!;
  const pb = c.prefix[b]!;
  if (pa !== pb) return pa - pb;
  const la = c.lowest[a]!;
  const lb = c.lowest[b]!;
  if (la !== lb) return txidOrder.less(la, lb) ? -1 : 1;
  return c.piece[a]! - c.piece[b]!;
}

function sortChunks(c: Chunks, txidOrder: TxidOrder, pool: ArrayPool): Int32Array {
  const order = pool.int32('chunks.order', c.count);
  for (let k = 0; k < c.count; k++) order[k] = k;
  order.sort((a, b) => compareChunks(c, txidOrder, a, b));
  return order;
}

/**
 * `order` made topological if it is not: one pass finds whether any chunk
 * comes before a chunk of one of its parents; only then are the chunks
 * re-laid by Kahn's algorithm, each time the first (by `order`) of those
 * whose parents' chunks are all laid. Throws on a cycle between chunks.
 */
function makeTopological(s: ChunkedSnapshot, c: Chunks, order: Int32Array, pool: ArrayPool): void {
  const n = s.count;
  const { parentStart, parents } = s;
  const { chunkOf } = c;
  const rank = pool.int32('chunks.rank', c.count);
  for (let r = 0; r < c.count; r++) rank[order[r]!] = r;
  let topological = true;
  for (let i = 0; i < n && topological; i++) {
    for (let e = parentStart[i]!; e < parentStart[i + 1]!; e++) {
      if (rank[chunkOf[parents[e]!]!]! > rank[chunkOf[i]!]!) {
        topological = false;
        break;
      }
    }
  }
  if (topological) return;

  // Children of every transaction, and per chunk the links that come into it from other chunks.
  const childStart = pool.int32('chunks.childStart', n + 1, 0);
  const children = pool.int32('chunks.children', s.parents.length);
  for (let e = 0; e < s.parents.length; e++) childStart[parents[e]! + 1]!++;
  for (let i = 0; i < n; i++) childStart[i + 1]! += childStart[i]!;
  const filled = pool.int32('chunks.childFilled', n, 0);
  const waiting = pool.int32('chunks.waiting', c.count, 0);
  for (let i = 0; i < n; i++) {
    for (let e = parentStart[i]!; e < parentStart[i + 1]!; e++) {
      const p = parents[e]!;
      children[childStart[p]! + filled[p]!++] = i;
      if (chunkOf[p] !== chunkOf[i]) waiting[chunkOf[i]!]!++;
    }
  }
  // Ready chunks in a min-heap of ranks.
  const heap = pool.int32('chunks.heap', c.count);
  let size = 0;
  const push = (r: number) => {
    let at = size++;
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (heap[up]! <= r) break;
      heap[at] = heap[up]!;
      at = up;
    }
    heap[at] = r;
  };
  const pop = () => {
    const top = heap[0]!;
    const last = heap[--size]!;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= last) break;
      heap[at] = heap[child]!;
      at = child;
    }
    if (size > 0) heap[at] = last;
    return top;
  };
  for (let u = 0; u < c.count; u++) if (waiting[u] === 0) push(rank[u]!);
  let laid = 0;
  // `order` is read through `rank` only from here on: the new order can be written over it.
  const byRank = pool.int32('chunks.byRank', c.count);
  byRank.set(order);
  while (size > 0) {
    const u = byRank[pop()]!;
    order[laid++] = u;
    const from = c.start[u]!;
    for (let m = from; m < from + c.length[u]!; m++) {
      const tx = c.members[m]!;
      for (let e = childStart[tx]!; e < childStart[tx + 1]!; e++) {
        const child = chunkOf[children[e]!]!;
        if (child !== u && --waiting[child]! === 0) push(rank[child]!);
      }
    }
  }
  if (laid < c.count) throw new RangeError('The snapshot\'s transactions spend each other in a cycle');
}
