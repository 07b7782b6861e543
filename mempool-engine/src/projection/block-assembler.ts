import { ArrayPool } from './array-pool.ts';
import { MARKS_LIMIT, selectBlocks, type SelectionMarks } from './block-selection.ts';
import { hasCompleteChunks, type ChunkedSnapshot } from './chunk-order.ts';
import { assembleByChunks } from './chunk-selection.ts';
import type { MempoolSnapshot } from '../mirror/mempool-snapshot.ts';
import { RankedMempool, type RankedMempoolTuning } from './ranking/ranked-mempool.ts';
import { collectRest } from './rest-of-mempool.ts';

export { BLOCK_FULL_ENOUGH_WEIGHT_DELTA, MAX_BLOCK_SIGOPS_COST, MAX_CONSECUTIVE_FAILURES } from './block-packages.ts';

/**
 * Projected blocks: the next blocks the node would build from a mempool
 * snapshot, by Bitcoin Core's own block-assembly algorithm
 * (node/miner.cpp, BlockAssembler::addPackageTxs), repeated block after
 * block (block-selection.ts); and, as the last projected block, the rest of
 * the mempool in one summary pass (rest-of-mempool.ts).
 *
 * The algorithm, as Core runs it for one block:
 * - Every transaction is ranked by its ancestor score: the lower of its own
 *   fee rate and the fee rate of itself plus its not-yet-included ancestors
 *   (txmempool.h CompareTxMemPoolEntryByAncestorFee, modified fees, sigop-
 *   adjusted vsizes), ties by txid (score-order.ts).
 * - The best package (a transaction and its not-yet-included ancestors) is
 *   taken if it fits: block weight + 4 × package vsize < -blockmaxweight and
 *   block sigop cost + package sigop cost < 80,000 (TestPackage), starting
 *   from the coinbase's reserve (-blockreservedweight 8,000 WU, 400 sigops).
 *   The package goes in ancestors first (SortForBlock: by ancestor count,
 *   then txid), every member at the package's fee rate: its functional rate.
 * - The descendants of what went in get their ancestor state reduced by it
 *   (UpdatePackagesForAdded) and move to Core's mapModifiedTx, a heap here;
 *   each round takes the better of its top and the next entry of mapTx (the
 *   ancestor_score index; here two sorted runs, see below) that is neither
 *   taken, modified nor failed. A modified entry that does not fit is
 *   dropped for this block (failedTx); a mapTx entry that does not fit is
 *   passed over.
 * - After 1,000 consecutive misfits while the block is within 4,000 WU of
 *   full, Core gives up (MAX_CONSECUTIVE_FAILURES,
 *   BLOCK_FULL_ENOUGH_WEIGHT_DELTA); a package below -blockmintxfee ends the
 *   block.
 * Core's quirks included: a transaction that failed as a modified entry and
 * is modified again when another ancestor goes in restarts from its
 * block-start ancestor state, as CTxMemPoolModifiedEntry's constructor does.
 *
 * The next projected block is the same algorithm over what is left, with
 * ancestor state that excludes the transactions projected so far (Core's
 * mempool after removeForBlock). The last projected block may instead
 * collect everything left, without limits, in a single pass that skips
 * Core's re-scoring of descendants (rest-of-mempool.ts says what that
 * changes): the dashboard shows it as the rest of the mempool.
 *
 * Data layout (labelled-mempool.ts): transactions are relabelled in order of
 * their initial score, so that the loops read their arrays nearly in
 * sequence; mapTx is then the settled labels 0, 1, 2, … themselves, plus a
 * sorted run of the labels given since (fresh) and of the transactions
 * re-scored after an earlier projected block took one of their ancestors,
 * merged as the two are read. The assembler keeps that ranking from one
 * projection to the next and updates it from the snapshot's differences
 * (ranked-mempool.ts): a snapshot a thousand transactions away from the
 * last one is re-ranked in a few milliseconds. Per-transaction answers stay
 * in label order (BlockProjection.entryOf maps snapshot indices to them).
 *
 * A node with a cluster mempool (Bitcoin Core 31 and later) builds its
 * blocks from chunks instead, and says in every mempool entry which chunk
 * fee and weight the transaction has: a snapshot with them for every
 * transaction is projected that way (chunk-selection.ts), one without them
 * (Knots, Core before 31), or with some missing, as described here. The
 * choice is made per projection, before either path starts.
 *
 * Not modelled: Knots' coin-age priority space and -blockmaxsize byte limit
 * (both off under -corepolicy=1) and locktime finality (the mempool only
 * holds transactions final in the next block).
 *
 * Complexity, for n transactions, e parent links, A the total size of all
 * ancestor sets and D the number of (included ancestor, descendant) pairs
 * updated: from scratch O(n + e + A) to rank, including a radix sort by
 * score; an update with c transactions changed (with their descendants)
 * O(n + c log c + A_c) in sequential passes, plus now and then (a tenth of
 * the mempool fresh or dead) an O(n + e) compaction. Per selected block
 * O(p + D log m) for the p mapTx entries walked and m modified entries, and
 * O(s + c log c) to re-score c transactions into the re-scored run of s;
 * the rest in one O(n + e) pass. npm run bench -- mempool-projection
 * measures both paths on 300,000 transactions. The working arrays are kept
 * from one projection to the next; the selection loop allocates nothing.
 */

