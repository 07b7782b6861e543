import { createHash } from 'node:crypto';
import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { RemovedTx } from '../../mempool/mirror/mempool-mirror.ts';
import type { MempoolEntry, MinedTx, VerboseTx } from './status-answers.ts';

/**
 * What a status asks the node, each answering undefined (or null) for "the
 * node does not have it" and throwing only when the node cannot be asked.
 */
export function createChainLookups(rpc: RpcClient) {
  /** Undefined when the node answers with an RPC error (not found, not in that block). */
  async function unlessRefused<T>(method: string, params: unknown[]): Promise<T | undefined> {
    try {
      return await rpc.call<T>(method, params);
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
  }

  const mempoolEntry = (txid: string) => unlessRefused<MempoolEntry>('getmempoolentry', [txid]);

  /** The serialized size, witness included: half the raw hex's length. */
  async function rawSize(txid: string): Promise<number | null> {
    const hex = await unlessRefused<string>('getrawtransaction', [txid, 0]);
    return hex === undefined ? null : hex.length / 2;
  }

  /**
   * The block holding `txid`, from the node's transaction index or its
   * unspent outputs: gettxoutproof never reads the mempool, and answers an
   * unconfirmed transaction and an unknown one with the same error.
   */
  async function blockOf(txid: string): Promise<string | undefined> {
    const proof = await unlessRefused<string>('gettxoutproof', [[txid]]);
    if (proof === undefined) return undefined;
    // A merkle block (BIP 37) starts with the 80-byte block header; the block hash is its double SHA-256, shown byte-reversed.
    const once = createHash('sha256').update(Buffer.from(proof.slice(0, 160), 'hex')).digest();
    return createHash('sha256').update(once).digest().reverse().toString('hex');
  }

  async function confirmed(params: unknown[]): Promise<MinedTx | undefined> {
    const tx = await unlessRefused<VerboseTx>('getrawtransaction', params);
    if (!tx?.blockhash || tx.in_active_chain === false || (tx.confirmations !== undefined && tx.confirmations < 1)) return undefined;
    const header = await rpc.call<{ height: number; confirmations: number }>('getblockheader', [tx.blockhash, true]);
    if (header.confirmations < 1) return undefined; // a block reorganised out of the chain
    return { tx, height: header.height };
  }

  /**
   * Mined: in the block the engine saw take it (getrawtransaction with a
   * block hash needs no -txindex), or found through the node's transaction
   * index. Verbosity 2 includes the fee when the node keeps undo data.
   */
  async function findMined(txid: string, gone: RemovedTx | undefined): Promise<MinedTx | undefined> {
    const attempts: unknown[][] = gone?.reason === 'mined' && gone.blockHash ? [[txid, 2, gone.blockHash], [txid, 2]] : [[txid, 2]];
    for (const params of attempts) {
      const found = await confirmed(params);
      if (found) return found;
    }
    return undefined;
  }

  /** `txid` in the block `blockHash` of the active chain (getrawtransaction with a block hash reads that block only). */
  const minedIn = (txid: string, blockHash: string) => confirmed([txid, 2, blockHash]);

  return { mempoolEntry, rawSize, blockOf, findMined, minedIn };
}
