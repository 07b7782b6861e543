import { CORE_ASSEMBLER_DEFAULTS, MAX_BLOCK_SIGOPS_COST, MAX_CONSECUTIVE_FAILURES, BLOCK_FULL_ENOUGH_WEIGHT_DELTA, type BlockAssemblerOptions } from '../src/projection/block-assembler.ts';
import type { SnapshotEntry } from '../src/mirror/mempool-snapshot.ts';

/**
 * Test oracle for block-assembler.ts: a line-by-line transcription of Bitcoin
 * Core's BlockAssembler::addPackageTxs (node/miner.cpp) with the plainest
 * data structures (sets, maps, a sorted array for mapTx, a linear scan for
 * the best modified entry), recomputing every ancestor set from scratch for
 * each block; and of the last block's summary of the rest of the mempool
 * (rest-of-mempool.ts). Quadratic; for tests of a few dozen transactions only.
 */

interface AncestorState {
  fee: number;
  size: number;
  sigops: number;
  count: number;
}

export interface ReferenceProjection {
  /** Snapshot indices per block, in block order. */
  blocks: number[][];
  functionalRates: Map<number, number>;
}

export function referenceAssemble(entries: readonly SnapshotEntry[], options: BlockAssemblerOptions = {}): ReferenceProjection {
  const settings = { ...CORE_ASSEMBLER_DEFAULTS, ...options };
  const indexOf = new Map(entries.map((e, i) => [e.txid, i]));
  const parentsOf = entries.map((e) => e.depends.map((d) => indexOf.get(d)!));
  const childrenOf = entries.map(() => [] as number[]);
  parentsOf.forEach((ps, i) => ps.forEach((p) => childrenOf[p]!.push(i)));
  const modFee = (i: number) => entries[i]!.modifiedFee ?? entries[i]!.fee;
  const size = (i: number) => entries[i]!.vsize;
  const sigops = (i: number) => entries[i]!.sigops ?? 0;
  // uint256 operator<: memcmp of internal bytes, i.e. of the display hex reversed byte by byte.
  const internalHex = entries.map((e) => e.txid.match(/../g)!.reverse().join(''));
  const txidLess = (a: number, b: number) => internalHex[a]! < internalHex[b]!;

  const minimumFee = (packageSize: number) => Math.max(packageSize > 0 && settings.blockMinFeeRatePerKvB > 0 ? 1 : 0, Math.ceil((settings.blockMinFeeRatePerKvB * packageSize) / 1000));
  const remaining = new Set(entries.map((_, i) => i));
  const blocks: number[][] = [];
  const functionalRates = new Map<number, number>();

  const closure = (start: number, next: (i: number) => number[]): Set<number> => {
    const seen = new Set<number>();
    const walk = (i: number) => {
      for (const j of next(i)) {
        if (!remaining.has(j) || seen.has(j)) continue;
        seen.add(j);
        walk(j);
      }
    };
    walk(start);
    return seen;
  };

  // CompareTxMemPoolEntryByAncestorFee::GetModFeeAndSize, then operator().
  const score = (i: number, s: AncestorState): [number, number] => (modFee(i) * s.size > s.fee * size(i) ? [s.fee, s.size] : [modFee(i), size(i)]);
  const better = (a: number, sa: AncestorState, b: number, sb: AncestorState): boolean => {
    const [fa, za] = score(a, sa);
    const [fb, zb] = score(b, sb);
    const f1 = fa * zb;
    const f2 = za * fb;
    return f1 === f2 ? txidLess(a, b) : f1 > f2;
  };

  for (let b = 0; b < settings.maxBlocks && remaining.size > 0; b++) {
    const unlimited = settings.lastBlockCollectsRest && b === settings.maxBlocks - 1;
    // The mempool entries' ancestor state, over what is still unconfirmed.
    const entry = new Map<number, AncestorState>();
    for (const i of remaining) {
      const members = [i, ...closure(i, (j) => parentsOf[j]!)];
      entry.set(i, {
        fee: members.reduce((a, j) => a + modFee(j), 0),
        size: members.reduce((a, j) => a + size(j), 0),
        sigops: members.reduce((a, j) => a + sigops(j), 0),
        count: members.length,
      });
    }
    const mapTx = [...remaining].sort((x, y) => (better(x, entry.get(x)!, y, entry.get(y)!) ? -1 : 1));
    if (unlimited) {
      // The rest of the mempool (rest-of-mempool.ts): mapTx in order, each with its ancestors not placed yet, no re-scoring.
      const block: number[] = [];
      const placed = new Set<number>();
      for (const head of mapTx) {
        if (placed.has(head)) continue;
        const members = [head, ...closure(head, (j) => parentsOf[j]!)].filter((j) => !placed.has(j));
        const fee = members.reduce((a, j) => a + modFee(j), 0);
        const packageSize = members.reduce((a, j) => a + size(j), 0);
        if (fee < minimumFee(packageSize)) break;
        members.sort((x, y) => entry.get(x)!.count - entry.get(y)!.count || (txidLess(x, y) ? -1 : 1));
        for (const tx of members) {
          block.push(tx);
          placed.add(tx);
          functionalRates.set(tx, fee / packageSize);
        }
      }
      if (block.length > 0) blocks.push(block);
      break;
    }
    const inBlock = new Set<number>();
    const block: number[] = [];
    const modified = new Map<number, AncestorState>();
    const failed = new Set<number>();
    let blockWeight = settings.reservedWeight;
    let blockSigops = settings.coinbaseSigops;
    let consecutiveFailed = 0;
    let mi = 0;

    while (mi < mapTx.length || modified.size > 0) {
      if (mi < mapTx.length) {
        const it = mapTx[mi]!;
        if (modified.has(it) || inBlock.has(it) || failed.has(it)) {
          mi++;
          continue;
        }
      }
      let modit = -1;
      for (const [i, s] of modified) if (modit < 0 || better(i, s, modit, modified.get(modit)!)) modit = i;
      let iter: number;
      let usingModified = false;
      if (mi >= mapTx.length) {
        iter = modit;
        usingModified = true;
      } else {
        iter = mapTx[mi]!;
        if (modit >= 0 && better(modit, modified.get(modit)!, iter, entry.get(iter)!)) {
          iter = modit;
          usingModified = true;
        } else {
          mi++;
        }
      }
      const pkg = usingModified ? modified.get(iter)! : entry.get(iter)!;
      if (pkg.fee < minimumFee(pkg.size)) break;
      const fits = blockWeight + 4 * pkg.size < settings.maxBlockWeight && blockSigops + pkg.sigops < MAX_BLOCK_SIGOPS_COST;
      if (!fits) {
        if (usingModified) {
          modified.delete(iter);
          failed.add(iter);
        }
        consecutiveFailed++;
        if (consecutiveFailed > MAX_CONSECUTIVE_FAILURES && blockWeight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > settings.maxBlockWeight) break;
        continue;
      }
      const ancestors = [iter, ...closure(iter, (j) => parentsOf[j]!)].filter((j) => !inBlock.has(j));
      consecutiveFailed = 0;
      const sorted = [...ancestors].sort((x, y) => entry.get(x)!.count - entry.get(y)!.count || (txidLess(x, y) ? -1 : 1));
      for (const tx of sorted) {
        block.push(tx);
        inBlock.add(tx);
        modified.delete(tx);
        blockWeight += entries[tx]!.weight;
        blockSigops += sigops(tx);
        functionalRates.set(tx, pkg.fee / pkg.size);
      }
      const added = new Set(ancestors);
      for (const a of ancestors) {
        for (const d of closure(a, (j) => childrenOf[j]!)) {
          if (added.has(d)) continue;
          if (!modified.has(d)) modified.set(d, { ...entry.get(d)! });
          const m = modified.get(d)!;
          m.fee -= modFee(a);
          m.size -= size(a);
          m.sigops -= sigops(a);
        }
      }
    }
    if (block.length === 0) break;
    blocks.push(block);
    for (const tx of block) remaining.delete(tx);
  }
  return { blocks, functionalRates };
}
