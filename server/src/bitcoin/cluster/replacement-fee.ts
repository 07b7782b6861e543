import { compareDiagrams, compareFeerate, type FeeFrac } from './feerate-diagram.ts';

/**
 * The least a replacement must pay for Bitcoin Core 31 to take it by the
 * feerate-diagram rule (policy/rbf.cpp ImprovesFeerateDiagram): the
 * diagram of the clusters it touches, with the replacement in place of
 * what it evicts, must be strictly better than the diagram now.
 *
 * Clusters of up to EXACT_LINEARIZATION_LIMIT transactions are linearized
 * optimally: their diagram is the one Core 31's linearizer converges to,
 * and "does this fee improve the diagram" is monotone in the fee (the
 * optimal diagram is the best over all orders, each of which only rises
 * with the fee), so the search below finds the least fee Core takes.
 * Larger clusters fall back to the ancestor-set linearization, for which
 * it is not monotone: there the search may ask for more than needed.
 */

export interface ClusterTx {
  txid: string;
  /** sats */
  fee: number;
  vsize: number;
  /** Its unconfirmed parents among the cluster's transactions. */
  parents: readonly string[];
}

/** MAX_MONEY: no fee can be more. */
const MAX_FEE = 2_100_000_000_000_000;

/**
 * The largest cluster linearized exactly. The search is exponential: at 16
 * transactions (Node 24), a parent with 15 children (2^15 closed subsets in
 * the first step) took ~0.6 ms, and a least-fee search, which linearizes
 * once per fee tried, ~40 ms for a 90 kvB replacement (~70 fees tried).
 * Bump advice runs on public status requests, so the bound is 12, a
 * sixteenth of that (each transaction more doubles it): a few ms at worst.
 */
const EXACT_LINEARIZATION_LIMIT = 12;

interface Chunk extends FeeFrac {
  txs: ClusterTx[];
}

/**
 * The ancestor-set linearization: repeatedly, the transaction whose set of
 * not-yet-taken ancestors (itself included) pays the best feerate, taken
 * with those ancestors, parents first; ties by the smaller set, then txid.
 * Block assembly before Core 31; near-optimal, not optimal.
 */
export function ancestorSetLinearization(cluster: readonly ClusterTx[]): ClusterTx[] {
  const byTxid = new Map(cluster.map((tx) => [tx.txid, tx]));
  const taken = new Set<string>();
  const order: ClusterTx[] = [];
  const ancestorsOf = (tx: ClusterTx): ClusterTx[] => {
    const seen = new Set<string>();
    const result: ClusterTx[] = [];
    const visit = (t: ClusterTx) => {
      for (const id of t.parents) {
        const parent = byTxid.get(id);
        if (!parent || taken.has(id) || seen.has(id)) continue;
        seen.add(id);
        visit(parent);
        result.push(parent);
      }
    };
    visit(tx);
    result.push(tx);
    return result;
  };
  while (order.length < cluster.length) {
    let best: { set: ClusterTx[]; total: FeeFrac; txid: string } | undefined;
    for (const tx of cluster) {
      if (taken.has(tx.txid)) continue;
      const set = ancestorsOf(tx);
      const total = set.reduce((sum, t) => ({ fee: sum.fee + t.fee, size: sum.size + t.vsize }), { fee: 0, size: 0 });
      const cmp = best ? compareFeerate(total, best.total) : 1;
      if (!best || cmp > 0 || (cmp === 0 && (set.length < best.set.length || (set.length === best.set.length && tx.txid < best.txid)))) best = { set, total, txid: tx.txid };
    }
    for (const tx of best!.set) {
      taken.add(tx.txid);
      order.push(tx);
    }
  }
  return order;
}

/**
 * a.fee / a.size against b.fee / b.size as compareFeerate, in doubles when
 * the cross products differ by more than their rounding (each is within
 * 2^-53 of exact), in BigInt only when they are that close.
 */
