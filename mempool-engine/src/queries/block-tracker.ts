import type { Logger } from '../logger.ts';
import type { RpcCaller } from '../rpc-caller.ts';
import { blockTxids, holdsKey, txidKey, type BlockTxids } from './block-txids.ts';
import type { MinedBlockSummary } from './mempool-feed.ts';

/**
 * The last 1,008 blocks of the node's chain (a week at one block per ten
 * minutes), each with what identifies its miner: the pool's share over the
 * last 144 blocks (a day) and 1,008, and the latest blocks for the dashboard.
 *
 * Blocks are read once and kept by hash: a new tip that extends the window
 * costs one block; anything else (several blocks at once, a reorganisation)
 * re-reads the window's hashes by height (one batch of getblockhash) and
 * fetches only the hashes not held. A reorganisation thus replaces exactly the
 * blocks it replaced. Fetching a block is getblock (verbosity 1: header and
 * txids, the first being the coinbase's) and getrawtransaction of the
 * coinbase with its block hash (no -txindex needed), a few blocks per batch.
 *
 * The txids getblock lists are kept too, compactly (block-txids.ts: 8 bytes
 * a transaction, about 28 MB for a mainnet week), so that the status of a
 * txid the portal never recorded is answered from the blocks followed here:
 * which of them holds it, with no node call (holding()). The index follows
 * the window: a block that leaves it, by age or by a reorganisation, takes
 * its txids with it.
 */

export interface CoinbaseInfo {
  /** The coinbase input's scriptSig (BIP 34 height, extranonce, the pool's tag). */
  scriptSig: Buffer;
  /** Addresses the coinbase outputs pay (outputs without an address, e.g. the witness commitment, are left out). */
  addresses: readonly string[];
}

/**
 * Whether a coinbase is the pool's; undefined when nothing identifies the
 * pool's blocks. The server makes it from the pool's settings
 * (server/src/modules/settings/pool-identity.ts).
 */
export type PoolRecogniser = ((coinbase: CoinbaseInfo) => boolean) | undefined;

export interface TrackedBlock {
  hash: string;
  height: number;
  time: number;
  txCount: number;
  coinbase: CoinbaseInfo;
  /** Its transactions' ids (block-txids.ts). */
  txids: BlockTxids;
}

export interface PoolOdds {
  /** Percent of the last 144 blocks that are the pool's; null when unknown. */
  last24h: number | null;
  /** Percent of the last 1,008 blocks. */
  last7d: number | null;
  /** 600 s ÷ the 24-hour share: the expected wait for the pool's next block; null when the share is 0 or unknown. */
  expectedNextBlockSeconds: number | null;
  /** Newest first. */
  recentBlocks: MinedBlockSummary[];
  /** Why the odds are unknown (null) when they are; null otherwise. */
  note: string | null;
}

/** The odds are unknown because nothing says which blocks are the pool's (no PoolRecogniser). */
export const ODDS_UNIDENTIFIED_NOTE =
  "Unknown: the pool's blocks cannot be recognised until staff set the Pool Coinbase Tag or the Pool Payout Addresses.";
/** The odds are unknown because the tracker has not read a day's blocks yet. */
export const ODDS_COUNTING_NOTE = "Unknown for now: the pool's recent blocks are still being counted.";

export interface BlockTrackerOptions {
  rpc: RpcCaller;
  log: Logger;
  /** Blocks kept (default 1,008). */
  windowSize?: number;
  /** Blocks in recentBlocks (default 10). */
  recentCount?: number;
  /** Blocks fetched per batch (default 10: a mainnet block's txid list is some 200 kB of JSON). */
  fetchBatch?: number;
}

export interface BlockTracker {
  /** Brings the window to this tip (one refresh at a time; the latest tip asked for wins). */
  follow(tip: { hash: string; height: number }): Promise<void>;
  /** The window, newest first. */
  blocks(): readonly TrackedBlock[];
  odds(recogniser: PoolRecogniser): PoolOdds;
  /** The block of the window that holds `txid`, by its first 52 bits (confirm with the node, in that block); undefined when none does. No node call. */
  holding(txid: string): { hash: string; height: number } | undefined;
  /** What the txid index holds: txids, and the bytes of their keys. */
  indexed(): { txids: number; bytes: number };
}

export const DAY_BLOCKS = 144;
export const WEEK_BLOCKS = 1_008;
/** Bitcoin's target spacing between blocks (consensus nPowTargetSpacing). */
export const TARGET_BLOCK_SECONDS = 600;

interface RawBlock {
  hash: string;
  height: number;
  time: number;
  nTx: number;
  previousblockhash?: string;
  tx: string[];
}

interface RawCoinbase {
  vin: Array<{ coinbase?: string }>;
  vout: Array<{ scriptPubKey: { address?: string } }>;
}

