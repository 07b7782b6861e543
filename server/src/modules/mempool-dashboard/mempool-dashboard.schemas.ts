import { Type, type Static } from 'typebox';
import type { MempoolDashboardState } from '@slipstream/mempool-engine/queries/mempool-feed';

/**
 * Wire shape of the /mempool/ dashboard: the engine's MempoolDashboardState
 * (mempool-engine/src/queries/mempool-feed.ts), field for field. The type check at the
 * bottom fails the build when the two drift apart.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const SatPerVb = (description: string) => Type.Number({ minimum: 0, description: `${description} (sat/vB)` });

export const ProjectedBlockSummary = Type.Object({
  index: Type.Integer({ minimum: 0, description: '0 = the next block the pool would build' }),
  txCount: Type.Integer({ minimum: 0 }),
  weight: Type.Integer({ minimum: 0, description: 'weight units; a full block is 4,000,000' }),
  vsize: Type.Integer({ minimum: 0 }),
  totalFees: Type.Integer({ minimum: 0, description: 'sats' }),
  minRate: SatPerVb('Lowest fee rate in the block'),
  maxRate: SatPerVb('Highest fee rate in the block'),
  medianRate: SatPerVb('Median fee rate in the block'),
});

export const FeeHistogramBucket = Type.Object({
  minRate: SatPerVb("Lower bound of the bucket; it runs to the next bucket's bound"),
  txCount: Type.Integer({ minimum: 0 }),
  vsize: Type.Integer({ minimum: 0 }),
});

export const MinedBlockSummary = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  hash: Type.String(),
  time: Type.Integer({ description: 'Unix seconds (block header time)' }),
  txCount: Type.Integer({ minimum: 0 }),
  ours: Type.Boolean({ description: 'Mined by this pool (recognised by its coinbase tag or payout addresses)' }),
});

export const MempoolStateResponse = Type.Object({
  network: Type.String({ description: "The node's network: mainnet, testnet, testnet4, signet or regtest" }),
  updatedAtMs: Type.Number({ description: 'When the engine last updated (Unix ms)' }),
  lagMs: Type.Number({ minimum: 0, description: 'How far the mirror trails the node (ms)' }),
  mempool: Type.Object({
    txCount: Type.Integer({ minimum: 0 }),
    vsize: Type.Integer({ minimum: 0 }),
    totalFees: Type.Integer({ minimum: 0, description: 'sats' }),
  }),
  projectedBlocks: Type.Array(ProjectedBlockSummary, { description: 'The next blocks the pool would build, in order' }),
  histogram: Type.Array(FeeHistogramBucket, { description: 'The mempool by fee rate, ascending bounds' }),
  recentBlocks: Type.Array(MinedBlockSummary, { description: 'The latest mined blocks, newest first' }),
  poolShare: Type.Object({
    last24h: Nullable(Type.Number({ description: 'Percent of the last 144 blocks that are ours' })),
    last7d: Nullable(Type.Number({ description: 'Percent of the last 1,008 blocks that are ours' })),
    expectedNextBlockSeconds: Nullable(Type.Number({ description: '600 s divided by the 24-hour share; null when the pool mined none' })),
  }),
});
export type MempoolStateResponse = Static<typeof MempoolStateResponse>;

// The schema and the engine's contract are the same shape, both ways round.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameShape: Same<MempoolStateResponse, MempoolDashboardState> = true;