export interface BlockAssemblerOptions {
  /** -blockmaxweight: Core's DEFAULT_BLOCK_MAX_WEIGHT, MAX_BLOCK_WEIGHT since v29 (Knots with -corepolicy=1). */
  maxBlockWeight?: number;
  /** -blockreservedweight: the coinbase's reserve, DEFAULT_BLOCK_RESERVED_WEIGHT = 8,000 WU. */
  reservedWeight?: number;
  /** coinbase_output_max_additional_sigops: the coinbase's sigop reserve, 400. */
  coinbaseSigops?: number;
  /**
   * -blockmintxfee in sat/kvB: packages paying less are never mined. Core's
   * DEFAULT_BLOCK_MIN_TX_FEE is 1 sat/kvB since 29.1 (1,000 before).
   */
  blockMinFeeRatePerKvB?: number;
  /** Blocks to project (default 8). */
  maxBlocks?: number;
  /** The last block takes everything left, without weight or sigop limits, in one summary pass (rest-of-mempool.ts; default true). */
  lastBlockCollectsRest?: boolean;
  /**
   * Keep the ranked mempool from one projection to the next and update it
   * from each snapshot's differences (default true); false ranks every
   * snapshot from scratch, as a cold start does (benchmarks).
   */
  incremental?: boolean;
}

export const CORE_ASSEMBLER_DEFAULTS: Required<BlockAssemblerOptions> = {
  maxBlockWeight: 4_000_000,
  reservedWeight: 8_000,
  coinbaseSigops: 400,
  blockMinFeeRatePerKvB: 1,
  maxBlocks: 8,
  lastBlockCollectsRest: true,
  incremental: true,
};

export interface ProjectedBlock {
  /** Where the block's transactions start in `BlockProjection.order`. */
  orderStart: number;
  txCount: number;
  /** Sum of the transactions' weights (the coinbase's reserve not included). */
  weight: number;
  /** Sum of the transactions' sigop costs (the coinbase's reserve not included). */
  sigops: number;
  /** Sum of the transactions' (sigop-adjusted) vsizes. */
  vsize: number;
  /** Sum of base fees, integer satoshis: what the block pays its miner on top of the subsidy. */
  fees: number;
  /** Functional rates (sat/vB) of the block's transactions: lowest, highest and median by count. */
  minFeeRate: number;
  maxFeeRate: number;
  medianFeeRate: number;
}

/**
 * The projection. Per-transaction answers are per entry, an entry being the
 * assembler's own numbering (its labels): `entryOf` maps snapshot indices to
 * entries. Reordering the answers into snapshot order would cost a pass of
 * scattered writes over the whole mempool every projection, where readers
 * look up a handful of transactions; read them with projectedBlockOf(),
 * positionVsizeOf() and functionalRateOf(). Entries no snapshot index maps
 * to hold nothing.
 */
export interface BlockProjection {
  /** How the blocks were filled: Core's ancestor-score packages, or a cluster-mempool node's chunks (chunk-selection.ts). */
  ordering: 'ancestor-score' | 'chunks';
  blocks: ProjectedBlock[];
  /** Per snapshot index: its entry in the three arrays below. */
  entryOf: Int32Array;
  /** Per entry: the projected block (0 = next), or -1 when never projected (below -blockmintxfee, too big, or past the last block). */
  blockIndex: Int16Array;
  /** Per entry: vsize from the start of its block up to and including the transaction (position.vsize); 0 when not projected. */
  positionVsize: Float64Array;
  /** Per entry: the package fee rate (modified fees, sat/vB) at which it was selected; NaN when not projected. */
  functionalRate: Float64Array;
  /** Snapshot indices of the projected transactions, block after block, in block order; `projectedCount` of them. */
  order: Int32Array;
  projectedCount: number;
  /** Packages selected, and ancestor-state updates made (Core's nPackagesSelected, nDescendantsUpdated). */
  packagesSelected: number;
  descendantsUpdated: number;
}

