import { ArrayPool } from './array-pool.ts';
import { labelByScore, setAncestorScore, type LabelledMempool } from './labelled-mempool.ts';
import { assertValidSnapshot, type MempoolSnapshot } from './mempool-snapshot.ts';
import { maxOf, median, minOf } from './rate-stats.ts';
import { ScoreHeap } from './score-heap.ts';
import { beforeAcross, mergeByScore, ScoreOrder, sortByScore, type TxidOrder } from './score-order.ts';

/**
 * Projected blocks: the next blocks the node would build from a mempool
 * snapshot, by Bitcoin Core's own block-assembly algorithm
 * (node/miner.cpp, BlockAssembler::addPackageTxs), repeated block after block.
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
 * collect everything left, without limits, in the same order.
 *
 * Data layout (labelled-mempool.ts): transactions are relabelled in order of
 * their initial score, so that the loops below read their arrays nearly in
 * sequence; mapTx is then the labels 0, 1, 2, … themselves, plus a small
 * sorted run of the transactions re-scored after an earlier projected block
 * took one of their ancestors, merged as the two are read.
 *
 * Not modelled: Knots' coin-age priority space and -blockmaxsize byte limit
 * (both off under -corepolicy=1) and locktime finality (the mempool only
 * holds transactions final in the next block).
 *
 * Complexity, for n transactions, e parent links, A the total size of all
 * ancestor sets and D the number of (included ancestor, descendant) pairs
 * updated: O(n + e + A) to set up, including a radix sort by score; per
 * block O(p + D log m) for the p mapTx entries walked, m modified entries,
 * and O(s + c log c) to re-score c transactions into the re-scored run of s.
 * A full projection of 300,000 transactions takes about 250 ms (npm run
 * bench). Memory is about 500 bytes per transaction, in typed arrays that a
 * BlockAssembler keeps from one projection to the next; the selection loop
 * allocates nothing.
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
  /** The last block takes everything left, without weight or sigop limits (default true). */
  lastBlockCollectsRest?: boolean;
}

/** consensus/consensus.h MAX_BLOCK_SIGOPS_COST. */
export const MAX_BLOCK_SIGOPS_COST = 80_000;
/** consensus/consensus.h WITNESS_SCALE_FACTOR: TestPackage charges 4 WU per package vbyte. */
const WITNESS_SCALE_FACTOR = 4;
/** node/miner.cpp addPackageTxs: give up after this many consecutive misfits when the block is nearly full. */
export const MAX_CONSECUTIVE_FAILURES = 1_000;
/** node/miner.cpp addPackageTxs: "nearly full" is within this many weight units of the maximum. */
export const BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4_000;

export const CORE_ASSEMBLER_DEFAULTS: Required<BlockAssemblerOptions> = {
  maxBlockWeight: 4_000_000,
  reservedWeight: 8_000,
  coinbaseSigops: 400,
  blockMinFeeRatePerKvB: 1,
  maxBlocks: 8,
  lastBlockCollectsRest: true,
};

export interface ProjectedBlock {
  /** Where the block's transactions start in `BlockProjection.order`. */
  orderStart: number;
  txCount: number;
  /** Sum of the transactions' weights (the coinbase's reserve not included). */
  weight: number;
  /** Sum of the transactions' (sigop-adjusted) vsizes. */
  vsize: number;
  /** Sum of base fees, integer satoshis: what the block pays its miner on top of the subsidy. */
  fees: number;
  /** Functional rates (sat/vB) of the block's transactions: lowest, highest and median by count. */
  minFeeRate: number;
  maxFeeRate: number;
  medianFeeRate: number;
}

