import { chunksOf, compareDiagrams, compareFeerate, type FeeFrac } from './feerate-diagram.ts';

/**
 * The least a replacement must pay for Bitcoin Core 31 to take it by the
 * feerate-diagram rule (policy/rbf.cpp ImprovesFeerateDiagram): the
 * cluster's diagram with the replacement in place of what it evicts must
 * be strictly better than the diagram now.
 *
 * Core 31 linearizes each cluster near-optimally; this uses the
 * ancestor-set linearization (the best-feerate transaction with its
 * ancestors first, as block assembly before Core 31 did). For most shapes
 * a bump concerns the two chunk alike; in some they do not, and then
 * "does this fee improve the diagram" is not monotone in the fee, so the
 * search below can land above the least fee Core would take. Fuzzed over
 * families of up to six transactions it never came out below the exact
 * least fee: the advice may ask for more than needed, not for too little.
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
 * The ancestor-set linearization: repeatedly, the transaction whose set of
 * not-yet-taken ancestors (itself included) pays the best feerate, taken
 * with those ancestors, parents first; ties by the smaller set, then txid.
 */
export function linearize(cluster: readonly ClusterTx[]): ClusterTx[] {
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

/** The diagram (chunks) of a set of transactions, however many clusters it holds. */
export function diagramOf(txs: readonly ClusterTx[]): FeeFrac[] {
  return chunksOf(linearize(txs).map((tx) => ({ fee: tx.fee, size: tx.vsize })));
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
  // A higher fee never makes the diagram worse: find a fee that improves it, then the least one.
  let high = Math.max(1, cluster.filter((tx) => evicted.has(tx.txid)).reduce((sum, tx) => sum + tx.fee, 0));
  while (!improves(high)) {
    if (high >= MAX_FEE) return undefined;
    high = Math.min(MAX_FEE, high * 2);
  }
  let low = -1; // a fee that does not improve it (or none: -1)
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (improves(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The chunk `txid` is mined in, by the ancestor-set linearization of `txs`
 * (Core 31 mines chunk by chunk, at the chunk's feerate); undefined when
 * `txid` is not among them.
 */
export function chunkOf(txid: string, txs: readonly ClusterTx[]): FeeFrac | undefined {
  const chunks: Array<FeeFrac & { members: string[] }> = [];
  for (const tx of linearize(txs)) {
    let chunk = { fee: tx.fee, size: tx.vsize, members: [tx.txid] };
    while (chunks.length > 0 && compareFeerate(chunk, chunks.at(-1)!) > 0) {
      const before = chunks.pop()!;
      chunk = { fee: before.fee + chunk.fee, size: before.size + chunk.size, members: [...before.members, ...chunk.members] };
    }
    chunks.push(chunk);
  }
  const found = chunks.find((c) => c.members.includes(txid));
  return found && { fee: found.fee, size: found.size };
}
