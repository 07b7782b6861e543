import { RpcCode, RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import { mempoolSpender } from '../../bitcoin/mempool-spender.ts';
import { decodeTxHex } from '../../bitcoin/tx-codec.ts';
import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { enqueueJob } from '../job-queue.ts';
import { jobDone, runAgainAfter, type JobHandler, type JobOutcome } from '../job-runner.ts';
import { publicNodeReason } from '../../modules/disclosure/public-disclosure.ts';
import { confirmInBlock, countRebroadcast, loadTracked, readCursor, settle, trackedStatuses, type Settlement } from '../../modules/submission/submission-outcomes.repository.ts';

/**
 * One accepted transaction, looked at whenever something may have happened
 * to it (a block, its removal from the mempool) and otherwise every
 * `recheckMs`. While the node holds it there is nothing to do. Once it is
 * gone:
 * - mined: confirmed, with its block (the block scan usually gets there
 *   first; a node with -txindex answers directly);
 * - an input spent by another mempool transaction: replaced by it (BIP 125
 *   replace-by-fee, or full RBF);
 * - a parent we track left the mempool: the same fate (Core removes the
 *   descendants of what it replaces or what a block conflicts with), or wait
 *   for the parent to be handed back first;
 * - an input spent in the chain, or whose transaction is gone: conflicted;
 * - inputs all there: the node dropped it (restart without its mempool,
 *   expiry, a full mempool). It is handed back; if the node refuses it now,
 *   it is evicted, with the node's reason.
 */

/** A replaced transaction's outcome reason, as webhook receivers read it. */
export const REPLACED_REASON = 'replaced by another transaction spending the same inputs';

export interface TrackJobDeps {
  db: Queryable;
  rpc: RpcClient;
  log: Logger;
  /** How long to wait between looks while nothing is heard (default 10 min: events normally come first). */
  recheckMs?: number;
  /** Called after queueing a block scan, so it runs at once. */
  wake: () => void;
}

/** While a block scan or a parent's hand-back is under way. */
const SHORT_WAIT_MS = 2_000;

export function createTrackJob(deps: TrackJobDeps): JobHandler {
  const { db, rpc, log } = deps;
  const recheckMs = deps.recheckMs ?? 10 * 60_000;

  /** The node's answer, or undefined for "no such transaction" (-5). */
  async function optional<T>(method: string, params: unknown[]): Promise<T | undefined> {
    try {
      return await rpc.call<T>(method, params);
    } catch (error) {
      if (error instanceof RpcError && error.code === RpcCode.INVALID_ADDRESS_OR_KEY) return undefined;
      throw error;
    }
  }

  async function scanFirst(): Promise<JobOutcome> {
    await enqueueJob(db, { kind: 'scan-blocks', key: 'scan-blocks' });
    deps.wake();
    return runAgainAfter(SHORT_WAIT_MS);
  }

  return async (job) => {
    const txid = String(job.payload.txid);
    const record = await loadTracked(db, txid);
    if (!record || record.status !== 'accepted') return jobDone;

    if (await optional('getmempoolentry', [txid])) return runAgainAfter(recheckMs);

    // Mined? Only a node with -txindex can say for a transaction it no longer holds.
    const known = await optional<{ blockhash?: string; blocktime?: number }>('getrawtransaction', [txid, true]);
    if (known?.blockhash) {
      const header = await rpc.call<{ height: number; time: number; confirmations: number }>('getblockheader', [known.blockhash]);
      if (header.confirmations >= 0) {
        await confirmInBlock(db, [txid], { hash: known.blockhash, height: header.height, time: header.time });
        return jobDone;
      }
    }
    if (known && !known.blockhash) return runAgainAfter(recheckMs); // back in the mempool meanwhile
    // Otherwise the block scan must have seen every block first: it may be in the newest.
    const [cursor, height] = await Promise.all([readCursor(db), rpc.call<number>('getblockcount')]);
    if (!cursor || cursor.height < height) return scanFirst();

    const settlement = await whyGone(txid, record.txHex);
    if (settlement === 'wait') return runAgainAfter(SHORT_WAIT_MS);
    if (settlement) {
      await settle(db, txid, settlement);
      log.info({ txid, status: settlement.status, reason: settlement.reason }, 'A tracked transaction left the mempool');
      return jobDone;
    }
    return handBack(txid, record.txHex);
  };

  async function whyGone(txid: string, hex: string): Promise<Settlement | 'wait' | undefined> {
    const outpoints = decodeTxHex(hex).inputs.map((i) => ({ txid: i.txid, vout: i.vout }));
    const replacer = await mempoolSpender(rpc, txid, outpoints);
    // The reason reaches webhook receivers: it names no transaction (replaced_by does, when the public may read it).
    if (replacer) return { status: 'replaced', replacedBy: replacer, reason: REPLACED_REASON };

    // gettxout including the mempool: null for an output spent, or whose transaction is nowhere.
    const outputs = await rpc.batch<unknown>(outpoints.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, true] })));
    const missing = outpoints.filter((_, i) => { const o = outputs[i]!; return o.ok && o.result === null; });
    if (missing.length === 0) return undefined;
    const parents = await trackedStatuses(db, [...new Set(missing.map((o) => o.txid))]);
    for (const [parent, { status }] of parents) {
      if (status === 'accepted') return 'wait'; // its own tracking hands it back first
      if (status === 'replaced') return { status: 'replaced', replacedBy: null, reason: `its parent ${parent} was replaced` };
      if (status === 'evicted') return { status: 'evicted', reason: `its parent ${parent} was evicted` };
      if (status === 'conflicted') return { status: 'conflicted', reason: `its parent ${parent} conflicts with the chain` };
    }
    return { status: 'conflicted', reason: 'an input was spent by another transaction in the chain' };
  }

  async function handBack(txid: string, hex: string): Promise<JobOutcome> {
    try {
      await rpc.call<string>('sendrawtransaction', [validatedHex(hex)]);
    } catch (error) {
      if (!(error instanceof RpcError)) throw error; // the node is unreachable: try again later
      if (error.code === RpcCode.VERIFY_ALREADY_IN_CHAIN) return scanFirst();
      await settle(db, txid, { status: 'evicted', reason: publicNodeReason(error.message, new Set([txid])) });
      log.info({ txid, reason: error.message }, 'The node refused a tracked transaction it had dropped');
      return jobDone;
    }
    await countRebroadcast(db, txid);
    log.info({ txid }, 'Handed a dropped transaction back to the node');
    return runAgainAfter(recheckMs);
  }
}
