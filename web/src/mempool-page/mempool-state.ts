import type { paths } from '../api/schema.d.ts';

/**
 * What GET /mempool/api/state answers and every `state` event of
 * /mempool/api/stream carries (the engine's MempoolDashboardState), from the
 * generated API types. Rates are sat/vB; fees integer satoshis; times Unix
 * seconds unless named Ms.
 */
export type MempoolDashboardState = paths['/mempool/api/state']['get']['responses'][200]['content']['application/json'];
export type ProjectedBlockSummary = MempoolDashboardState['projectedBlocks'][number];
export type FeeHistogramBucket = MempoolDashboardState['histogram'][number];
export type MinedBlockSummary = MempoolDashboardState['recentBlocks'][number];
