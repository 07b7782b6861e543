import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { FamilyTx, RemovedTx } from '@slipstream/mempool-engine';
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

  /**
   * The family (mempool-family.ts) of a transaction the node holds and the
   * engine does not yet: itself, and its ancestors and descendants from
   * the node, two calls made only when its entry says it has any. Not the
   * descendants' other ancestors, which only the engine's mirror walks: an
   * answer for the moment the engine trails the node.
   */
  async function mempoolFamily(txid: string, entry: MempoolEntry): Promise<FamilyTx[]> {
    const member = (id: string, e: Pick<MempoolEntry, 'vsize' | 'depends' | 'fees'>) => ({ txid: id, fee: btcToSats(e.fees.base), vsize: e.vsize, parents: e.depends });
    if (entry.ancestorcount <= 1 && entry.descendantcount <= 1) return [member(txid, entry)];
    const [ancestors, descendants] = await Promise.all([
      unlessRefused<Record<string, MempoolEntry>>('getmempoolancestors', [txid, true]),
      unlessRefused<Record<string, MempoolEntry>>('getmempooldescendants', [txid, true]),
    ]);
    return [member(txid, entry), ...Object.entries({ ...ancestors, ...descendants }).map(([id, e]) => member(id, e))];
  }

  /** The serialized size, witness included: half the raw hex's length. */
  async function rawSize(txid: string): Promise<number | null> {
    const hex = await unlessRefused<string>('getrawtransaction', [txid, 0]);
    return hex === undefined ? null : hex.length / 2;
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

  /**
   * `txid` in `block`, a block the portal followed (its height known), in
   * one call: getrawtransaction with a block hash reads that block only (no
   * -txindex, no UTXO set, no mempool). The answer's in_active_chain and
   * confirmations say whether the block is still in the active chain: one a
   * reorganisation replaced since the portal read it answers nothing.
   * Never gettxoutproof: without a block hash it looks the txid up in the
   * UTXO set output by output, holding cs_main (rpc/txoutproof.cpp), work
   * that grows with the chain state, on the lock block validation needs.
   */
  async function minedInFollowed(txid: string, block: { hash: string; height: number }): Promise<MinedTx | undefined> {
    const tx = await unlessRefused<VerboseTx>('getrawtransaction', [txid, 2, block.hash]);
    if (!tx || tx.in_active_chain === false || (tx.confirmations ?? 0) < 1) return undefined;
    return { tx: { ...tx, blockhash: block.hash }, height: block.height };
  }

  return { mempoolEntry, mempoolFamily, rawSize, findMined, minedInFollowed };
}
