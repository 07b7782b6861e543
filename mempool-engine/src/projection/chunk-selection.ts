import type { ArrayPool } from './array-pool.ts';
import type { BlockAssemblerOptions, BlockProjection, ProjectedBlock } from './block-assembler.ts';
import { BLOCK_FULL_ENOUGH_WEIGHT_DELTA, belowMinimumFee, MAX_BLOCK_SIGOPS_COST, MAX_CONSECUTIVE_FAILURES, WITNESS_SCALE_FACTOR } from './block-packages.ts';
import { chunkOrder, type ChunkedSnapshot, type ChunkOrder } from './chunk-order.ts';
import { maxOf, median, minOf } from './rate-stats.ts';

/**
 * Projected blocks from a cluster-mempool node's chunks (Bitcoin Core 31 and
 * later), filled as its block assembler fills a block (node/miner.cpp
 * addChunks), block after block. block-assembler.ts chooses this path when
 * every transaction of the snapshot has its chunk fee and weight
 * (chunk-order.ts hasCompleteChunks()); Knots and older Core nodes go by
 * ancestor score as before.
 *
 * Per block, the chunks in mining order (chunk-order.ts), starting from the
 * coinbase's reserve (-blockreservedweight, 400 sigops), as addChunks does:
 * - a chunk below -blockmintxfee ends the block (its fee against the
 *   minimum for its vsize, the chunk weight rounded up to vbytes: Core's
 *   ToFeePerVSize);
 * - a chunk fits when block weight + chunk weight < -blockmaxweight and
 *   block sigops + chunk sigops < 80,000 (TestChunkBlockLimits: the chunk's
 *   sigop-adjusted weight against the block's weight so far); a chunk
 *   that does not fit is skipped, and with it every later chunk of its
 *   cluster in this block (txgraph.h BlockBuilder::Skip: they may depend on
 *   it); after 1,000 consecutive misfits within 4,000 WU of full the block
 *   is done;
 * - a chunk that fits goes in whole, its transactions in its order, each at
 *   the chunk's rate (chunk fee over its vsize): their functional rate.
 * The block's weight then grows by its transactions' own weights
 * (AddToBlock). The next block starts again from the first chunk left.
 * The last projected block may collect everything left, in order, without
 * limits, up to the first chunk below -blockmintxfee (as
 * rest-of-mempool.ts does for the ancestor-score path).
 *
 * Answers are per snapshot index (entryOf is the identity). Every projection
 * orders the chunks afresh: O(n + e + c log c), then per block the chunks
 * walked.
 */

/** A projection's answer arrays, of at least the snapshot's length, as freshAnswers() makes them. */
export type ChunkAnswers = Pick<BlockProjection, 'entryOf' | 'blockIndex' | 'positionVsize' | 'functionalRate' | 'order'>;

/** Blocks from the snapshot's chunks; `answers` are filled and handed over in the projection. */
export function assembleByChunks(snapshot: ChunkedSnapshot, settings: Required<BlockAssemblerOptions>, answers: ChunkAnswers, pool: ArrayPool): BlockProjection {
  const n = snapshot.count;
  const chunks = chunkOrder(snapshot, pool);
  const entryOf = answers.entryOf.subarray(0, n);
  for (let i = 0; i < n; i++) entryOf[i] = i;
  const fill: Fill = {
    s: snapshot,
    chunks,
    blockIndex: answers.blockIndex.subarray(0, n),
    positionVsize: answers.positionVsize.subarray(0, n),
    functionalRate: answers.functionalRate.subarray(0, n),
    order: answers.order.subarray(0, n),
    projected: 0,
    packagesSelected: 0,
    remaining: pool.int32('chunks.remaining', chunks.count),
    remainingCount: chunks.count,
    chunkBlock: pool.int32('chunks.chunkBlock', chunks.count, -1),
    rates: pool.float64('chunks.rates', n),
    blockWeight: 0,
    blockSigops: 0,
    blockVsize: 0,
  };
  fill.remaining.set(chunks.order);
  const selectedBlocks = settings.lastBlockCollectsRest ? settings.maxBlocks - 1 : settings.maxBlocks;
  const blocks: ProjectedBlock[] = [];
  const skippedIn = pool.int32('chunks.skippedIn', n, -1);
  for (let b = 0; b < selectedBlocks && fill.remainingCount > 0; b++) {
    const block = selectBlock(fill, settings, b, skippedIn);
    if (!block) break; // nothing left fits or pays enough: later blocks would be empty too
    blocks.push(block);
  }
  if (settings.lastBlockCollectsRest && blocks.length === selectedBlocks && fill.remainingCount > 0) {
    const rest = collectRest(fill, settings, blocks.length);
    if (rest) blocks.push(rest);
  }
  return {
    ordering: 'chunks',
    blocks,
    entryOf,
    blockIndex: fill.blockIndex,
    positionVsize: fill.positionVsize,
    functionalRate: fill.functionalRate,
    order: fill.order.subarray(0, fill.projected),
    projectedCount: fill.projected,
    packagesSelected: fill.packagesSelected,
    descendantsUpdated: 0,
  };
}