export interface BlockProjection {
  blocks: ProjectedBlock[];
  /** Per snapshot index: the projected block (0 = next), or -1 when never projected (below -blockmintxfee, too big, or past the last block). */
  blockIndex: Int16Array;
  /** Per snapshot index: vsize from the start of its block up to and including the transaction (position.vsize); 0 when not projected. */
  positionVsize: Float64Array;
  /** Per snapshot index: the package fee rate (modified fees, sat/vB) at which it was selected; NaN when not projected. */
  functionalRate: Float64Array;
  /** Snapshot indices of the projected transactions, block after block, in block order; `projectedCount` of them. */
  order: Int32Array;
  projectedCount: number;
  /** Packages selected, and ancestor-state updates made (Core's nPackagesSelected, nDescendantsUpdated). */
  packagesSelected: number;
  descendantsUpdated: number;
}

/** A block assembler that keeps its working arrays between projections (the worker holds one). */
export interface BlockAssembler {
  assemble(snapshot: MempoolSnapshot, options?: BlockAssemblerOptions): BlockProjection;
  /** Bytes of working arrays held between projections. */
  readonly workingBytes: number;
}

export function createBlockAssembler(): BlockAssembler {
  const pool = new ArrayPool();
  return {
    assemble: (snapshot, options = {}) => assemble(snapshot, { ...CORE_ASSEMBLER_DEFAULTS, ...options }, pool),
    get workingBytes() {
      return pool.byteLength;
    },
  };
}

/** One projection with fresh working arrays. */
export function assembleBlocks(snapshot: MempoolSnapshot, options: BlockAssemblerOptions = {}): BlockProjection {
  return createBlockAssembler().assemble(snapshot, options);
}

/** The fee Core's CFeeRate::GetFee (policy/feerate.cpp) asks of `size` vbytes: rounded up, at least 1 sat for a positive rate. */
function minimumFee(ratePerKvB: number, size: number): number {
  const fee = Math.ceil((ratePerKvB * size) / 1000);
  return fee === 0 && size !== 0 && ratePerKvB > 0 ? 1 : fee;
}

