import type { MempoolReader } from '@slipstream/mempool-engine';

/**
 * The rate to beat, from the mempool engine's projection of the pool's next
 * block (mempool-engine/src/mempool-engine.ts): the lowest functional (package) rate
 * in projected block 0 when it is full, else the node's minimum to enter its
 * mempool. The engine re-projects on every mempool change, so reading it
 * costs a request nothing; it replaces the node's getblocktemplate, which
 * was heavy enough to need a shared, seconds-old cache.
 */

export interface MarketSnapshot {
  /** Lowest fee rate (sat/vB) that makes the next block, or the relay minimum when it is not full. */
  marketRate: number;
  /** The node's current minimum to enter its mempool (sat/vB). */
  minRelayRate: number;
  nextBlockFull: boolean;
  /** Height of the next block (tip + 1). */
  height: number;
  /** When the projection behind it was published (Unix ms). */
  takenAt: number;
}

export interface MarketRateSource {
  snapshot(): Promise<MarketSnapshot>;
}

export function createEngineMarketSource(mempool: Pick<MempoolReader, 'view'>): MarketRateSource {
  return {
    async snapshot() {
      const view = await mempool.view();
      return {
        marketRate: view.marketRate,
        minRelayRate: view.minRelayRate,
        nextBlockFull: view.nextBlockFull,
        height: view.tip.height + 1,
        takenAt: view.updatedAtMs,
      };
    },
  };
}
