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
  invalidate(): void;
}

interface TemplateTx {
  txid: string;
  fee: number;
  weight: number;
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

export function summariseTemplate(template: BlockTemplate, mempool: MempoolInfo, takenAt: number): MarketSnapshot {
  const minRelayRate = Math.max(btcPerKvbToSatPerVb(mempool.minrelaytxfee), btcPerKvbToSatPerVb(mempool.mempoolminfee));
  let weight = 0;
  let lowest = Number.POSITIVE_INFINITY;
  for (const tx of template.transactions) {
    weight += tx.weight;
    lowest = Math.min(lowest, tx.fee / Math.ceil(tx.weight / 4));
  }
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
    invalidate() {
      cached = undefined;
    },
  };
}
