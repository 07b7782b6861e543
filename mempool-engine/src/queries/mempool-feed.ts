/**
 * What the /mempool/ dashboard shows, as the mempool engine publishes it: the
 * projected blocks, a fee-rate histogram, the latest mined blocks with the
 * pool's own marked, and the pool's block share. One state object, replaced
 * whole on every update, so a late subscriber needs nothing but the latest.
 * Rates are sat/vB; fees integer satoshis; times Unix seconds unless named Ms.
 */

export interface ProjectedBlockSummary {
  /** 0 = the next block the pool would build. */
  index: number;
  txCount: number;
  weight: number;
  vsize: number;
  totalFees: number;
  minRate: number;
  maxRate: number;
  medianRate: number;
}

export interface FeeHistogramBucket {
  /** Lower bound of the bucket (sat/vB); the bucket runs to the next bucket's bound. */
  minRate: number;
  txCount: number;
  vsize: number;
}

export interface MinedBlockSummary {
  height: number;
  hash: string;
  time: number;
  txCount: number;
  /** Mined by this pool (recognised by its coinbase tag or payout addresses). */
  ours: boolean;
}

export interface MempoolDashboardState {
  network: string;
  /** When the engine last updated (Unix ms). */
  updatedAtMs: number;
  /** How far the mirror trails the node (ms), as the engine measures it. */
  lagMs: number;
  mempool: { txCount: number; vsize: number; totalFees: number };
  projectedBlocks: ProjectedBlockSummary[];
  histogram: FeeHistogramBucket[];
  /** Newest first. */
  recentBlocks: MinedBlockSummary[];
  poolShare: {
    /** Percent of the last 144 blocks that are ours. */
    last24h: number | null;
    /** Percent of the last 1,008 blocks that are ours. */
    last7d: number | null;
    /** 600 s divided by the 24-hour share; null when the pool mined none. */
    expectedNextBlockSeconds: number | null;
  };
}

export interface MempoolFeed {
  /** The latest state, or null before the first projection. */
  current(): MempoolDashboardState | null;
  /** Called with every new state; returns the unsubscribe function. */
  subscribe(listener: (state: MempoolDashboardState) => void): () => void;
}
