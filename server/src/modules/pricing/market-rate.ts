import type { RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Clock } from '../../lib/clock.ts';
import { MAX_BLOCK_WEIGHT } from '../../bitcoin/tx-codec.ts';

/**
 * The rate to beat, from the node's own next-block template.
 *
 * getblocktemplate is the node's block-assembly answer, but it is heavy (it
 * returns every selected transaction), so one snapshot is shared by all
 * requests for a few seconds and concurrent callers wait on the same fetch.
 * The mempool engine replaces this source with its own projection.
 */

export interface MarketSnapshot {
  /** Lowest fee rate (sat/vB) that makes the next block, or the relay minimum when it is not full. */
  marketRate: number;
  /** The node's current minimum to enter its mempool (sat/vB). */
  minRelayRate: number;
  nextBlockFull: boolean;
  nextBlockTxids: ReadonlySet<string>;
  /** Height of the block being templated (tip + 1). */
  height: number;
  takenAt: number;
}

export interface MarketRateSource {
  snapshot(): Promise<MarketSnapshot>;
}

interface TemplateTx {
  txid: string;
  /** Satoshis: the base fee, not a prioritisetransaction-modified one. */
  fee: number;
  weight: number;
  /** Sigop cost (BIP141 units). getblocktemplate always sends it; absent counts as 0. */
  sigops?: number;
  /** 1-based indices of the template transactions this one spends. getblocktemplate always sends it; absent counts as none. */
  depends?: number[];
}

interface BlockTemplate {
  height: number;
  transactions: TemplateTx[];
}

interface MempoolInfo {
  size: number;
  minrelaytxfee: number;
  mempoolminfee: number;
}

/** Bitcoin Core reserves this much weight for the coinbase when assembling (-blockreservedweight default). */
const COINBASE_RESERVED_WEIGHT = 8_000;

/** BTC per kvB, as the node reports rates, to sat/vB. Rounded through integer sat/kvB to shed float noise. */
export function btcPerKvbToSatPerVb(btcPerKvb: number): number {
  return Math.round(btcPerKvb * 1e8) / 1000;
}

/**
 * Bitcoin Core's -bytespersigop default (policy/policy.h DEFAULT_BYTES_PER_SIGOP):
 * the node charges a sigop-heavy transaction for this many bytes per sigop.
 */
const BYTES_PER_SIGOP = 20;

/**
 * The virtual size the node's block assembler sees: GetVirtualTransactionSize
 * (policy/policy.cpp) with -bytespersigop 20, ceil(max(weight, sigop cost × 20) / 4).
 * A transaction with many sigops is as expensive to mine as its sigops, not its bytes.
 */
function sigopAdjustedVsize(tx: TemplateTx): number {
  return Math.ceil(Math.max(tx.weight, (tx.sigops ?? 0) * BYTES_PER_SIGOP) / 4);
}

/**
 * The rate each template transaction was effectively mined at.
 *
 * The node assembles blocks by ancestor-package score (node/miner.cpp,
 * addPackageTxs), not by each transaction's own rate: a 1 sat/vB parent
 * pulled in by a 100 sat/vB child (child pays for parent) is in the block at
 * the package's rate. So, per transaction:
 * - its ancestor package is itself plus its in-template ancestors, found
 *   transitively through `depends`; its package rate is the package's fees
 *   over its sigop-adjusted vsize;
 * - its effective rate is the highest package rate among itself and its
 *   in-template descendants: a parent is mined at the rate its best
 *   descendant's package lifts it to, and a low child of a high parent at its
 *   own package rate.
 *
 * Cost: package totals are memoised in topological order; a transaction
 * with one parent adds its own to the parent's totals, and only one with
 * several parents walks its in-template ancestry (with a stamp array instead
 * of per-transaction sets, so memory stays O(n)). That is O(n) for chains
 * and trees and O(n · depth) at worst; then one memoised pass over children
 * in reverse topological order gives the effective rates. Nothing recurses
 * and nothing relies on the node's ancestor limits (25 by default) for
 * correctness: a deeper template is at worst slower, never wrong or a stack
 * overflow.
 *
 * Returned in template order; exported for tests and the mempool engine.
 *
 * Known gaps, for the mempool engine (a later issue) to close:
 * - getblocktemplate reports base fees, so a transaction the pool prioritised
 *   with prioritisetransaction still looks as cheap as it paid; the engine
 *   will use modified fees.
 * - The assembler re-scores a package once some of its ancestors went into
 *   the block with an earlier package (node/miner.cpp, UpdatePackagesForAdded);
 *   this counts every in-template ancestor every time, so a child of two
 *   parents, or the second child of a shared parent, can be scored above or
 *   below the score the node actually selected it at.
 */
