import { createHash } from 'node:crypto';
import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import type { CheckedQuote } from '../quotes/quote-token.ts';
import type { SettingsStore } from '../settings/settings.store.ts';
import { recordedBlockOf } from './mined-block.repository.ts';
import type { PublishedJwk, ReceiptKeys } from './receipt-keys.ts';
import { RECEIPT_VERSION, ReceiptRefusal, type ReceiptClaims, type ReceiptSigner } from './receipt-token.ts';

/**
 * Receipts of accepted submissions (receipt-token.ts), the keys that check
 * them, and the proof that a receipt's transaction was mined.
 *
 * The proof (POST /api/receipts/proof) is for whoever holds a receipt, and
 * for nobody else: its signature is checked first, from the cached keys,
 * with no database query and no node call, so a made-up or altered receipt
 * costs the pool nothing and learns nothing. Only then is its block looked
 * for: in the blocks the mempool engine follows (in memory), else in the
 * portal's records; and the node is asked one thing, `gettxoutproof` with
 * that block's hash (one block read from disk, whatever the size of the
 * chain state: never the UTXO-set walk it does without a hash,
 * http/node-call-budget.ts). The answer is the node's merkle block
 * (CMerkleBlock: the 80-byte header, then the partial merkle tree, BIP 37),
 * which anyone checks offline against the header, and the header against
 * any copy of the chain.
 */

export interface ReceiptInput {
  txid: string;
  wtxid: string;
  fee: number;
  vsize: number;
  /** sat/vB: the minimum the submission was judged by. */
  threshold: number;
  quote: CheckedQuote | undefined;
  acceptedAt: Date;
}

export interface ReceiptProof {
  txid: string;
  block_hash: string;
  block_height: number;
  /** The block header, 80 bytes in hex (the proof's first 80 bytes). */
  header: string;
  /** The node's gettxoutproof: a serialized CMerkleBlock, hex. */
  proof: string;
}

export const NOT_MINED_MESSAGE =
  'Not mined yet: no block the pool knows of holds this transaction. Ask again once it is in a block (its status page says when).';
export const NOT_IN_BLOCK_MESSAGE =
  'The block that held this transaction is no longer in the best chain (a reorganisation): ask again once it is mined again.';

export interface ReceiptService {
  /** The receipt of an accepted submission, signed now. */
  issue(input: ReceiptInput): Promise<string>;
  /** The published keys (RFC 7517 section 5). */
  jwks(): Promise<{ keys: PublishedJwk[] }>;
  /** The claims of a receipt signed by a published key; 400 with the reason otherwise. No node call, no query. */
  verify(receipt: string): Promise<ReceiptClaims>;
  /** A valid receipt's transaction, mined: its block and the merkle proof. */
  proof(receipt: string): Promise<ReceiptProof>;
  /** Makes the signing key when there is none, and opens it: start-up fails here on a key sealed with another secret. */
  ready(): Promise<void>;
}

export interface ReceiptServiceDeps {
  db: Queryable;
  /** Metered (http/node-call-budget.ts): the proof's one node call counts against its route's budget. */
  rpc: RpcClient;
  mempool: MempoolReader;
  settings: SettingsStore;
  signer: ReceiptSigner;
  keys: Pick<ReceiptKeys, 'jwks' | 'ready'>;
  network: string;
  log: Logger;
}

/** Bitcoin's block hash: the header's double SHA-256, shown byte-reversed. */
export function headerHash(headerHex: string): string {
  const once = createHash('sha256').update(Buffer.from(headerHex, 'hex')).digest();
  return Buffer.from(createHash('sha256').update(once).digest()).reverse().toString('hex');
}

export function createReceiptService(deps: ReceiptServiceDeps): ReceiptService {
  const { db, rpc, mempool, settings, signer, keys, network } = deps;

  async function verify(receipt: string): Promise<ReceiptClaims> {
    try {
      return (await signer.verify(receipt)).claims;
    } catch (error) {
      if (error instanceof ReceiptRefusal) throw new ApiError(400, error.message);
      throw error;
    }
  }

  return {
    async issue(input) {
      const { poolName } = await settings.get();
      const claims: ReceiptClaims = {
        v: RECEIPT_VERSION,
        pool: poolName,
        network,
        txid: input.txid,
        wtxid: input.wtxid,
        fee: input.fee,
        vsize: input.vsize,
        threshold: input.threshold,
        quote: input.quote ? { quote_id: input.quote.quoteId, threshold: input.quote.threshold, expires_at: input.quote.expiresAt.toISOString() } : null,
        accepted_at: input.acceptedAt.toISOString(),
      };
      return signer.sign(claims);
    },

    jwks: () => keys.jwks(),

    ready: () => keys.ready(),

    verify,

    async proof(receipt) {
      const { txid } = await verify(receipt);
      // In memory first (the blocks the engine follows up to its view's tip: no node call in production's `latest`
      // mode, the view caught up with the node first in `synced` mode), then the records.
      const block = (await mempool.view().then(() => mempool.minedBlockOf(txid), (error: unknown) => {
        throw nodeFailure(error);
      })) ?? (await recordedBlockOf(db, txid));
      if (!block) throw new ApiError(404, NOT_MINED_MESSAGE);
      let proof: string;
      try {
        proof = await rpc.call<string>('gettxoutproof', [[txid], block.hash]);
      } catch (error) {
        // The block left the best chain, or (a 52-bit index match, block-txids.ts) never held it.
        if (error instanceof RpcError) throw new ApiError(404, NOT_IN_BLOCK_MESSAGE);
        throw nodeFailure(error);
      }
      const header = proof.slice(0, 160);
      if (headerHash(header) !== block.hash) throw new Error(`gettxoutproof answered a proof whose header is not block ${block.hash}`);
      return { txid, block_hash: block.hash, block_height: block.height, header, proof };
    },
  };
}
