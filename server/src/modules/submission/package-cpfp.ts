import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { clearsThreshold } from '../pricing/fee-math.ts';

/**
 * Child pays for parent inside a package: a member below the minimum is
 * taken when it and the members that spend it, directly or not, clear the
 * minimum together: (its fee + theirs) / (its vsize + theirs), the rate a
 * miner gets for taking them all (Bitcoin Core's package feerate,
 * policy/packages.h). And all the members below the minimum, with everything
 * that spends them, must clear it together too, so that one generous child
 * is not counted once for each of two cheap parents. Pure.
 */

export interface PricedMember {
  tx: DecodedTx;
  fee: number;
  vsize: number;
}

/** For each member, the positions of the members that spend it, directly or not. */
export function inPackageDescendants(txs: readonly DecodedTx[]): number[][] {
  const position = new Map(txs.map((t, i) => [t.txid, i]));
  const children = txs.map(() => new Set<number>());
  txs.forEach((t, i) => {
    for (const input of t.inputs) {
      const parent = position.get(input.txid);
      if (parent !== undefined && parent !== i) children[parent]!.add(i);
    }
  });
  return txs.map((_, i) => {
    const found = new Set<number>();
    const queue = [...children[i]!];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (found.has(next)) continue;
      found.add(next);
      queue.push(...children[next]!);
    }
    return [...found].sort((a, b) => a - b);
  });
}

const together = (members: readonly PricedMember[], positions: Iterable<number>, threshold: number) => {
  let fee = 0;
  let vsize = 0;
  for (const i of positions) {
    fee += members[i]!.fee;
    vsize += members[i]!.vsize;
  }
  return clearsThreshold(fee, vsize, threshold);
};

export interface PackageVerdict {
  /** The first member the package does not pay enough for, or -1 when every member is paid for. */
  unpaid: number;
  /** Members below the minimum on their own that their descendants pay for: [parent, child] positions. */
  lifted: Array<[number, number]>;
}

export function judgePackage(members: readonly PricedMember[], threshold: number): PackageVerdict {
  const descendants = inPackageDescendants(members.map((m) => m.tx));
  const cheap = members.flatMap((m, i) => (clearsThreshold(m.fee, m.vsize, threshold) ? [] : [i]));
  const alone = cheap.find((i) => !together(members, [i, ...descendants[i]!], threshold));
  if (alone !== undefined) return { unpaid: alone, lifted: [] };
  const all = new Set(cheap.flatMap((i) => [i, ...descendants[i]!]));
  if (cheap.length > 0 && !together(members, all, threshold)) return { unpaid: cheap[0]!, lifted: [] };
  return { unpaid: -1, lifted: cheap.flatMap((i) => descendants[i]!.map((d): [number, number] => [i, d])) };
}
