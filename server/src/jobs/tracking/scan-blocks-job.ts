import { RpcCode, RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { jobDone, runAgainAfter, type JobHandler } from '../job-runner.ts';
import { acceptPending, confirmInBlock, oldestOpenSubmission, readCursor, stalePending, unconfirmBlock, writeCursor, type Cursor } from '../../modules/submission/submission-outcomes.repository.ts';

/**
 * Compares every new block's transactions with the tracked ones, in chain
 * order, from where the last scan stopped (tracker_cursor): confirmations
 * are found from the blocks themselves, so a node without -txindex serves as
 * well, and blocks mined while the server was down are not missed. A block
 * that left the main chain (a reorg) reopens what it had confirmed. One job
 * key ('scan-blocks'), so one instance scans at a time.
 *
 * Each run also settles submissions left 'pending' by a server that stopped
 * mid-request (see acceptPending).
 */

export interface ScanBlocksDeps {
  db: Database;
  rpc: RpcClient;
  log: Logger;
  /** Blocks per run before giving others a turn (default 50). */
  batchBlocks?: number;
  /** A pending row older than this belongs to no live request (default 2 min, beyond any RPC timeout). */
  pendingAfterMs?: number;
}

interface BlockHeader {
  hash: string;
  height: number;
  time: number;
  confirmations: number;
  previousblockhash?: string;
}

/** How far back a first scan looks for blocks that could hold transactions tracked before it (one week of blocks). */
const FIRST_SCAN_MAX_BLOCKS = 1008;
/** Miners' clocks may run up to two hours ahead (the consensus future-time limit). */
const BLOCK_TIME_SLACK_S = 2 * 60 * 60;

export function createScanBlocksJob(deps: ScanBlocksDeps): JobHandler {
  const { db, rpc, log } = deps;
  const batchBlocks = deps.batchBlocks ?? 50;
  const pendingAfterMs = deps.pendingAfterMs ?? 120_000;

  const header = (hash: string) => rpc.call<BlockHeader>('getblockheader', [hash]);
  const headerAt = async (height: number) => header(await rpc.call<string>('getblockhash', [height]));

  /**
   * The block before the first that may hold a tracked transaction: the tip
   * when nothing is tracked, otherwise (found by bisection on block time)
   * the last block older than the oldest open submission.
   */
  async function firstCursor(tip: number): Promise<Cursor> {
    const oldest = await oldestOpenSubmission(db);
    const tipHeader = await headerAt(tip);
    if (!oldest) return { hash: tipHeader.hash, height: tip };
    const since = oldest.getTime() / 1000 - BLOCK_TIME_SLACK_S;
    let low = Math.max(0, tip - FIRST_SCAN_MAX_BLOCKS);
    let high = tip;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if ((await headerAt(middle)).time < since) low = middle + 1;
      else high = middle;
    }
    const start = Math.max(0, low - 1);
    const before = await headerAt(start);
    return { hash: before.hash, height: start };
  }

  /** Steps back from blocks that left the main chain, reopening what they confirmed. */
  async function onMainChain(cursor: Cursor): Promise<Cursor> {
    let at = cursor;
    for (;;) {
      let h: BlockHeader;
      try {
        h = await header(at.hash);
      } catch (error) {
        // The node has never heard of it (another chain, a wiped datadir): start again from its tip.
        if (error instanceof RpcError && error.code === RpcCode.INVALID_ADDRESS_OR_KEY) {
          log.warn({ block: at.hash }, 'The block scan\'s last block is unknown to the node; scanning from its tip');
          const tip = await rpc.call<number>('getblockcount');
          const fresh = await headerAt(tip);
          return { hash: fresh.hash, height: tip };
        }
        throw error;
      }
      if (h.confirmations >= 0) return at;
      const reopened = await unconfirmBlock(db, at.hash);
      log.warn({ block: at.hash, height: at.height, reopened: reopened.length }, 'A block left the main chain; its transactions are tracked again');
      at = { hash: h.previousblockhash!, height: h.height - 1 };
      await writeCursor(db, at);
    }
  }

  async function settlePending(): Promise<void> {
    for (const row of await stalePending(db, pendingAfterMs, 500)) {
      await acceptPending(db, row.txid, row.claim);
      log.warn({ txid: row.txid }, 'Settled a submission left pending by a stopped server');
    }
  }

  return async () => {
    const tip = await rpc.call<number>('getblockcount');
    let saved = await readCursor(db);
    if (!saved) {
      saved = await firstCursor(tip);
      await writeCursor(db, saved);
    }
    let cursor: Cursor = await onMainChain(saved);

    for (let scanned = 0; cursor.height < tip && scanned < batchBlocks; scanned++) {
      const hash = await rpc.call<string>('getblockhash', [cursor.height + 1]);
      const block = await rpc.call<{ tx: string[]; time: number; height: number; previousblockhash: string }>('getblock', [hash, 1]);
      // The chain changed under us: the next run steps back first.
      if (block.previousblockhash !== cursor.hash) return runAgainAfter(0);
      const next: Cursor = { hash, height: block.height };
      const confirmed = await db.transaction(async (tx) => {
        const found = await confirmInBlock(tx, block.tx, { hash, height: block.height, time: block.time });
        await writeCursor(tx, next);
        return found;
      });
      if (confirmed.length > 0) log.info({ block: hash, height: block.height, confirmed: confirmed.length }, 'Tracked transactions confirmed');
      cursor = next;
    }
    await settlePending();
    return cursor.height < tip ? runAgainAfter(0) : jobDone;
  };
}