/** What the blocks are filled from and into. */
interface Fill {
  s: ChunkedSnapshot;
  chunks: ChunkOrder;
  blockIndex: Int16Array;
  positionVsize: Float64Array;
  functionalRate: Float64Array;
  /** Snapshot indices in block order; `projected` of them. */
  order: Int32Array;
  projected: number;
  packagesSelected: number;
  /** Chunks not in a block yet, in mining order; `remainingCount` of them. */
  remaining: Int32Array;
  remainingCount: number;
  /** Per chunk: its block, -1 until it is in one. */
  chunkBlock: Int32Array;
  /** Scratch: the block's functional rates, per transaction. */
  rates: Float64Array;
  /** The block being filled: weight and sigops with the coinbase's reserve, vsize of its transactions. */
  blockWeight: number;
  blockSigops: number;
  blockVsize: number;
}

/** A chunk's vsize: its sigop-adjusted weight in vbytes, rounded up (Core's ToFeePerVSize). */
function chunkVsize(weight: number): number {
  return Math.ceil(weight / WITNESS_SCALE_FACTOR);
}

/** Block `b` as addChunks fills it; undefined when it took nothing. */
function selectBlock(f: Fill, limits: Required<BlockAssemblerOptions>, b: number, skippedIn: Int32Array): ProjectedBlock | undefined {
  const { chunks, remaining } = f;
  const { fee, weight, sigops, cluster } = chunks;
  f.blockWeight = limits.reservedWeight;
  f.blockSigops = limits.coinbaseSigops;
  f.blockVsize = 0;
  const orderStart = f.projected;
  let consecutiveFailed = 0;
  let walked = 0;
  for (; walked < f.remainingCount; walked++) {
    const u = remaining[walked]!;
    // The builder no longer offers chunks of a cluster skipped in this block.
    if (skippedIn[cluster[u]!] === b) continue;
    // Everything after pays less: the block is done (Core returns here).
    if (belowMinimumFee(fee[u]!, limits.blockMinFeeRatePerKvB, chunkVsize(weight[u]!))) break;
    if (f.blockWeight + weight[u]! >= limits.maxBlockWeight || f.blockSigops + sigops[u]! >= MAX_BLOCK_SIGOPS_COST) {
      skippedIn[cluster[u]!] = b;
      consecutiveFailed++;
      if (consecutiveFailed > MAX_CONSECUTIVE_FAILURES && f.blockWeight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > limits.maxBlockWeight) {
        walked++;
        break;
      }
      continue;
    }
    consecutiveFailed = 0;
    addChunk(f, u, b);
    f.packagesSelected++;
  }
  dropPlaced(f, walked);
  return summarise(f, orderStart);
}

/** Chunk u's transactions into block b, at the chunk's rate; the block grows by their own weights and sigops (AddToBlock). */
function addChunk(f: Fill, u: number, b: number): void {
  const { s, chunks, blockIndex, positionVsize, functionalRate, order } = f;
  const rate = chunks.fee[u]! / chunkVsize(chunks.weight[u]!);
  const from = chunks.start[u]!;
  let { projected, blockVsize, blockWeight, blockSigops } = f;
  for (let m = from; m < from + chunks.length[u]!; m++) {
    const tx = chunks.members[m]!;
    blockIndex[tx] = b;
    blockVsize += s.vsize[tx]!;
    positionVsize[tx] = blockVsize;
    functionalRate[tx] = rate;
    order[projected++] = tx;
    blockWeight += s.weight[tx]!;
    blockSigops += s.sigops[tx]!;
  }
  f.projected = projected;
  f.blockVsize = blockVsize;
  f.blockWeight = blockWeight;
  f.blockSigops = blockSigops;
  f.chunkBlock[u] = b;
}

/** The first `walked` chunks of `remaining` less those placed; the chunks after them are untouched. */
function dropPlaced(f: Fill, walked: number): void {
  const { remaining, chunkBlock } = f;
  let kept = 0;
  for (let k = 0; k < walked; k++) {
    const u = remaining[k]!;
    if (chunkBlock[u] === -1) remaining[kept++] = u;
  }
  remaining.copyWithin(kept, walked, f.remainingCount);
  f.remainingCount -= walked - kept;
}

/** The block of the transactions from `orderStart` on; undefined when there are none. */
function summarise(f: Fill, orderStart: number): ProjectedBlock | undefined {
  const { s, order, functionalRate, rates } = f;
  const txCount = f.projected - orderStart;
  if (txCount === 0) return undefined;
  let weight = 0;
  let sigops = 0;
  let vsize = 0;
  let fees = 0;
  for (let k = 0; k < txCount; k++) {
    const tx = order[orderStart + k]!;
    weight += s.weight[tx]!;
    sigops += s.sigops[tx]!;
    vsize += s.vsize[tx]!;
    fees += s.fee[tx]!;
    rates[k] = functionalRate[tx]!;
  }
  const blockRates = rates.subarray(0, txCount);
  return { orderStart, txCount, weight, sigops, vsize, fees, minFeeRate: minOf(blockRates), maxFeeRate: maxOf(blockRates), medianFeeRate: median(blockRates) };
}

/** The rest of the mempool as block `b`: every chunk left, in order, until one pays less than -blockmintxfee. */
function collectRest(f: Fill, settings: Required<BlockAssemblerOptions>, b: number): ProjectedBlock | undefined {
  const { chunks, remaining } = f;
  const orderStart = f.projected;
  f.blockVsize = 0;
  for (let k = 0; k < f.remainingCount; k++) {
    const u = remaining[k]!;
    if (belowMinimumFee(chunks.fee[u]!, settings.blockMinFeeRatePerKvB, chunkVsize(chunks.weight[u]!))) break;
    addChunk(f, u, b);
  }
  return summarise(f, orderStart);
}
