import { CORE_ASSEMBLER_DEFAULTS, type BlockAssemblerOptions } from '../projection/block-assembler.ts';
import type { FinishedProjection } from '../projection/projection-scheduler.ts';
import type { MirroredTx } from '../mirror/mempool-mirror.ts';
import { TXID_BYTES, txidAt } from '../mirror/mempool-snapshot.ts';
import { familyOf, type FamilyTx } from './mempool-family.ts';
import type { ProjectedBlockSummary } from './mempool-feed.ts';
import { rateToBeat } from './rate-to-beat.ts';

/**
 * What the engine publishes after each projection: an immutable view of the
 * mempool and its projected blocks. Building one costs a few small objects;
 * the per-transaction answers (position, functional rate) stay in the
 * projection's typed arrays and are read on demand.
 *
 * The rate to beat (`marketRate`) is rate-to-beat.ts's: the lowest
 * functional rate in projected block 0 when it is full, else the node's
 * minimum to enter its mempool.
 */

export interface MempoolTxView extends MirroredTx {
  /** False when it reached the mirror after this view's projection (position and rate unknown yet). */
  projected: boolean;
  /** Its projected block (0 = next) and the vbytes from the start of that block up to and including it; null when in no projected block (below the block minimum fee). */
  position: { block: number; vsize: number } | null;
  /** The package rate (modified fees, sat/vB) at which the projection selected it. */
  functionalRate: number | null;
}

export interface MempoolView {
  /** When the view was published (Unix ms). */
  updatedAtMs: number;
  /** How far it trails the node (ms): the oldest change it was the first to include, or the mirror's own lag. */
  lagMs: number;
  tip: { hash: string; height: number };
  /** The rate to beat (sat/vB). */
  marketRate: number;
  /** The node's minimum to enter its mempool (sat/vB). */
  minRelayRate: number;
  nextBlockFull: boolean;
  /** The weight the projected blocks may fill: the configured -blockmaxweight less the coinbase's reserve, as the projection applies them. */
  blockWeightLimit: number;
  mempool: { txCount: number; vsize: number; totalFees: number };
  blocks: readonly ProjectedBlockSummary[];
  /** A transaction the mirror holds, with its place in this projection; undefined when not in the mempool. */
  transaction(txid: string): MempoolTxView | undefined;
  /** Projected block 0's txids, in block order. */
  nextBlockTxids(): string[];
  /** A transaction the mirror holds (first) and the in-mempool transactions whose fees can decide when it is mined (mempool-family.ts); undefined when not in the mempool. */
  family(txid: string): FamilyTx[] | undefined;
}

export function buildView(finished: FinishedProjection, publishedAt: number, assembler: BlockAssemblerOptions | undefined): MempoolView {
  const { mirror, taken, projection, relay, tip, totals, mirrorLagMs } = finished;
  const blocks: ProjectedBlockSummary[] = projection.blocks.map((b, index) => ({
    index,
    txCount: b.txCount,
    weight: b.weight,
    vsize: b.vsize,
    totalFees: b.fees,
    minRate: b.minFeeRate,
    maxRate: b.maxFeeRate,
    medianRate: b.medianFeeRate,
  }));
  const { marketRate, minRelayRate, nextBlockFull } = rateToBeat(projection.blocks, relay, assembler);
  const nextTxidBytes = nextBlockTxidBytes(finished);
  const firstCount = nextTxidBytes.length / TXID_BYTES;
  const { entryOf, blockIndex, positionVsize, functionalRate } = projection;
  const lagMs = Math.max(mirrorLagMs, taken.oldestChangeAtMs === undefined ? 0 : publishedAt - taken.oldestChangeAtMs);
  return {
    updatedAtMs: publishedAt,
    lagMs,
    tip,
    marketRate,
    minRelayRate,
    nextBlockFull,
    blockWeightLimit: blockWeightLimitOf(assembler),
    mempool: totals,
    blocks,
    transaction(txid) {
      const tx = mirror.get(txid);
      if (!tx) return undefined;
      const i = mirror.projectedIndex(txid, taken);
      if (i < 0) return { ...tx, projected: false, position: null, functionalRate: null };
      const entry = entryOf[i]!;
      const block = blockIndex[entry]!;
      if (block < 0) return { ...tx, projected: true, position: null, functionalRate: null };
      return { ...tx, projected: true, position: { block, vsize: positionVsize[entry]! }, functionalRate: functionalRate[entry]! };
    },
    nextBlockTxids: () => Array.from({ length: firstCount }, (_, k) => txidAt({ txids: nextTxidBytes }, k)),
    family: (txid) => familyOf(mirror, txid),
  };
}

/** Block 0's txids, copied now: the snapshot's buffers take the next copy. */
function nextBlockTxidBytes({ projection }: FinishedProjection): Uint8Array {
  const firstCount = projection.blocks[0]?.txCount ?? 0;
  const bytes = new Uint8Array(firstCount * TXID_BYTES);
  for (let k = 0; k < firstCount; k++) {
    const i = projection.order[k]!;
    bytes.set(projection.snapshot.txids.subarray(i * TXID_BYTES, (i + 1) * TXID_BYTES), k * TXID_BYTES);
  }
  return bytes;
}

function blockWeightLimitOf(assembler: BlockAssemblerOptions | undefined): number {
  const { maxBlockWeight, reservedWeight } = { ...CORE_ASSEMBLER_DEFAULTS, ...assembler };
  return maxBlockWeight - reservedWeight;
}