/** A block assembler that keeps its working arrays and its ranked mempool between projections (the worker holds one). */
export interface BlockAssembler {
  assemble(snapshot: MempoolSnapshot, options?: BlockAssemblerOptions): BlockProjection;
  /** Bytes of working arrays held between projections. */
  readonly workingBytes: number;
  /** Whether the last projection ranked the mempool from scratch, how many transactions it (re-)ranked, and whether it laid the ranking out afresh. */
  readonly lastRanking: { full: boolean; reranked: number; compacted: boolean };
  /**
   * Does now what the last projection left for later, so that the next
   * one starts sooner: puts back the ranking's ancestor state as it was
   * before the selection changed it, and readies the next projection's
   * answer arrays (fresh memory, which the system must map and zero).
   * assemble() does whatever is left of it first. The worker calls it once
   * it has sent a projection; it reads nothing of the snapshot, which may
   * be changing by then.
   */
  tidyUp(): void;
}

/** `tuning`: when the ranking is laid out afresh (tests exercise both paths). */
export function createBlockAssembler(tuning?: RankedMempoolTuning): BlockAssembler {
  const pool = new ArrayPool();
  const ranked = new RankedMempool(tuning);
  const later: Later = { restore: undefined, answers: undefined };
  const marks: SelectionMarks = { last: 0 };
  /** The transactions of the last projection by chunks, -1 when the last one went by ancestor score: what the next answers are sized for. */
  let chunkedCount = -1;
  const tidyUp = () => {
    later.restore?.();
    later.restore = undefined;
    const { labels, count } = chunkedCount >= 0 ? { labels: chunkedCount, count: chunkedCount } : ranked.size;
    if (!later.answers || later.answers.blockIndex.length < labels || later.answers.entryOf.length < count) later.answers = freshAnswers(labels + (labels >> 6) + 64, count + (count >> 6) + 64);
  };
  return {
    assemble: (snapshot, options = {}) => {
      later.restore?.();
      later.restore = undefined;
      if (marks.last > MARKS_LIMIT) {
        pool.clear();
        marks.last = 0;
      }
      try {
        const settings = { ...CORE_ASSEMBLER_DEFAULTS, ...options };
        if (hasCompleteChunks(snapshot)) {
          chunkedCount = snapshot.count;
          return assembleChunks(snapshot, settings, pool, later);
        }
        chunkedCount = -1;
        return assemble(snapshot, settings, pool, ranked, later, marks);
      } catch (error) {
        // Whatever a failure left half done (the ranking, marks in the working arrays), the next projection starts afresh.
        ranked.reset();
        pool.clear();
        marks.last = 0;
        throw error;
      }
    },
    tidyUp,
    get workingBytes() {
      return pool.byteLength + ranked.byteLength;
    },
    get lastRanking() {
      return ranked.lastUpdate;
    },
  };
}

/** What a projection leaves for later (BlockAssembler.tidyUp()). */
interface Later {
  restore: (() => void) | undefined;
  /** The next projection's answer arrays, if readied. */
  answers: Answers | undefined;
}

/** A projection's arrays, sized for `labels` entries and `count` transactions: block indices -1, rates NaN, positions 0. */
type Answers = Pick<BlockProjection, 'entryOf' | 'blockIndex' | 'positionVsize' | 'functionalRate' | 'order'>;

function freshAnswers(labels: number, count: number): Answers {
  // Every page written now (zeros included): the system maps fresh memory on first touch, at some
  // microseconds a page, which tidyUp() means to spend before the next projection, not during it.
  return {
    entryOf: new Int32Array(count).fill(0),
    blockIndex: new Int16Array(labels).fill(-1),
    positionVsize: new Float64Array(labels).fill(0),
    functionalRate: new Float64Array(labels).fill(Number.NaN),
    order: new Int32Array(count).fill(0),
  };
}

/** Snapshot transaction i's projected block (0 = next), or -1 when it is in none. */
export function projectedBlockOf(projection: Pick<BlockProjection, 'entryOf' | 'blockIndex'>, i: number): number {
  return projection.blockIndex[projection.entryOf[i]!]!;
}

