import { CORE_ASSEMBLER_DEFAULTS, MAX_BLOCK_SIGOPS_COST, type BlockAssemblerOptions, type ProjectedBlock } from '../projection/block-assembler.ts';
import type { RelayRates } from '../feed/mirror-sync.ts';

/**
 * The rate to beat (`market_rate`): what a transaction must pay to be in the
 * pool's next block.
 *
 * - Block 0 full: the lowest functional rate projected block 0 took, i.e.
 *   the package rate (modified fees, sigop-adjusted vsize) at which the
 *   node's block assembly (node/miner.cpp addPackageTxs) took its last
 *   package. Not the lowest own rate: a 1 sat/vB parent a rich child pulls
 *   in (child pays for parent) is in the block at the pair's rate.
 * - Otherwise the node's minimum to enter its mempool, the larger of
 *   -minrelaytxfee and the mempool's own minimum (which rises when the
 *   mempool is full, CTxMemPool::GetMinFee): anything the node accepts fits.
 *
 * "Full" is what the node's template would show: something was left for
 * block 1, and block 0 holds at least 99% of the weight it may (the block
 * maximum less the coinbase's reserve), or of the sigop cost it may
 * (80,000 less the coinbase's 400: sigop-heavy transactions fill a block
 * that way long before its weight). A block left short only because the
 * transactions left were too big still takes a small one at the relay
 * minimum.
 */

export const FULL_BLOCK_FRACTION = 0.99;

export interface RateToBeat {
  marketRate: number;
  minRelayRate: number;
  nextBlockFull: boolean;
}

export function rateToBeat(blocks: readonly Pick<ProjectedBlock, 'weight' | 'sigops' | 'minFeeRate'>[], relay: RelayRates, assembler: BlockAssemblerOptions = {}): RateToBeat {
  const { maxBlockWeight, reservedWeight, coinbaseSigops } = { ...CORE_ASSEMBLER_DEFAULTS, ...assembler };
  const minRelayRate = Math.max(relay.minRelayRate, relay.mempoolMinRate);
  const first = blocks[0];
  const full = first !== undefined && (first.weight >= (maxBlockWeight - reservedWeight) * FULL_BLOCK_FRACTION || first.sigops >= (MAX_BLOCK_SIGOPS_COST - coinbaseSigops) * FULL_BLOCK_FRACTION);
  const nextBlockFull = full && blocks.length > 1;
  return { marketRate: nextBlockFull ? Math.max(first.minFeeRate, minRelayRate) : minRelayRate, minRelayRate, nextBlockFull };
}