function assemble(snapshot: MempoolSnapshot, settings: Required<BlockAssemblerOptions>, pool: ArrayPool): BlockProjection {
  if (!Number.isInteger(settings.maxBlocks) || settings.maxBlocks < 1 || settings.maxBlocks > 0x7fff) throw new RangeError(`maxBlocks must be an integer from 1 to 32767, got ${settings.maxBlocks}`);
  assertValidSnapshot(snapshot);
  const n = snapshot.count;
  const graph = labelByScore(snapshot, pool);
  const { fee, modifiedFee, vsize, weight, sigops, parentStart, parents, childStart, children, txidOrder } = graph;
  const { fee: ancestorFee, size: ancestorSize, sigops: ancestorSigops, count: ancestorCount } = graph.ancestors;

  // Core's mapTx, ancestor_score index: what is left, best first, by ancestor state at the block's start.
  // Two sorted runs merged as they are read: labels 0 .. n - 1 (the initial order), and the
  // transactions re-scored since because an ancestor went into an earlier block.
  const mainOrder = graph.scores;
  /** Whether the transaction has left the label run for the re-scored run. */
  const rescoredFlag = pool.int16('assemble.rescoredFlag', n, 0);
  let rescoredBuffer = pool.int32('assemble.rescored', n);
  let spareBuffer = pool.int32('assemble.rescoredSpare', n);
  let rescored = rescoredBuffer.subarray(0, 0);
  const keptBuffer = pool.int32('assemble.kept', n);
  let remaining = n;
  // Core's mapModifiedTx: ancestor state reduced by what this block took.
  const modOrder = new ScoreOrder(pool.float64('assemble.modScoreFee', n), pool.float64('assemble.modScoreSize', n), pool.float64('assemble.modScoreRate', n), txidOrder, mainOrder.exactTieRate);
  const modFee = pool.float64('assemble.modFee', n);
  const modSize = pool.float64('assemble.modSize', n);
  const modSigops = pool.float64('assemble.modSigops', n);
  const modHeap = new ScoreHeap(
    { heap: pool.int32('heap.tx', n), rate: pool.float64('heap.rate', n), tie: pool.float64('heap.tie', n), slot: pool.int32('heap.slot', n, -1) },
    modOrder,
  );
  /** The block mark of the block in which a modified entry did not fit (Core's failedTx, per block). */
  const failedIn = pool.int32('assemble.failedIn', n, 0);
  /** The block mark of the block in which the transaction's ancestor state first changed; `start*` then hold its state at the block's start. */
  const touchedIn = pool.int32('assemble.touchedIn', n, 0);
  const touched = pool.int32('assemble.touched', n);
  const startFee = pool.float64('assemble.startFee', n);
  const startSize = pool.float64('assemble.startSize', n);
  const startSigops = pool.float64('assemble.startSigops', n);
  const startCount = pool.int32('assemble.startCount', n);

  const blockIndex = pool.int16('assemble.blockIndex', n, -1);
  const positionVsize = pool.float64('assemble.positionVsize', n, 0);
  const functionalRate = pool.float64('assemble.functionalRate', n, Number.NaN);
  const order = pool.int32('assemble.order', n);
  let projected = 0;
  let packagesSelected = 0;
  let descendantsUpdated = 0;

  // Walks and packages mark what they reached with a fresh number: no clearing between walks.
  let epoch = 0;
  let packageId = 0;
  const reached = pool.int32('assemble.reached', n, 0);
  const stack = pool.int32('assemble.stack', n);
  const packageTxs = pool.int32('assemble.packageTxs', n);
  const packageCounts = pool.int32('assemble.packageCounts', n);
  const packageMark = pool.int32('assemble.packageMark', n, 0);
  const blocks: ProjectedBlock[] = [];

  for (let b = 0; b < settings.maxBlocks && remaining > 0; b++) {
    const unlimited = settings.lastBlockCollectsRest && b === settings.maxBlocks - 1;
    const blockMark = b + 1;
    let touchedCount = 0;
    modHeap.clear();

    const orderStart = projected;
    let blockWeight = settings.reservedWeight;
    let blockSigops = settings.coinbaseSigops;
    let blockVsize = 0;
    let blockTxWeight = 0;
    let blockFees = 0;
    let consecutiveFailed = 0;
    /** Cursors in the label run (label = position) and the re-scored run. */
    let mi = 0;
    let ri = 0;

    for (;;) {
      // The next mapTx entry: the better head of the two runs, once stale entries (taken, modified,
      // failed as modified, or moved to the re-scored run) are passed over, as Core's loop does.
      while (mi < n && (rescoredFlag[mi] !== 0 || blockIndex[mi] !== -1 || modHeap.has(mi) || failedIn[mi] === blockMark)) mi++;
      while (ri < rescored.length) {
        const tx = rescored[ri]!;
        if (blockIndex[tx] === -1 && !modHeap.has(tx) && failedIn[tx] !== blockMark) break;
        ri++;
      }
      let next = mi < n ? mi : -1;
      const fromRescored = ri < rescored.length && (next < 0 || mainOrder.before(rescored[ri]!, next));
      if (fromRescored) next = rescored[ri]!;
      if (next < 0 && modHeap.size === 0) break;

      let candidate: number;
      let usingModified = false;
      const best = modHeap.size > 0 ? modHeap.peek() : -1;
      if (best >= 0 && (next < 0 || beforeAcross(modOrder, best, mainOrder, next))) {
        candidate = best;
        usingModified = true;
      } else {
        candidate = next;
        if (fromRescored) ri++;
        else mi++;
      }

      // A mapTx candidate's ancestor state has not changed in this block: had it, it would be modified or failed.
      const packageFee = usingModified ? modFee[candidate]! : ancestorFee[candidate]!;
      const packageSize = usingModified ? modSize[candidate]! : ancestorSize[candidate]!;
      const packageSigops = usingModified ? modSigops[candidate]! : ancestorSigops[candidate]!;

      // Everything else ranks lower: the block is done (Core returns here).
      if (packageFee < minimumFee(settings.blockMinFeeRatePerKvB, packageSize)) break;

      if (!unlimited && (blockWeight + WITNESS_SCALE_FACTOR * packageSize >= settings.maxBlockWeight || blockSigops + packageSigops >= MAX_BLOCK_SIGOPS_COST)) {
        if (usingModified) {
          modHeap.remove(candidate);
          failedIn[candidate] = blockMark;
        }
        consecutiveFailed++;
        if (consecutiveFailed > MAX_CONSECUTIVE_FAILURES && blockWeight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > settings.maxBlockWeight) break;
        continue;
      }
      consecutiveFailed = 0;

      // The package: the candidate and its ancestors not in a block yet (ancestors of a projected transaction are all projected).
      const mark = ++epoch;
      const pkg = ++packageId;
      let packageLength = 0;
      let top = 0;
      stack[top++] = candidate;
      reached[candidate] = mark;
      while (top > 0) {
        const tx = stack[--top]!;
        packageTxs[packageLength] = tx;
        // SortForBlock orders by the mempool's ancestor count, as it stood when the block started.
        packageCounts[packageLength++] = touchedIn[tx] === blockMark ? startCount[tx]! : ancestorCount[tx]!;
        packageMark[tx] = pkg;
        for (let e = parentStart[tx]!; e < parentStart[tx + 1]!; e++) {
          const p = parents[e]!;
          if (reached[p] !== mark && blockIndex[p] === -1) {
            reached[p] = mark;
            stack[top++] = p;
          }
        }
      }
      sortForBlock(packageTxs, packageCounts, packageLength, txidOrder);

      const rate = packageFee / packageSize;
      for (let k = 0; k < packageLength; k++) {
        const tx = packageTxs[k]!;
        blockIndex[tx] = b;
        modHeap.remove(tx);
        order[projected++] = tx;
        blockVsize += vsize[tx]!;
        positionVsize[tx] = blockVsize;
        functionalRate[tx] = rate;
        blockWeight += weight[tx]!;
        blockTxWeight += weight[tx]!;
        blockSigops += sigops[tx]!;
        blockFees += fee[tx]!;
      }
      packagesSelected++;

      // UpdatePackagesForAdded: every descendant of every package member,
      // once per member, loses that member from its ancestor state.
      for (let k = 0; k < packageLength; k++) {
        const added = packageTxs[k]!;
        const addedFee = modifiedFee[added]!;
        const addedSize = vsize[added]!;
        const addedSigops = sigops[added]!;
        const walk = ++epoch;
        top = 0;
        for (let e = childStart[added]!; e < childStart[added + 1]!; e++) {
          const c = children[e]!;
          reached[c] = walk;
          stack[top++] = c;
        }
        while (top > 0) {
          const d = stack[--top]!;
          for (let e = childStart[d]!; e < childStart[d + 1]!; e++) {
            const c = children[e]!;
            if (reached[c] !== walk) {
              reached[c] = walk;
              stack[top++] = c;
            }
          }
          if (packageMark[d] === pkg) continue;
          descendantsUpdated++;
          if (touchedIn[d] !== blockMark) {
            touchedIn[d] = blockMark;
            touched[touchedCount++] = d;
            startFee[d] = ancestorFee[d]!;
            startSize[d] = ancestorSize[d]!;
            startSigops[d] = ancestorSigops[d]!;
            startCount[d] = ancestorCount[d]!;
          }
          ancestorFee[d]! -= addedFee;
          ancestorSize[d]! -= addedSize;
          ancestorSigops[d]! -= addedSigops;
          ancestorCount[d]!--;
          const fresh = !modHeap.has(d);
          if (fresh) {
            // A new modified entry starts from the block-start (mapTx) state, as CTxMemPoolModifiedEntry(desc) does.
            modFee[d] = startFee[d]!;
            modSize[d] = startSize[d]!;
            modSigops[d] = startSigops[d]!;
          }
          modFee[d]! -= addedFee;
          modSize[d]! -= addedSize;
          modSigops[d]! -= addedSigops;
          setAncestorScore(modOrder, d, modifiedFee[d]!, vsize[d]!, modFee[d]!, modSize[d]!);
          if (fresh) modHeap.push(d);
          else modHeap.update(d);
        }
      }
    }

    const txCount = projected - orderStart;
    if (txCount === 0) break; // nothing left fits or pays enough: later blocks would be empty too
    const rates = pool.float64('assemble.rates', txCount);
    for (let k = 0; k < txCount; k++) rates[k] = functionalRate[order[orderStart + k]!]!;
    blocks.push({ orderStart, txCount, weight: blockTxWeight, vsize: blockVsize, fees: blockFees, minFeeRate: minOf(rates), maxFeeRate: maxOf(rates), medianFeeRate: median(rates) });

    // The next block's mapTx: the touched and still left re-scored, merged into the re-scored run.
    remaining -= txCount;
    let changedCount = 0;
    for (let k = 0; k < touchedCount; k++) {
      const tx = touched[k]!;
      if (blockIndex[tx] !== -1) continue;
      setAncestorScore(mainOrder, tx, modifiedFee[tx]!, vsize[tx]!, ancestorFee[tx]!, ancestorSize[tx]!);
      rescoredFlag[tx] = 1;
      touched[changedCount++] = tx;
    }
    let keptCount = 0;
    for (let k = 0; k < rescored.length; k++) {
      const tx = rescored[k]!;
      if (blockIndex[tx] === -1 && touchedIn[tx] !== blockMark) keptBuffer[keptCount++] = tx;
    }
    const changed = touched.subarray(0, changedCount);
    sortByScore(changed, mainOrder, pool);
    const merged = spareBuffer.subarray(0, keptCount + changedCount);
    mergeByScore(keptBuffer.subarray(0, keptCount), changed, merged, mainOrder);
    [rescoredBuffer, spareBuffer] = [spareBuffer, rescoredBuffer];
    rescored = merged;
  }
  modHeap.clear();

  return unlabel(graph, { blocks, blockIndex, positionVsize, functionalRate, order, projectedCount: projected, packagesSelected, descendantsUpdated });
}

