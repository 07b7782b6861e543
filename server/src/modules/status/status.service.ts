import { btcToSats } from '../../bitcoin/amounts.ts';
import { RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { decodeTxHex } from '../../bitcoin/tx-codec.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import type { MarketRateSource } from '../pricing/market-rate.ts';
import type { StatusResponse } from './status.schemas.ts';

interface MempoolEntry {
  vsize: number;
  weight: number;
  time: number;
  ancestorsize: number;
  fees: { base: number; ancestor: number };
}

interface VerboseTx {
  size: number;
  vsize: number;
  weight: number;
  fee?: number;
  blockhash?: string;
  blocktime?: number;
  confirmations?: number;
}

interface SubmissionRow {
  size: number;
  vsize: number;
  weight: number;
  fee: number;
  functional_rate: number;
  created_at: Date;
  status: string;
  block_hash: string | null;
  block_height: number | null;
  block_time: Date | null;
}

export const TX_NOT_FOUND_MESSAGE = 'Transaction not found: the mining node has not seen it and it was not submitted here.';

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function createStatusService(deps: { db: Queryable; rpc: RpcClient; market: MarketRateSource }) {
  const { db, rpc, market } = deps;

  async function check(rawTxid: string): Promise<StatusResponse> {
    const txid = rawTxid.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(txid)) throw new ApiError(400, 'tx_id must be a transaction id of 64 hexadecimal characters.');

    const { rows } = await db.query<SubmissionRow>(
      `SELECT size, vsize, weight, fee, functional_rate, created_at, status, block_hash, block_height, block_time
       FROM tx_submissions WHERE txid = $1`,
      [txid],
    );
    const recorded = rows[0];

    try {
      const snapshot = await market.snapshot();
      // The mempool first: the common case while a user watches the page.
      // The raw transaction is fetched only for its size, and only when the
      // portal has not recorded it: the page polls every 30 seconds.
      const [entry, raw] = await rpc.batch<unknown>([
        { method: 'getmempoolentry', params: [txid] },
        ...(recorded ? [] : [{ method: 'getrawtransaction', params: [txid, 0] }]),
      ]);
      if (entry?.ok) {
        const e = entry.result as MempoolEntry;
        const size = recorded?.size ?? (raw?.ok ? decodeTxHex(raw.result as string).size : null);
        const fee = btcToSats(e.fees.base);
        const functional = Math.min(fee / e.vsize, btcToSats(e.fees.ancestor) / e.ancestorsize);
        // The node reuses a template for up to 5 s while the mempool changes, so a
        // transaction just accepted may be missing from it: one that beats the
        // template's lowest rate is in the next block all the same.
        const nextBlock = snapshot.nextBlockTxids.has(txid) || functional >= snapshot.marketRate;
        return {
          transaction: {
            txid,
            weight: e.weight,
            fee,
            size,
            vsize: e.vsize,
            firstSeen: e.time,
            position: { block: nextBlock ? 0 : 1, vsize: null },
            status: { confirmed: false, block_hash: null, block_height: null, block_time: null },
          },
          state: 'in_mempool',
          last_24h_odds: null,
          last_7d_odds: null,
          market_rate: snapshot.marketRate,
          functional_rate: functional,
        };
      }

      // Not in the mempool: mined (found through the node's transaction index), or gone.
      const mined = await findMined(txid);
      if (mined) {
        return {
          transaction: {
            txid,
            weight: mined.tx.weight,
            fee: mined.tx.fee !== undefined ? btcToSats(mined.tx.fee) : (recorded?.fee ?? null),
            size: mined.tx.size,
            vsize: mined.tx.vsize,
            firstSeen: recorded ? unix(recorded.created_at) : null,
            position: { block: null, vsize: null },
            status: { confirmed: true, block_hash: mined.tx.blockhash!, block_height: mined.height, block_time: mined.tx.blocktime ?? null },
          },
          state: 'confirmed',
          last_24h_odds: null,
          last_7d_odds: null,
          market_rate: snapshot.marketRate,
          functional_rate: recorded?.functional_rate ?? null,
        };
      }
      if (!recorded) throw new ApiError(404, TX_NOT_FOUND_MESSAGE);
      const confirmed = recorded.status === 'confirmed';
      return {
        transaction: {
          txid,
          weight: recorded.weight,
          fee: recorded.fee,
          size: recorded.size,
          vsize: recorded.vsize,
          firstSeen: unix(recorded.created_at),
          position: { block: null, vsize: null },
          status: {
            confirmed,
            block_hash: recorded.block_hash,
            block_height: recorded.block_height,
            block_time: recorded.block_time ? unix(recorded.block_time) : null,
          },
        },
        state: confirmed ? 'confirmed' : 'not_in_mempool',
        last_24h_odds: null,
        last_7d_odds: null,
        market_rate: snapshot.marketRate,
        functional_rate: recorded.functional_rate,
      };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof RpcTransportError || error instanceof RpcError) throw nodeFailure(error);
      throw error;
    }
  }

  /** Verbosity 2 includes the fee when the node keeps undo data; needs -txindex for mined transactions. */
  async function findMined(txid: string): Promise<{ tx: VerboseTx; height: number } | undefined> {
    let tx: VerboseTx;
    try {
      tx = await rpc.call<VerboseTx>('getrawtransaction', [txid, 2]);
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
    if (!tx.blockhash || !tx.confirmations) return undefined;
    const header = await rpc.call<{ height: number }>('getblockheader', [tx.blockhash, true]);
    return { tx, height: header.height };
  }

  return { check };
}

export type StatusService = ReturnType<typeof createStatusService>;