function fastCompareFeerate(aFee: number, aSize: number, bFee: number, bSize: number): number {
  const left = aFee * bSize;
  const right = bFee * aSize;
  if (Math.abs(left - right) > (Math.abs(left) + Math.abs(right)) * 2 ** -50) return left > right ? 1 : -1;
  return compareFeerate({ fee: aFee, size: aSize }, { fee: bFee, size: bSize });
}

/**
 * An optimal linearization of one cluster (sets are 32-bit masks):
 * repeatedly, the best-feerate topologically closed subset of what is
 * left (each member's parents among it), found by enumerating every
 * closed subset, taken parents first. Each such subset is a chunk, and no
 * other order has a diagram above this one anywhere. Ties go to the
 * smaller subset, then to the one holding the smallest txid that differs.
 * The best subset never spans two groups left unlinked (it would pay no
 * more than its part in one of them), so each group is searched alone.
 */
function optimalLinearization(cluster: readonly ClusterTx[]): ClusterTx[] {
  // Index i is the i-th smallest txid, so "lowest differing bit" is the txid tie-break.
  const txs = [...cluster].sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0));
  const n = txs.length;
  const index = new Map(txs.map((tx, i) => [tx.txid, i]));
  const parents = txs.map((tx) => tx.parents.reduce((mask, id) => (index.has(id) ? mask | (1 << index.get(id)!) : mask), 0));
  const linked = parents.map((mask, i) => parents.reduce((all, p, j) => (p & (1 << i) ? all | (1 << j) : all), mask));
  // Parents first, the smallest txid among those ready: every ordering below follows it.
  const topological: number[] = [];
  let placed = 0;
  while (topological.length < n) {
    const next = txs.findIndex((_, i) => !(placed & (1 << i)) && (parents[i]! & ~placed) === 0);
    if (next < 0) throw new Error('the cluster has a cycle of parents');
    topological.push(next);
    placed |= 1 << next;
  }

  const order: ClusterTx[] = [];
  let left = placed;
  while (left !== 0) {
    let best = { mask: 0, fee: 0, size: 0, count: 0 };
    let candidates: number[] = [];
    // Each closed subset once: members chosen in topological order, a
    // transaction only when none of its parents still left was skipped.
    const extend = (from: number, mask: number, fee: number, size: number, count: number) => {
      for (let j = from; j < candidates.length; j++) {
        const i = candidates[j]!;
        if ((parents[i]! & left & ~mask) !== 0) continue;
        const m = mask | (1 << i);
        const f = fee + txs[i]!.fee;
        const s = size + txs[i]!.vsize;
        const cmp = best.count === 0 ? 1 : fastCompareFeerate(f, s, best.fee, best.size);
        if (cmp > 0 || (cmp === 0 && (count + 1 < best.count || (count + 1 === best.count && ((m ^ best.mask) & -(m ^ best.mask) & m) !== 0)))) {
          best = { mask: m, fee: f, size: s, count: count + 1 };
        }
        extend(j + 1, m, f, s, count + 1);
      }
    };
    for (let unvisited = left; unvisited !== 0; ) {
      let group = unvisited & -unvisited;
      for (let grown = 0; grown !== group; ) {
        grown = group;
        for (let i = 0; i < n; i++) if (group & (1 << i)) group |= linked[i]! & left;
      }
      unvisited &= ~group;
      candidates = topological.filter((i) => group & (1 << i));
      extend(0, 0, 0, 0, 0);
    }
    for (const i of topological) if (best.mask & (1 << i)) order.push(txs[i]!);
    left &= ~best.mask;
  }
  return order;
}

/** The transactions in `txs` linked by parents among them, each group in input order, groups by first member. */
function clustersOf(txs: readonly ClusterTx[]): ClusterTx[][] {
  const root = new Map(txs.map((tx) => [tx.txid, tx.txid]));
  const find = (id: string): string => {
    let r = id;
    while (root.get(r) !== r) r = root.get(r)!;
    root.set(id, r);
    return r;
  };
  for (const tx of txs) {
    for (const p of tx.parents) if (root.has(p)) root.set(find(p), find(tx.txid));
  }
  const groups = new Map<string, ClusterTx[]>();
  for (const tx of txs) {
    const r = find(tx.txid);
    const group = groups.get(r);
    if (group) group.push(tx);
    else groups.set(r, [tx]);
  }
  return [...groups.values()];
}

