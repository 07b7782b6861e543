import type { RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Database } from '../../db/database.ts';
import { nodeFailure } from '../../http/errors.ts';
import { clientOfApiKey } from '../clients/api-keys.repository.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { explorerDetails, type ExplorerDetails } from './explorer-details.ts';
import { portalTxHex } from './portal-tx.repository.ts';

/**
 * What the public API reads beside the submission and status services: the
 * best block, the portal's own copy of a transaction and what an explorer
 * adds to it (the explorer routes)
 * and the client an API key belongs to (the dry run).
 */
export function createSlipstreamApiService(deps: { db: Database; rpc: RpcClient }) {
  const { db, rpc } = deps;
  return {
    async bestBlock(): Promise<{ height: number; hash: string; time: number }> {
      try {
        const chain = await rpc.call<{ blocks: number; bestblockhash: string; time: number }>('getblockchaininfo');
        return { height: chain.blocks, hash: chain.bestblockhash, time: chain.time };
      } catch (error) {
        throw nodeFailure(error);
      }
    },
    portalTxHex: (txid: string) => portalTxHex(db, txid),
    /** Its outputs' types and addresses and the outputs it spends, as an explorer shows them (explorer-details.ts). */
    async explorerDetails(tx: DecodedTx, hex: string, blockHash: string | null): Promise<ExplorerDetails> {
      try {
        return await explorerDetails(rpc, tx, hex, blockHash);
      } catch (error) {
        throw nodeFailure(error);
      }
    },
    clientOfApiKey: (key: string) => clientOfApiKey(db, key),
  };
}

export type SlipstreamApiService = ReturnType<typeof createSlipstreamApiService>;
