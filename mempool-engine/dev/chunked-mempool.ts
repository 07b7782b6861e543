import { DEFAULT_BYTES_PER_SIGOP } from '../src/bitcoin/virtual-size.ts';
import { assembleBlocks } from '../src/projection/block-assembler.ts';
import { encodeMempoolSnapshot, sigopCostFloor, type SnapshotEntry } from '../src/mirror/mempool-snapshot.ts';

/**
 * Chunk data for made-up mempools, shaped as a cluster-mempool node
 * (Bitcoin Core 31) reports it, for tests and benchmarks: every cluster is
 * linearized (its transactions in the order the ancestor-score projection
 * places them: parents first, richer packages earlier), and the
 * linearization cut into chunks as Core's chunking does (each transaction
 * starts a chunk, merged into the chunk before while its rate is strictly
 * higher: cluster_linearize.h ChunkLinearization). Sizes are sigop-adjusted
 * weights, fees modified fees. Valid linearizations, not necessarily the
 * optimal ones a node finds; good enough to exercise chunk selection.
 */

export interface ChunkedEntries {
  /** The entries, each with its chunk's fee and weight. */
  entries: SnapshotEntry[];
  /** Entry indices per chunk, in linearization order. */
  chunks: number[][];
  /** Per chunk: its cluster (an arbitrary number shared by the cluster's chunks). */
  clusterOfChunk: number[];
  /**
   * Whether every chunk's transactions are linked among themselves and no
   * two linked chunks have the same fee and weight: then the chunks can be
   * told apart from the entries alone (chunk-order.ts), as Core's connected
   * chunks can.
   */
  distinguishable: boolean;
}

/** Core's sigop-adjusted weight: max(weight, sigops × -bytespersigop). */
export function adjustedWeight(entry: SnapshotEntry): number {
  const sigops = entry.sigops ?? sigopCostFloor(entry.vsize, entry.weight);
  return Math.max(entry.weight, sigops * DEFAULT_BYTES_PER_SIGOP);
}

export function chunkEntries(input: readonly SnapshotEntry[]): ChunkedEntries {
  const plain = input.map(({ chunkFee: _fee, chunkWeight: _weight, ...rest }) => rest);
  const n = plain.length;
  const indexOf = new Map(plain.map((e, i) => [e.txid, i]));
  const parentsOf = plain.map((e) => e.depends.map((d) => indexOf.get(d)!));
  const linearization = linearize(plain, parentsOf);
  const clusterOf = clusters(parentsOf);

  const byCluster = new Map<number, number[]>();
  for (const i of linearization) {
    const c = clusterOf[i]!;
    if (!byCluster.has(c)) byCluster.set(c, []);
    byCluster.get(c)!.push(i);
  }
  const chunks: number[][] = [];
  const clusterOfChunk: number[] = [];
  const entries: SnapshotEntry[] = plain.map((e) => ({ ...e }));
  for (const [cluster, order] of byCluster) {
    const own: { txs: number[]; fee: number; weight: number }[] = [];
    for (const i of order) {
      let chunk = { txs: [i], fee: plain[i]!.modifiedFee ?? plain[i]!.fee, weight: adjustedWeight(plain[i]!) };
      while (own.length > 0) {
        const before = own[own.length - 1]!;
        if (!(BigInt(chunk.fee) * BigInt(before.weight) > BigInt(before.fee) * BigInt(chunk.weight))) break;
        own.pop();
        chunk = { txs: [...before.txs, ...chunk.txs], fee: before.fee + chunk.fee, weight: before.weight + chunk.weight };
      }
      own.push(chunk);
    }
    for (const chunk of own) {
      for (const i of chunk.txs) Object.assign(entries[i]!, { chunkFee: chunk.fee, chunkWeight: chunk.weight });
      chunks.push(chunk.txs);
      clusterOfChunk.push(cluster);
    }
  }
  return { entries, chunks, clusterOfChunk, distinguishable: distinguishable(chunks, parentsOf, entries, n) };
}

/** The ancestor-score projection's order of everything, then whatever it left out (negative fees) parents first. */
function linearize(plain: readonly SnapshotEntry[], parentsOf: readonly number[][]): number[] {
  const projection = assembleBlocks(encodeMempoolSnapshot(plain), { maxBlocks: 1, blockMinFeeRatePerKvB: 0 });
  const order = [...projection.order];
  const placed = new Set(order);
  while (placed.size < plain.length) {
    for (let i = 0; i < plain.length; i++) {
      if (!placed.has(i) && parentsOf[i]!.every((p) => placed.has(p))) {
        placed.add(i);
        order.push(i);
      }
    }
  }
  return order;
}

function clusters(parentsOf: readonly number[][]): number[] {
  const root = parentsOf.map((_, i) => i);
  const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i]!)));
  parentsOf.forEach((ps, i) => ps.forEach((p) => {
    root[find(i)] = find(p);
  }));
  return parentsOf.map((_, i) => find(i));
}

function distinguishable(chunks: readonly number[][], parentsOf: readonly number[][], entries: readonly SnapshotEntry[], n: number): boolean {
  const chunkOf = new Array<number>(n);
  chunks.forEach((txs, c) => txs.forEach((i) => (chunkOf[i] = c)));
  for (const txs of chunks) {
    // Linked among themselves: a walk over links inside the chunk reaches them all.
    const inside = new Set(txs);
    const reached = new Set([txs[0]!]);
    const stack = [txs[0]!];
    while (stack.length > 0) {
      const i = stack.pop()!;
      for (const j of txs) {
        const linked = parentsOf[i]!.includes(j) || parentsOf[j]!.includes(i);
        if (linked && inside.has(j) && !reached.has(j)) {
          reached.add(j);
          stack.push(j);
        }
      }
    }
    if (reached.size !== txs.length) return false;
  }
  for (let i = 0; i < n; i++) {
    for (const p of parentsOf[i]!) {
      const same = entries[i]!.chunkFee === entries[p]!.chunkFee && entries[i]!.chunkWeight === entries[p]!.chunkWeight;
      if (chunkOf[i] !== chunkOf[p] && same) return false;
    }
  }
  return true;
}
