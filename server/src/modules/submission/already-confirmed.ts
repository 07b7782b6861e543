import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { MISSING_INPUTS_MESSAGE } from './submission-rules.ts';
import { recordedBlockOf } from './submission.repository.ts';

/**
 * Whether a transaction someone pastes again is already in the chain, and in
 * which block. Asked only when its fee cannot be known (its inputs are spent)
 * or the node calls it known: then "already confirmed in block N" is the
 * answer users need, not "missing inputs".
 *
 * A mined transaction is public (any block explorer shows it), so telling it
 * keeps the pool's mempool private (docs/behaviour.md#private-until-mined): the node is asked
 * with getrawtransaction, whose answer for a transaction only in the mempool
 * has no block hash and is treated exactly as "unknown". The node answers
 * for any mined transaction with -txindex (the embedded node has it);
 * without it, the portal's own records (the block tracker marks its
 * submissions confirmed) still know the ones submitted here.
 */

export interface Confirmation {
  txid: string;
  blockHeight: number;
  blockHash: string;
}

export const alreadyConfirmedMessage = (c: Confirmation) => `This transaction is already confirmed in block ${c.blockHeight}.`;

/** The answer's extra fields, for a link to the block or the status page. */
export const confirmationFields = (c: Confirmation) => ({ txid: c.txid, block_height: c.blockHeight, block_hash: c.blockHash });

export async function findConfirmation(deps: { rpc: RpcClient; db: Queryable }, txid: string): Promise<Confirmation | undefined> {
  const { rpc, db } = deps;
  try {
    const tx = await rpc.call<{ blockhash?: string; confirmations?: number }>('getrawtransaction', [txid, 1]);
    if (tx.blockhash && (tx.confirmations ?? 0) > 0) {
      const header = await rpc.call<{ height: number; confirmations: number }>('getblockheader', [tx.blockhash, true]);
      if (header.confirmations > 0) return { txid, blockHeight: header.height, blockHash: tx.blockhash };
    }
    return undefined;
  } catch (error) {
    // No -txindex, or not known: the portal's own records may still know it.
    if (!(error instanceof RpcError)) throw error;
  }
  const row = await recordedBlockOf(db, txid);
  return row ? { txid, blockHeight: row.block_height, blockHash: row.block_hash } : undefined;
}

/**
 * The refusal for transactions whose fee cannot be known because some input
 * is unknown or spent: "already confirmed in block N" for the first one that
 * is mined, else the missing-inputs answer. `unknown`: the positions (in the
 * package, or 0 alone) of the transactions whose fee is unknown.
 */
export async function unknownInputsRefusal(deps: { rpc: RpcClient; db: Queryable }, txs: readonly DecodedTx[], unknown: readonly number[]): Promise<ApiError> {
  for (const i of unknown) {
    const found = await findConfirmation(deps, txs[i]!.txid);
    if (!found) continue;
    const message = txs.length === 1 ? alreadyConfirmedMessage(found) : `Transaction ${i + 1} of the package is already confirmed in block ${found.blockHeight}.`;
    return new ApiError(422, message, { confirmed: confirmationFields(found) });
  }
  return new ApiError(422, MISSING_INPUTS_MESSAGE);
}
