/**
 * Feerate diagrams, as Bitcoin Core 31's cluster mempool judges with them
 * (util/feefrac.h FeeFrac, util/feefrac.cpp CompareChunks, policy/rbf.cpp
 * ImprovesFeerateDiagram): a replacement is accepted only when the diagram
 * of the clusters it touches is strictly better after it than before.
 *
 * A diagram is the chunks of a linearization (each chunk a fee and a size),
 * in decreasing feerate; drawn as cumulative fee against cumulative size,
 * starting at (0, 0) and continuing flat after the last chunk. One diagram
 * is better than another when it is nowhere below it and somewhere above.
 */

export interface FeeFrac {
  /** sats */
  fee: number;
  /** vB (or weight units: the same unit throughout one diagram) */
  size: number;
}

/** a.fee / a.size against b.fee / b.size, exactly (cross-multiplied in BigInt: fees × sizes pass 2^53). */
export function compareFeerate(a: FeeFrac, b: FeeFrac): number {
  const left = BigInt(a.fee) * BigInt(b.size);
  const right = BigInt(b.fee) * BigInt(a.size);
  return left > right ? 1 : left < right ? -1 : 0;
}

const plus = (a: FeeFrac, b: FeeFrac): FeeFrac => ({ fee: a.fee + b.fee, size: a.size + b.size });
const minus = (a: FeeFrac, b: FeeFrac): FeeFrac => ({ fee: a.fee - b.fee, size: a.size - b.size });

/**
 * The chunks of a linearization (cluster_linearize.h ChunkLinearization):
 * each transaction starts a chunk, merged into the one before for as long
 * as it pays a higher feerate than that one; the result is in decreasing
 * feerate.
 */
export function chunksOf(linearization: readonly FeeFrac[]): FeeFrac[] {
  const chunks: FeeFrac[] = [];
  for (const tx of linearization) {
    let chunk = { ...tx };
    while (chunks.length > 0 && compareFeerate(chunk, chunks.at(-1)!) > 0) chunk = plus(chunks.pop()!, chunk);
    chunks.push(chunk);
  }
  return chunks;
}

/**
 * CompareChunks: 1 when diagram `a` is better than `b`, -1 when worse, 0
 * when they are the same diagram, undefined when each is above the other
 * somewhere (incomparable). Each point of either diagram is compared with
 * the other's line at that size; past its last chunk a diagram is flat.
 */
export function compareDiagrams(a: readonly FeeFrac[], b: readonly FeeFrac[]): 1 | 0 | -1 | undefined {
  const chunk = [a, b] as const;
  const next = [0, 0];
  const accum: FeeFrac[] = [{ fee: 0, size: 0 }, { fee: 0, size: 0 }];
  const better = [false, false];
  const nextPoint = (side: number) => plus(accum[side]!, chunk[side]![next[side]!]!);
  const advance = (side: number) => {
    accum[side] = nextPoint(side);
    next[side]! += 1;
  };
  for (;;) {
    const done = [next[0] === chunk[0].length, next[1] === chunk[1].length];
    if (done[0] && done[1]) break;
    // The side whose next point comes first (the only one left, when the other is done).
    const side = done[0] ? 1 : done[1] ? 0 : nextPoint(0).size > nextPoint(1).size ? 1 : 0;
    const other = 1 - side;
    const p = nextPoint(side);
    const slopeToP = minus(p, accum[other]!);
    let cmp: number;
    if (done[other]) {
      // The other diagram is flat from here on.
      cmp = compareFeerate(slopeToP, { fee: 0, size: 1 });
    } else {
      const b = nextPoint(other);
      cmp = compareFeerate(slopeToP, minus(b, accum[other]!));
      // Both at the same size: compared once for the two.
      if (b.size === p.size) advance(other);
    }
    if (cmp > 0) better[side] = true;
    if (cmp < 0) better[other] = true;
    advance(side);
    if (better[0] && better[1]) return undefined;
  }
  return better[0] === better[1] ? 0 : better[0] ? 1 : -1;
}