/**
 * SortForBlock (node/miner.cpp): by ancestor count, then txid
 * (CompareTxIterByAncestorCount). A parent has fewer ancestors than its
 * child, so parents come first. Packages are small: insertion sort.
 */
function sortForBlock(txs: Int32Array, counts: Int32Array, length: number, txidOrder: TxidOrder): void {
  for (let k = 1; k < length; k++) {
    const tx = txs[k]!;
    const c = counts[k]!;
    let at = k;
    while (at > 0) {
      const prev = txs[at - 1]!;
      const pc = counts[at - 1]!;
      if (pc < c || (pc === c && txidOrder.less(prev, tx))) break;
      txs[at] = prev;
      counts[at] = pc;
      at--;
    }
    txs[at] = tx;
    counts[at] = c;
  }
}

/** The projection by label, re-indexed by snapshot index, in fresh arrays (they are handed over, e.g. transferred to another thread). */
function unlabel(graph: LabelledMempool, byLabel: BlockProjection): BlockProjection {
  const n = graph.count;
  const snapshotIndex = graph.snapshotIndex;
  const blockIndex = new Int16Array(n);
  const positionVsize = new Float64Array(n);
  const functionalRate = new Float64Array(n);
  for (let l = 0; l < n; l++) {
    const i = snapshotIndex[l]!;
    blockIndex[i] = byLabel.blockIndex[l]!;
    positionVsize[i] = byLabel.positionVsize[l]!;
    functionalRate[i] = byLabel.functionalRate[l]!;
  }
  const order = new Int32Array(byLabel.projectedCount);
  for (let k = 0; k < order.length; k++) order[k] = snapshotIndex[byLabel.order[k]!]!;
  return { ...byLabel, blockIndex, positionVsize, functionalRate, order };
}