/** Snapshot transaction i's vsize from the start of its block up to and including it; 0 when in no block. */
export function positionVsizeOf(projection: Pick<BlockProjection, 'entryOf' | 'positionVsize'>, i: number): number {
  return projection.positionVsize[projection.entryOf[i]!]!;
}

/** Snapshot transaction i's functional rate (sat/vB); NaN when in no block. */
export function functionalRateOf(projection: Pick<BlockProjection, 'entryOf' | 'functionalRate'>, i: number): number {
  return projection.functionalRate[projection.entryOf[i]!]!;
}

/** One projection with fresh working arrays. */
export function assembleBlocks(snapshot: MempoolSnapshot, options: BlockAssemblerOptions = {}): BlockProjection {
  return createBlockAssembler().assemble(snapshot, options);
}

function assertMaxBlocks(settings: Required<BlockAssemblerOptions>): void {
  if (!Number.isInteger(settings.maxBlocks) || settings.maxBlocks < 1 || settings.maxBlocks > 0x7fff) throw new RangeError(`maxBlocks must be an integer from 1 to 32767, got ${settings.maxBlocks}`);
}

/** The projection by chunks (chunk-selection.ts): answers per snapshot index, in arrays readied by tidyUp() if large enough. */
function assembleChunks(snapshot: ChunkedSnapshot, settings: Required<BlockAssemblerOptions>, pool: ArrayPool, later: Later): BlockProjection {
  assertMaxBlocks(settings);
  const n = snapshot.count;
  const ready = later.answers && later.answers.blockIndex.length >= n && later.answers.entryOf.length >= n ? later.answers : freshAnswers(n, n);
  later.answers = undefined;
  return assembleByChunks(snapshot, settings, ready, pool);
}

function assemble(snapshot: MempoolSnapshot, settings: Required<BlockAssemblerOptions>, pool: ArrayPool, ranked: RankedMempool, later: Later, marks: SelectionMarks): BlockProjection {
  assertMaxBlocks(settings);
  if (!settings.incremental) ranked.reset();
  const graph = ranked.update(snapshot, pool);
  const selectedBlocks = settings.lastBlockCollectsRest ? settings.maxBlocks - 1 : settings.maxBlocks;
  // Fresh arrays, readied by tidyUp() if it ran: they are handed over, e.g. transferred to another thread.
  const { labels, count } = graph;
  const ready = later.answers && later.answers.blockIndex.length >= labels && later.answers.entryOf.length >= count ? later.answers : freshAnswers(labels, count);
  later.answers = undefined;
  const answers = { blockIndex: ready.blockIndex.subarray(0, labels), positionVsize: ready.positionVsize.subarray(0, labels), functionalRate: ready.functionalRate.subarray(0, labels) };
  const entryOf = ready.entryOf.subarray(0, count);
  entryOf.set(graph.labelOfIndex);
  const selection = selectBlocks(graph, settings, selectedBlocks, answers, pool, marks);
  const { blocks } = selection;
  const order = ready.order.subarray(0, count);
  let projected = selection.projected;
  toSnapshotIndices(selection.order.subarray(0, projected), graph.snapshotIndex, order);
  if (settings.lastBlockCollectsRest && blocks.length === selectedBlocks && selection.remaining > 0) {
    const rest = collectRest(graph, selection.mapTx, selection.order.subarray(0, projected), blocks, answers, order, blocks.length, settings.blockMinFeeRatePerKvB, pool);
    if (rest.block) blocks.push(rest.block);
    projected = rest.projected;
  }
  // The ranking is kept for the next projection: as it was, not as this one left it (done by tidyUp(), or first thing next time).
  later.restore = () => selection.restore();
  return { ordering: 'ancestor-score', blocks, entryOf, ...answers, order: order.subarray(0, projected), projectedCount: projected, packagesSelected: selection.packagesSelected, descendantsUpdated: selection.descendantsUpdated };
}

/**
 * `labels` as snapshot indices, into `out`. A function of its own, called
 * every projection: a loop inline here would be compiled on the fly, and
 * thrown away at the code after it, every time.
 */
function toSnapshotIndices(labels: Int32Array, snapshotIndex: Int32Array, out: Int32Array): void {
  for (let k = 0; k < labels.length; k++) out[k] = snapshotIndex[labels[k]!]!;
}
