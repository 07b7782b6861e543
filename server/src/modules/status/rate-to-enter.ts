import type { MempoolTxView, MempoolView } from '@slipstream/mempool-engine';
import type { PortalFamily } from './portal-family.ts';

/**
 * The rate a transaction must beat to enter the projected next block, given
 * its own size: the status answer's `rate_to_beat` and the bump advice's.
 * The market rate (the lowest package rate in that block) is what a small
 * transaction must beat; a large one must also push out as many vbytes of
 * the block's cheapest packages as it takes, and beat the last of them.
 *
 * The package is counted as the projection counts it (node/miner.cpp): the
 * transaction and its unconfirmed ancestors, less those already selected in
 * the projected next block (once selected, Core takes their fees and size
 * out of their descendants' package), at the node's sigop-adjusted vsize.
 * Only the ancestors the portal may describe count (portal-family.ts), at
 * base fees, so that a relative sent straight to the node moves no figure.
 */

/** A transaction's package as the projection counts it, over the ancestors the portal may describe. */
export interface CountedPackage {
  fee: number;
  vsize: number;
  /** How many unconfirmed ancestors are counted. */
  ancestors: number;
  ancestorFee: number;
  ancestorVsize: number;
}

/** `tx` (its base fee and vsize) with those of `family`'s ancestors not already in the projected next block. */
export function countedPackage(tx: { fee: number; vsize: number }, view: MempoolView, family: PortalFamily): CountedPackage {
  let ancestorFee = 0;
  let ancestorVsize = 0;
  let ancestors = 0;
  for (const a of family.ancestors) {
    if (view.transaction(a.txid)?.position?.block === 0) continue;
    ancestorFee += a.fee;
    ancestorVsize += a.vsize;
    ancestors++;
  }
  return { fee: tx.fee + ancestorFee, vsize: tx.vsize + ancestorVsize, ancestors, ancestorFee, ancestorVsize };
}

/**
 * The rate a package of `vsize` vbytes must beat to enter the next block:
 * the rate to beat, unless the cheapest packages of the projected next
 * block (and its free room) are too small to make way for it, in which case
 * the rate of the last one it must push out. A package just above the rate
 * to beat but larger than the room it frees lands in the block after.
 *
 * For a package already in the next block this is the rate it beats there:
 * its own vbytes are among those the block would free, so the figure is at
 * most its own rate there (the engine's).
 */
export function rateToEnter(view: MempoolView, vsize: number): number {
  // TestPackage (node/miner.cpp), in weight units: the block's weight (its transactions' own weights, less than
  // 4 × their rounded-up vsizes) plus 4 × the package's vsize must stay strictly below the configured
  // -blockmaxweight less the coinbase's reserve.
  const needed = 4 * vsize;
  let room = view.blockWeightLimit - (view.blocks[0]?.weight ?? 0);
  if (room > needed) return view.marketRate;
  const { rates, weights } = cheapestFirst(view);
  let rate = view.marketRate;
  for (let i = 0; i < rates.length; i++) {
    rate = Math.max(rate, rates[i]!);
    room += weights[i]!;
    if (room > needed) break;
  }
  return rate;
}

/**
 * Block 0's members by functional rate, cheapest first: sorted once per view
 * (a view never changes), not once per request. A full block holds a few
 * thousand transactions; every status read of a waiting transaction walks
 * them from the cheapest.
 */
const sortedByView = new WeakMap<MempoolView, { rates: Float64Array; weights: Float64Array }>();

function cheapestFirst(view: MempoolView): { rates: Float64Array; weights: Float64Array } {
  const known = sortedByView.get(view);
  if (known) return known;
  const members = view.nextBlockTxids().map((txid) => view.transaction(txid)).filter((tx) => tx?.functionalRate != null) as Array<MempoolTxView & { functionalRate: number }>;
  members.sort((a, b) => a.functionalRate - b.functionalRate);
  const sorted = { rates: Float64Array.from(members, (tx) => tx.functionalRate), weights: Float64Array.from(members, (tx) => tx.weight) };
  sortedByView.set(view, sorted);
  return sorted;
}

/** The rate to beat for a transaction's size: what its counted package must pay (strictly more) to enter the next block. */
export function rateToBeatFor(tx: { fee: number; vsize: number }, view: MempoolView, family: PortalFamily): number {
  return rateToEnter(view, countedPackage(tx, view, family).vsize);
}

/** The lowest integer fee paying strictly more than `rate` over `vsize` vbytes, beating the rate rather than tying it. */
export const feeAbove = (rate: number, vsize: number) => Math.floor(rate * vsize + 1e-9) + 1;
