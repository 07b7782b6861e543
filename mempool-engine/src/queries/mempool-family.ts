import type { MempoolMirror } from '../mirror/mempool-mirror.ts';

/** A transaction of a family as the mirror holds it: its base fee (no prioritisetransaction delta), vsize and in-mempool parents. */
export interface FamilyTx {
  txid: string;
  fee: number;
  vsize: number;
  parents: string[];
}

/**
 * `txid` (first) and every in-mempool transaction whose fees can decide
 * when it is mined: block assembly takes a transaction with its unconfirmed
 * ancestors (node/miner.cpp addPackageTxs), so its ancestors, its
 * descendants (a child pays for its parent) and those descendants' other
 * ancestors (a child's package holds them too). Undefined when the mirror
 * does not hold it.
 *
 * A walk over the mirror's links, in memory: its size is bounded by the
 * node's package limits (-limitancestorcount, -limitdescendantcount: 25
 * each by default), and for a transaction with no unconfirmed relative it
 * is the transaction alone.
 */
export function familyOf(mirror: Pick<MempoolMirror, 'get' | 'parentsOfTx' | 'childrenOfTx'>, txid: string): FamilyTx[] | undefined {
  const own = mirror.get(txid);
  if (!own) return undefined;
  const members = new Map<string, FamilyTx>([[txid, { txid, fee: own.fee, vsize: own.vsize, parents: mirror.parentsOfTx(txid) }]]);
  const add = (id: string): FamilyTx | undefined => {
    if (members.has(id)) return undefined;
    const tx = mirror.get(id);
    if (!tx) return undefined;
    const member = { txid: id, fee: tx.fee, vsize: tx.vsize, parents: mirror.parentsOfTx(id) };
    members.set(id, member);
    return member;
  };
  // Down to every descendant, then up from each of them and from `txid` to every ancestor.
  const descendants = [txid];
  for (let k = 0; k < descendants.length; k++) {
    for (const child of mirror.childrenOfTx(descendants[k]!)) if (add(child)) descendants.push(child);
  }
  const up = [...members.values()];
  for (let k = 0; k < up.length; k++) {
    for (const parent of up[k]!.parents) {
      const added = add(parent);
      if (added) up.push(added);
    }
  }
  return [...members.values()];
}
