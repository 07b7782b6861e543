import type { RpcClient } from '../../bitcoin/rpc-client.ts';
import { mempoolSpender } from '../../bitcoin/mempool-spender.ts';
import { decodeTxHex } from '../../bitcoin/tx-codec.ts';
import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { publicReplacer } from '../disclosure/public-disclosure.ts';
import { recordedTxids } from '../submission/portal-records.repository.ts';
import { recordReplacement } from '../submission/submission-outcomes.repository.ts';
import type { StatusResponse } from './status.schemas.ts';

/**
 * Why a transaction the portal recorded left the mempool without being mined,
 * and what replaced it, from its inputs (the recorded hex):
 * - an input another mempool transaction spends (gettxspendingprevout,
 *   Core 24+): replaced, by that transaction (BIP 125 replace-by-fee, or
 *   full RBF). Remembered in tx_submissions.replaced_by, because once the
 *   replacement is mined no RPC can name it (the node keeps no spent-output
 *   index). The answer names it only when the portal accepted it: a
 *   replacement sent to the pool some other way is private, and is said
 *   without its id;
 * - an input spent in the chain (gettxout answers null): a conflicting
 *   transaction was mined; the replacement when one was remembered;
 * - every input unspent: the node dropped it (mempool expiry, or the
 *   mempool was full: -maxmempool trims the lowest descendant scores), and
 *   it could be submitted again.
 * ZMQ's `R` notification says none of this (it has no reason and no
 * replacer), hence the look at the inputs.
 */

export type Removal = NonNullable<StatusResponse['removal']>;

export const REMOVAL_MESSAGES: Record<Removal['reason'], string> = {
  replaced: 'It was replaced by another transaction spending the same inputs (replace-by-fee); the replacement is the one that can be mined.',
  conflicted: 'A transaction spending the same inputs was mined, so this one can no longer be.',
  evicted: 'The node dropped it from its mempool (it expired, or the mempool was full); its inputs are unspent, so it can be submitted again.',
  unknown: 'It left the mempool without being mined (replaced or evicted).',
};

/** Replaced by a transaction a public answer may not name (modules/disclosure/public-disclosure.ts). */
export const REPLACED_ELSEWHERE_MESSAGE =
  'It was replaced by a transaction not submitted here, spending the same inputs (replace-by-fee); the replacement is the one that can be mined.';

export const removal = (reason: Removal['reason'], replacedBy: string | null = null): Removal => ({ reason, replaced_by: replacedBy, message: REMOVAL_MESSAGES[reason] });

/** Replaced: named when the portal accepted the replacement, said without its id otherwise. */
async function replacedRemoval(db: Queryable, replacer: string): Promise<Removal> {
  const named = await publicReplacer((txids) => recordedTxids(db, txids), replacer);
  return named ? removal('replaced', named) : { reason: 'replaced', replaced_by: null, message: REPLACED_ELSEWHERE_MESSAGE };
}

export async function findRemoval(deps: { db: Queryable; rpc: RpcClient; log: Logger }, txid: string, recorded: { tx_hex: string; replaced_by: string | null }): Promise<Removal> {
  const { db, rpc, log } = deps;
  const outpoints = decodeTxHex(recorded.tx_hex).inputs.map((input) => ({ txid: input.txid, vout: input.vout }));
  const replacer = await mempoolSpender(rpc, txid, outpoints);
  if (replacer) {
    if (replacer !== recorded.replaced_by) {
      await recordReplacement(db, txid, replacer)
        .catch((error: unknown) => log.warn({ err: (error as Error).message, txid }, 'Could not record the replacing transaction'));
    }
    return await replacedRemoval(db, replacer);
  }
  // gettxout without the mempool: null for an output spent in the chain (or never there).
  const outputs = await rpc.batch<unknown>(outpoints.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, false] })));
  const spentInChain = outputs.some((o) => o.ok && o.result === null);
  if (spentInChain) return recorded.replaced_by ? await replacedRemoval(db, recorded.replaced_by) : removal('conflicted');
  return removal('evicted');
}