export function effectiveRates(transactions: readonly TemplateTx[]): Float64Array {
  const n = transactions.length;
  const parents: number[][] = [];
  const children: number[][] = Array.from({ length: n }, () => []);
  const indegree = new Int32Array(n);
  transactions.forEach((tx, i) => {
    const own = [...new Set(tx.depends ?? [])].map((ref) => {
      if (!Number.isInteger(ref) || ref < 1 || ref > n || ref === i + 1) {
        throw new Error(`Block template transaction ${i + 1} (${tx.txid}) depends on ${ref}, which is not another transaction of the template`);
      }
      children[ref - 1]!.push(i);
      return ref - 1;
    });
    parents.push(own);
    indegree[i] = own.length;
  });

  // Kahn's topological order: getblocktemplate lists parents first, but a
  // malformed template must fail loudly, not price from a partial walk.
  const order: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) order.push(i);
  for (let k = 0; k < order.length; k++) {
    for (const child of children[order[k]!]!) {
      indegree[child] = indegree[child]! - 1;
      if (indegree[child] === 0) order.push(child);
    }
  }
  if (order.length < n) throw new Error('Block template transactions depend on each other in a cycle');

  const vsize = transactions.map(sigopAdjustedVsize);
  const packageFee = new Float64Array(n);
  const packageVsize = new Float64Array(n);
  // seen[a] === i + 1 marks ancestor a as already counted for transaction i.
  const seen = new Int32Array(n);
  const stack: number[] = [];
  const effective = new Float64Array(n);
  for (const i of order) {
    const own = parents[i]!;
    let fee = transactions[i]!.fee;
    let size = vsize[i]!;
    if (own.length === 1) {
      // One parent: the ancestors are that parent's package, disjoint from
      // the transaction itself, so the memoised totals add up exactly.
      fee += packageFee[own[0]!]!;
      size += packageVsize[own[0]!]!;
    } else if (own.length > 1) {
      // Several parents may share ancestors (a diamond): walk and count each once.
      seen[i] = i + 1;
      stack.push(...own);
      while (stack.length > 0) {
        const a = stack.pop()!;
        if (seen[a] === i + 1) continue;
        seen[a] = i + 1;
        fee += transactions[a]!.fee;
        size += vsize[a]!;
        for (const p of parents[a]!) if (seen[p] !== i + 1) stack.push(p);
      }
    }
    packageFee[i] = fee;
    packageVsize[i] = size;
    effective[i] = fee / size;
  }
  // Children before parents: each child's effective rate already covers its own descendants.
  for (let k = n - 1; k >= 0; k--) {
    const i = order[k]!;
    for (const child of children[i]!) effective[i] = Math.max(effective[i]!, effective[child]!);
  }
  return effective;
}

export function summariseTemplate(template: BlockTemplate, mempool: MempoolInfo, takenAt: number): MarketSnapshot {
  const minRelayRate = Math.max(btcPerKvbToSatPerVb(mempool.minrelaytxfee), btcPerKvbToSatPerVb(mempool.mempoolminfee));
  let weight = 0;
  for (const tx of template.transactions) weight += tx.weight;
  // The rate to beat is the lowest effective (package) rate the node mined,
  // not the lowest own rate: a CPFP parent's own rate would collapse it.
  let lowest = Number.POSITIVE_INFINITY;
  for (const rate of effectiveRates(template.transactions)) lowest = Math.min(lowest, rate);
  // Full: the node left transactions out, and had no room left for them. A
  // template that left some out while half empty did so for other reasons
  // (timelocks, the block minimum fee), so the relay minimum still buys a place.
  const leftSomeOut = template.transactions.length < mempool.size;
  const nearlyFull = weight >= (MAX_BLOCK_WEIGHT - COINBASE_RESERVED_WEIGHT) * 0.99;
  const nextBlockFull = leftSomeOut && nearlyFull && Number.isFinite(lowest);
  return {
    marketRate: nextBlockFull ? Math.max(lowest, minRelayRate) : minRelayRate,
    minRelayRate,
    nextBlockFull,
    nextBlockTxids: new Set(template.transactions.map((t) => t.txid)),
    height: template.height,
    takenAt,
  };
}

export interface MarketSourceOptions {
  /** A snapshot younger than this is served as it is. */
  ttlMs?: number;
  /**
   * An older one, up to this age, is still served while a refresh runs in the
   * background, so requests never wait on the node's block assembly; past it,
   * requests wait for a fresh one. 0 makes every request wait (tests).
   */
  maxStaleMs?: number;
  onRefreshError?: (error: unknown) => void;
}

export function createTemplateMarketSource(rpc: RpcClient, clock: Clock, options: MarketSourceOptions = {}): MarketRateSource {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxStaleMs = options.maxStaleMs ?? 60_000;
  let cached: MarketSnapshot | undefined;
  let inflight: Promise<MarketSnapshot> | undefined;

  async function fetchSnapshot(): Promise<MarketSnapshot> {
    const [template, mempool] = await Promise.all([
      rpc.call<BlockTemplate>('getblocktemplate', [{ rules: ['segwit'] }]),
      rpc.call<MempoolInfo>('getmempoolinfo'),
    ]);
    return summariseTemplate(template, mempool, clock.now().getTime());
  }

  /** One fetch at a time, shared by everyone who asks while it runs. */
  function refresh(): Promise<MarketSnapshot> {
    inflight ??= fetchSnapshot()
      .then((snapshot) => {
        cached = snapshot;
        return snapshot;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  }

  return {
    async snapshot() {
      const age = cached ? clock.now().getTime() - cached.takenAt : Number.POSITIVE_INFINITY;
      if (cached && age < ttlMs) return cached;
      if (cached && age < maxStaleMs) {
        refresh().catch((error: unknown) => options.onRefreshError?.(error));
        return cached;
      }
      return refresh();
    },
  };
}
