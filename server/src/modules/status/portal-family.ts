import type { FamilyTx } from '@slipstream/mempool-engine';
import { chunkOf } from '../../bitcoin/cluster/replacement-fee.ts';

/**
 * A transaction's figures as the portal's own view of the pool's mempool
 * makes them. The pool's mempool is private until mined (README, "How a
 * submission is judged"; disclosure/public-disclosure.ts): a public answer
 * may describe only transactions the node accepted from the portal
 * (submission/portal-records.repository.ts). The engine's package rate of a
 * transaction is not one of those figures: a child sent straight to the
 * node lifts its parent's package rate to (parent's fee + child's fee) ÷
 * (their sizes), and from that rate, before and after, anyone reads the
 * child's fee and size. Nor is the node's modified fee, which carries the
 * pool's prioritisetransaction deltas.
 *
 * So the functional rate and the bump advice are computed over the
 * transaction and those of its unconfirmed relatives (mempool-family.ts)
 * that are the portal's, at base fees: what the pool's block assembly would
 * do if the portal's transactions were all there is. A child submitted
 * here still lifts its parent (child pays for parent, among the portal's
 * own); one sent elsewhere changes none of these figures.
 *
 * What a private relative can still change is where the pool's template
 * puts the transaction, the truth users need: its projected block number.
 * The depth within that block (position.vsize) is withheld while the family
 * holds a transaction that is not the portal's, as the depth of a parent a
 * private child pulls up, beside the portal's own transactions, measures
 * that child. The missing depth says that such a relative exists, no more
 * than naming one of its outpoints to submit-tx does (README, "How a
 * submission is judged").
 */
export interface PortalFamily {
  /** The package rate (base fees, sat/vB) at which block assembly over the portal's own family would take it: the public functional rate. */
  rate: number;
  /** Its unconfirmed ancestors the node accepted from the portal. */
  ancestors: FamilyTx[];
  /** Its in-mempool descendants the node accepted from the portal. */
  descendants: FamilyTx[];
  /** Its family holds a transaction that is not the portal's (its depth in a projected block is then not given). */
  withOthers: boolean;
}

/** Its in-mempool relatives other than itself, to ask which are the portal's (portal-records.repository.ts recordedTxids). */
export const relativesOf = (family: readonly FamilyTx[]): string[] => family.slice(1).map((m) => m.txid);

/**
 * `family[0]`'s figures from the portal's own members of its family
 * (`portal`: those the node accepted from the portal; the transaction
 * itself is always counted).
 *
 * The rate is found as Core's block assembly finds it (node/miner.cpp
 * addPackageTxs), over the portal's members alone: the best package first,
 * a package being a transaction with its ancestors not yet taken, ranked by
 * the lower of its own rate and the package's
 * (CompareTxMemPoolEntryByAncestorFee), ties by txid; the transaction's rate
 * is that of the package it is taken in. A family is a few dozen
 * transactions at most (the node's package limits), so the quadratic
 * search costs nothing.
 */
export function portalFamily(family: readonly FamilyTx[], portal: ReadonlySet<string>, clusterMempool = false): PortalFamily {
  const own = family[0]!;
  const byId = new Map(family.map((m) => [m.txid, m]));
  const ancestorMemo = new Map<string, Set<string>>();
  const ancestorsOf = (txid: string): Set<string> => {
    let found = ancestorMemo.get(txid);
    if (found) return found;
    found = new Set();
    const stack = [...(byId.get(txid)?.parents ?? [])];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (found.has(id) || !byId.has(id)) continue;
      found.add(id);
      stack.push(...byId.get(id)!.parents);
    }
    ancestorMemo.set(txid, found);
    return found;
  };

  const counted = family.filter((m) => m === own || portal.has(m.txid));
  const countedIds = new Set(counted.map((m) => m.txid));
  const ownAncestors = ancestorsOf(own.txid);
  const ancestors = counted.filter((m) => ownAncestors.has(m.txid));
  const descendants = counted.filter((m) => m !== own && ancestorsOf(m.txid).has(own.txid));

  // Bitcoin Core 31 mines whole chunks of a cluster's linearization: its rate is its chunk's.
  if (clusterMempool) {
    const chunk = chunkOf(own.txid, counted.map((m) => ({ ...m, parents: m.parents.filter((id) => countedIds.has(id)) })))!;
    return { rate: chunk.fee / chunk.size, ancestors, descendants, withOthers: counted.length < family.length };
  }

  const taken = new Set<string>();
  let rate = own.fee / own.vsize;
  while (!taken.has(own.txid)) {
    let best: { members: FamilyTx[]; rate: number; score: number; txid: string } | undefined;
    for (const m of counted) {
      if (taken.has(m.txid)) continue;
      const members = [m, ...[...ancestorsOf(m.txid)].filter((id) => countedIds.has(id) && !taken.has(id)).map((id) => byId.get(id)!)];
      const fee = members.reduce((sum, x) => sum + x.fee, 0);
      const vsize = members.reduce((sum, x) => sum + x.vsize, 0);
      const packageRate = fee / vsize;
      const score = Math.min(m.fee / m.vsize, packageRate);
      if (!best || score > best.score || (score === best.score && m.txid < best.txid)) best = { members, rate: packageRate, score, txid: m.txid };
    }
    for (const m of best!.members) taken.add(m.txid);
    if (taken.has(own.txid)) rate = best!.rate;
  }
  return { rate, ancestors, descendants, withOthers: counted.length < family.length };
}