export function createBlockTracker(options: BlockTrackerOptions): BlockTracker {
  const { rpc, log } = options;
  const windowSize = options.windowSize ?? WEEK_BLOCKS;
  const recentCount = options.recentCount ?? 10;
  const fetchBatch = options.fetchBatch ?? 10;
  const cache = new Map<string, TrackedBlock>();
  let window: TrackedBlock[] = [];
  /** The window holds every block from its tip back to its start (min(windowSize, tip height + 1) of them). */
  let complete = false;
  let wanted: { hash: string; height: number } | undefined;
  let running: Promise<void> | undefined;

  async function fetchBlocks(hashes: readonly string[]): Promise<void> {
    for (let start = 0; start < hashes.length; start += fetchBatch) {
      const chunk = hashes.slice(start, start + fetchBatch);
      const blocks = await rpc.batch<RawBlock>(chunk.map((hash) => ({ method: 'getblock', params: [hash, 1] })));
      const found = blocks.flatMap((b) => (b.ok ? [b.result] : []));
      const coinbases = await rpc.batch<RawCoinbase>(found.map((b) => ({ method: 'getrawtransaction', params: [b.tx[0], 1, b.hash] })));
      found.forEach((block, i) => {
        const coinbase = coinbases[i];
        // The genesis coinbase is not a transaction the node will return (it is not in the UTXO set or
        // any index); it is nobody's block here. Any other failure leaves the block to the next refresh.
        if (!coinbase?.ok && block.height !== 0) return;
        const tx = coinbase?.ok ? coinbase.result : { vin: [], vout: [] };
        cache.set(block.hash, {
          hash: block.hash,
          height: block.height,
          time: block.time,
          txCount: block.nTx,
          txids: blockTxids(block.tx),
          coinbase: {
            scriptSig: Buffer.from(tx.vin[0]?.coinbase ?? '', 'hex'),
            addresses: tx.vout.flatMap((o) => (o.scriptPubKey.address ? [o.scriptPubKey.address] : [])),
          },
        });
      });
    }
  }

  async function refresh(tip: { hash: string; height: number }): Promise<void> {
    if (window[0]?.hash === tip.hash && complete) return;
    const expected = Math.min(windowSize, tip.height + 1);
    // The usual case: one new block on top of the window.
    if (complete && window[0] && tip.height === window[0].height + 1) {
      await fetchBlocks([tip.hash]);
      const block = cache.get(tip.hash);
      const header = block ? await rpc.call<{ previousblockhash?: string }>('getblockheader', [tip.hash]) : undefined;
      if (block && header?.previousblockhash === window[0].hash) {
        window = [block, ...window].slice(0, expected);
        prune();
        return;
      }
    }
    const low = tip.height - expected + 1;
    const hashes: string[] = [];
    for (let start = low; start <= tip.height; start += 1_000) {
      const heights = Array.from({ length: Math.min(1_000, tip.height + 1 - start) }, (_, i) => start + i);
      const replies = await rpc.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
      for (const reply of replies) if (reply.ok) hashes.push(reply.result);
    }
    await fetchBlocks(hashes.filter((hash) => !cache.has(hash)));
    const next = hashes.map((hash) => cache.get(hash)).filter((b): b is TrackedBlock => b !== undefined).reverse();
    complete = next.length === expected;
    window = next;
    prune();
  }

  function prune(): void {
    if (cache.size <= window.length + 64) return;
    const keep = new Set(window.map((b) => b.hash));
    for (const hash of cache.keys()) if (!keep.has(hash)) cache.delete(hash);
  }

  async function loop(): Promise<void> {
    for (let tip = wanted; tip && (tip.hash !== window[0]?.hash || !complete); tip = wanted) {
      try {
        await refresh(tip);
      } catch (error) {
        log.warn({ err: (error as Error).message }, 'block tracker: reading recent blocks failed');
        return;
      }
      if (wanted === tip) break;
    }
  }

  const share = (recogniser: (c: CoinbaseInfo) => boolean, blocks: readonly TrackedBlock[]): number => {
    let ours = 0;
    for (const block of blocks) if (recogniser(block.coinbase)) ours++;
    // Hundredths of a percent: enough for a share, without float tails in the API.
    return Math.round((10_000 * ours) / blocks.length) / 100;
  };

  return {
    follow(tip) {
      wanted = tip;
      running ??= loop().finally(() => {
        running = undefined;
      });
      return running;
    },
    blocks: () => window,
    holding(txid) {
      const key = txidKey(txid);
      if (key === undefined) return undefined;
      // Newest first; at most 1,008 bisections of a few thousand keys each.
      for (const block of window) if (holdsKey(block.txids, key)) return { hash: block.hash, height: block.height };
      return undefined;
    },
    indexed() {
      let txids = 0;
      for (const block of window) txids += block.txids.length;
      return { txids, bytes: txids * Float64Array.BYTES_PER_ELEMENT };
    },
    odds(recogniser) {
      const recentBlocks = window.slice(0, recentCount).map((b) => ({ height: b.height, hash: b.hash, time: b.time, txCount: b.txCount, ours: recogniser?.(b.coinbase) ?? false }));
      const tip = window[0];
      if (!recogniser) return { last24h: null, last7d: null, expectedNextBlockSeconds: null, recentBlocks, note: ODDS_UNIDENTIFIED_NOTE };
      if (!tip || !complete) return { last24h: null, last7d: null, expectedNextBlockSeconds: null, recentBlocks, note: ODDS_COUNTING_NOTE };
      // A chain younger than a day or a week (regtest) is judged on the blocks it has.
      const last24h = share(recogniser, window.slice(0, Math.min(DAY_BLOCKS, tip.height + 1)));
      const last7d = share(recogniser, window.slice(0, Math.min(WEEK_BLOCKS, tip.height + 1)));
      return {
        last24h,
        last7d,
        expectedNextBlockSeconds: last24h > 0 ? Math.round(TARGET_BLOCK_SECONDS / (last24h / 100)) : null,
        recentBlocks,
        note: null,
      };
    },
  };
}
