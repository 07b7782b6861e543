import { CORE_ASSEMBLER_DEFAULTS, MAX_BLOCK_SIGOPS_COST, MAX_CONSECUTIVE_FAILURES, BLOCK_FULL_ENOUGH_WEIGHT_DELTA, type BlockAssemblerOptions } from '../src/projection/block-assembler.ts';
import type { SnapshotEntry } from '../src/mirror/mempool-snapshot.ts';

/**
 * Test oracle for chunk-selection.ts: Bitcoin Core 31's
 * BlockAssembler::addChunks (node/miner.cpp) over chunks given outright
 * (not inferred from the entries), with plain arrays and sets and BigInt
 * rates, block after block; and the last block collecting the rest. The
 * chunks' order follows chunk-order.ts's stated rules (rate; then the
 * smaller weight counting the equal-rate chunks of its cluster it depends
 * on; then the lowest txid; inside a chunk parents first, then txid).
 * `chunks` must list each cluster's chunks in linearization order.
 * Quadratic; for tests of a few dozen transactions.
 */

export interface ReferenceChunkProjection {
  /** Entry indices per block, in block order. */
  blocks: number[][];
  /** Per entry placed: the chunk's rate, fee over its weight in vbytes rounded up. */
  functionalRates: Map<number, number>;
}

export function referenceChunkAssemble(entries: readonly SnapshotEntry[], chunks: readonly number[][], options: BlockAssemblerOptions = {}): ReferenceChunkProjection {
  const settings = { ...CORE_ASSEMBLER_DEFAULTS, ...options };
  const indexOf = new Map(entries.map((e, i) => [e.txid, i]));
  const parentsOf = entries.map((e) => e.depends.map((d) => indexOf.get(d)!));
  const internalHex = entries.map((e) => e.txid.match(/../g)!.reverse().join(''));
  const cluster = clustersOf(parentsOf);
  const fee = (c: number) => BigInt(entries[chunks[c]![0]!]!.chunkFee!);
  const weight = (c: number) => BigInt(entries[chunks[c]![0]!]!.chunkWeight!);
  const lowest = (c: number) => [...chunks[c]!].sort((a, b) => (internalHex[a]! < internalHex[b]! ? -1 : 1))[0]!;
  const chunkOf = new Map<number, number>();
  chunks.forEach((txs, c) => txs.forEach((i) => chunkOf.set(i, c)));
  const sameRate = (a: number, b: number) => fee(a) * weight(b) === fee(b) * weight(a);
  // A chunk's parents' chunks come before it in `chunks` (linearization order within a cluster).
  const prefix: bigint[] = [];
  chunks.forEach((txs, c) => {
    const parentChunks = new Set(txs.flatMap((i) => parentsOf[i]!.map((p) => chunkOf.get(p)!)).filter((p) => p !== c && sameRate(p, c)));
    prefix[c] = weight(c) + [...parentChunks].reduce((most, p) => (prefix[p]! > most ? prefix[p]! : most), 0n);
  });
  const order = chunks.map((_, c) => c).sort((a, b) => {
    const x = fee(a) * weight(b);
    const y = fee(b) * weight(a);
    if (x !== y) return x > y ? -1 : 1;
    if (prefix[a] !== prefix[b]) return prefix[a]! < prefix[b]! ? -1 : 1;
    return internalHex[lowest(a)]! < internalHex[lowest(b)]! ? -1 : 1;
  });
  const vsizeOf = (c: number) => (weight(c) + 3n) / 4n;
  const belowMinimum = (c: number) => fee(c) * 1000n < BigInt(settings.blockMinFeeRatePerKvB) * vsizeOf(c);
  const rate = (c: number) => Number(fee(c)) / Number(vsizeOf(c));
  const inside = (c: number) => {
    // Parents first, then the lowest txid.
    const left = new Set(chunks[c]);
    const out: number[] = [];
    while (left.size > 0) {
      const ready = [...left].filter((i) => parentsOf[i]!.every((p) => !left.has(p))).sort((a, b) => (internalHex[a]! < internalHex[b]! ? -1 : 1));
      out.push(ready[0]!);
      left.delete(ready[0]!);
    }
    return out;
  };

  const taken = new Set<number>();
  const blocks: number[][] = [];
  const functionalRates = new Map<number, number>();
  const selectedBlocks = settings.lastBlockCollectsRest ? settings.maxBlocks - 1 : settings.maxBlocks;
  for (let b = 0; b < selectedBlocks; b++) {
    let blockWeight = settings.reservedWeight;
    let blockSigops = settings.coinbaseSigops;
    const skipped = new Set<number>();
    let failures = 0;
    const block: number[] = [];
    for (const c of order) {
      if (taken.has(c) || skipped.has(cluster[chunks[c]![0]!]!)) continue;
      if (belowMinimum(c)) break;
      const sigops = chunks[c]!.reduce((sum, i) => sum + (entries[i]!.sigops ?? 0), 0);
      if (blockWeight + Number(weight(c)) >= settings.maxBlockWeight || blockSigops + sigops >= MAX_BLOCK_SIGOPS_COST) {
        skipped.add(cluster[chunks[c]![0]!]!);
        failures++;
        if (failures > MAX_CONSECUTIVE_FAILURES && blockWeight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > settings.maxBlockWeight) break;
        continue;
      }
      failures = 0;
      taken.add(c);
      for (const i of inside(c)) {
        block.push(i);
        functionalRates.set(i, rate(c));
        blockWeight += entries[i]!.weight;
        blockSigops += entries[i]!.sigops ?? 0;
      }
    }
    if (block.length === 0) break;
    blocks.push(block);
  }
  if (settings.lastBlockCollectsRest && blocks.length === selectedBlocks) {
    const rest: number[] = [];
    for (const c of order) {
      if (taken.has(c)) continue;
      if (belowMinimum(c)) break;
      for (const i of inside(c)) {
        rest.push(i);
        functionalRates.set(i, rate(c));
      }
    }
    if (rest.length > 0) blocks.push(rest);
  }
  return { blocks, functionalRates };
}

function clustersOf(parentsOf: readonly number[][]): number[] {
  const cluster = parentsOf.map(() => -1);
  const neighbours = parentsOf.map(() => [] as number[]);
  parentsOf.forEach((ps, i) => ps.forEach((p) => {
    neighbours[i]!.push(p);
    neighbours[p]!.push(i);
  }));
  parentsOf.forEach((_, start) => {
    if (cluster[start] !== -1) return;
    const stack = [start];
    cluster[start] = start;
    while (stack.length > 0) {
      for (const j of neighbours[stack.pop()!]!) {
        if (cluster[j] === -1) {
          cluster[j] = start;
          stack.push(j);
        }
      }
    }
  });
  return cluster;
}