/** The chunks of a linearization (as chunksOf), with their transactions. */
function chunkLinearization(linearization: readonly ClusterTx[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const tx of linearization) {
    let chunk: Chunk = { fee: tx.fee, size: tx.vsize, txs: [tx] };
    while (chunks.length > 0 && compareFeerate(chunk, chunks.at(-1)!) > 0) {
      const before = chunks.pop()!;
      chunk = { fee: before.fee + chunk.fee, size: before.size + chunk.size, txs: [...before.txs, ...chunk.txs] };
    }
    chunks.push(chunk);
  }
  return chunks;
}

/**
 * The chunks of every cluster among `txs`, each linearized on its own,
 * merged in decreasing feerate (stable: a cluster's own chunks keep their
 * order), as Core 31 builds the diagrams it compares (txgraph.cpp
 * GetMainStagingDiagrams). Chunking the clusters' linearizations end to
 * end instead would merge a chunk into an unrelated one before it.
 */
function chunksOfClusters(txs: readonly ClusterTx[]): Chunk[] {
  return clustersOf(txs)
    .flatMap((cluster) => chunkLinearization(cluster.length <= EXACT_LINEARIZATION_LIMIT ? optimalLinearization(cluster) : ancestorSetLinearization(cluster)))
    .sort((a, b) => compareFeerate(b, a));
}

/**
 * A linearization of `txs`, the best-feerate chunk of any of its clusters
 * first: optimal for clusters of up to EXACT_LINEARIZATION_LIMIT
 * transactions, the ancestor-set linearization for larger ones (Core 31's
 * own linearizer is only near-optimal for large clusters too).
 */
export function linearize(txs: readonly ClusterTx[]): ClusterTx[] {
  return chunksOfClusters(txs).flatMap((chunk) => chunk.txs);
}

/** The diagram (chunks) of a set of transactions, however many clusters it holds. */
export function diagramOf(txs: readonly ClusterTx[]): FeeFrac[] {
  return chunksOfClusters(txs).map(({ fee, size }) => ({ fee, size }));
}

/**
 * The least fee (sats) a replacement of `replacement.vsize` spending
 * `replacement.parents` must pay so that the diagram of `cluster` without
 * `evicted` and with it is strictly better than the diagram of `cluster`;
 * undefined when no fee would do (never, in practice: a high enough fee
 * always improves it).
 */
export function leastImprovingFee(cluster: readonly ClusterTx[], evicted: ReadonlySet<string>, replacement: { vsize: number; parents: readonly string[] }): number | undefined {
  const before = diagramOf(cluster);
  const kept = cluster.filter((tx) => !evicted.has(tx.txid));
  const improves = (fee: number) => compareDiagrams(diagramOf([...kept, { txid: '', fee, vsize: replacement.vsize, parents: replacement.parents }]), before) === 1;
  // Less than the evicted fees leaves the new diagram's end below the old
  // one's: never better. From there, exact diagrams only rise with the
  // fee, so gallop up to a fee that improves it, then halve the gap.
  const evictedFee = cluster.filter((tx) => evicted.has(tx.txid)).reduce((sum, tx) => sum + tx.fee, 0);
  let low = evictedFee - 1; // a fee that does not improve it
  let step = 1;
  let high = Math.min(MAX_FEE, evictedFee);
  while (!improves(high)) {
    if (high >= MAX_FEE) return undefined;
    low = high;
    high = Math.min(MAX_FEE, high + step);
    step *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (improves(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The chunk `txid` is mined in, by the linearization above (Core 31 mines
 * chunk by chunk, at the chunk's feerate); undefined when `txid` is not
 * among `txs`.
 */
export function chunkOf(txid: string, txs: readonly ClusterTx[]): FeeFrac | undefined {
  const found = chunksOfClusters(txs).find((chunk) => chunk.txs.some((tx) => tx.txid === txid));
  return found && { fee: found.fee, size: found.size };
}
