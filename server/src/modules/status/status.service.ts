import { createHash } from 'node:crypto';
import { btcToSats } from '../../bitcoin/amounts.ts';
import { RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MempoolReader, MempoolTxView, MempoolView } from '../../mempool/mempool-engine.ts';
import type { PoolOdds } from '../../mempool/queries/block-tracker.ts';
import type { RemovedTx } from '../../mempool/mirror/mempool-mirror.ts';
import { recordedByPortal } from '../submission/portal-records.repository.ts';
import { createBumpAdvisor } from './bump-advice.ts';
import { findRemoval, removal } from './removal-finder.ts';
import { createSizeMemo } from './size-memo.ts';
import type { StatusResponse } from './status.schemas.ts';

/**
 * GET /rest-api/status-check: where a transaction is, from the mempool
 * engine first (its place in the projected blocks, its functional rate, the
 * rate to beat, the pool's odds), then the chain (mined: block hash, height
 * and time), then the portal's records and the engine's memory (gone: why,
 * and what replaced it). Unknown to all of them: 404.
 *
 * The pool's mempool is private until mined (SPEC.md section 1): only
 * transactions the portal recorded (a submission, a package member, an
 * attempt kept as failed) are looked up in the mempool. Any other txid is
 * answered from the chain alone, mined or 404, and by the same calls whether
 * or not the node holds it, so neither the answer nor the work behind it
 * says that it does. Which transactions are the portal's is decided in one
 * place for every public answer (submission/portal-records.repository.ts);
 * the rule lives here, not in a route, for every API that answers a status.
 */

interface VerboseTx {
  size: number;
  vsize: number;
  weight: number;
  fee?: number;
  blockhash?: string;
  blocktime?: number;
  confirmations?: number;
  in_active_chain?: boolean;
}

interface MempoolEntry {
  vsize: number;
  weight: number;
  time: number;
  ancestorsize: number;
  fees: { base: number; modified: number; ancestor: number };
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
  tx_hex: string;
  replaced_by: string | null;
}

export const TX_NOT_FOUND_MESSAGE = 'Transaction not found: it was not submitted here and the mining node knows of no block holding it.';

/** How long a request waits for the engine to project a transaction the node has just taken. */
const CATCH_UP_MS = 2_000;

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Transactions whose size the service remembers. A status page polls the
 * same transaction while it waits; its serialized size, read from the
 * portal's records or the node, is the one thing the engine does not hold.
 */
const SIZE_MEMO_ENTRIES = 10_000;

const poolOddsOf = (odds: PoolOdds) => ({ last_24h_odds: odds.last24h, last_7d_odds: odds.last7d, expected_next_block_seconds: odds.expectedNextBlockSeconds, odds_note: odds.note });

export interface StatusDeps {
  db: Queryable;
  rpc: RpcClient;
  mempool: MempoolReader;
  log: Logger;
}

export function createStatusService(deps: StatusDeps) {
  const { db, rpc, mempool } = deps;
  const sizes = createSizeMemo(SIZE_MEMO_ENTRIES);
  const advisor = createBumpAdvisor(rpc);

  /** The bump advice for a transaction the engine projected; null when competitive. */
  const bumpOf = async (view: MempoolView, tx: MempoolTxView | undefined) => ({ bump: tx?.projected ? await advisor.advise(tx, view) : null });

  async function check(rawTxid: string): Promise<StatusResponse> {
    const txid = rawTxid.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(txid)) throw new ApiError(400, 'tx_id must be a transaction id of 64 hexadecimal characters.');

    try {
      let view = await mempool.view();
      // Only transactions the portal recorded are remembered here, so a hit says nothing new.
      const knownSize = sizes.get(txid);
      let tx = knownSize === undefined ? undefined : view.transaction(txid);
      if (tx?.projected && knownSize !== undefined) {
        // Waiting in the mempool, and its size already known: the engine answers alone, with no database or node call.
        return { ...inMempool(txid, view, tx, undefined, knownSize), ...poolOddsOf(await mempool.odds()), ...(await bumpOf(view, tx)) };
      }

      const { known, submission: recorded } = await portalRecord(txid);
      if (!known) return await fromChainOnly(txid, view);
      tx = view.transaction(txid);
      let entry: MempoolEntry | undefined;
      if (!tx?.projected) {
        // Not projected yet, or not even mirrored: the node may have taken it a moment ago.
        entry = tx ? undefined : await mempoolEntry(txid);
        if (tx || entry) {
          view = await mempool.viewWith(txid, CATCH_UP_MS);
          tx = view.transaction(txid) ?? tx;
        }
      }
      const poolOdds = poolOddsOf(await mempool.odds());

      if (tx || entry) {
        const size = recorded?.size ?? (await rawSize(txid));
        if (size !== null) sizes.remember(txid, size);
        return { ...inMempool(txid, view, tx, entry, size), ...poolOdds, ...(await bumpOf(view, tx)) };
      }

      // Not in the mempool: mined, or gone.
      const gone = mempool.removal(txid);
      const mined = await findMined(txid, gone);
      if (mined) return { ...minedAnswer(txid, mined, gone, recorded, view), ...poolOdds };
      if (!recorded && !gone) throw new ApiError(404, TX_NOT_FOUND_MESSAGE);
      if (recorded?.status === 'confirmed') return { ...recordedConfirmed(txid, recorded, view), ...poolOdds };
      const why = recorded ? await findRemoval(deps, txid, recorded) : removal('unknown');
      return {
        transaction: {
          txid,
          weight: recorded?.weight ?? gone?.weight ?? null,
          fee: recorded?.fee ?? gone?.fee ?? null,
          size: recorded?.size ?? null,
          vsize: recorded?.vsize ?? gone?.vsize ?? null,
          firstSeen: gone?.firstSeen ?? (recorded ? unix(recorded.created_at) : null),
          position: { block: null, vsize: null },
          status: { confirmed: false, block_hash: null, block_height: null, block_time: null },
        },
        state: 'not_in_mempool',
        removal: why,
        ...poolOdds,
        market_rate: view.marketRate,
        functional_rate: recorded?.functional_rate ?? null,
      };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof RpcTransportError || error instanceof RpcError) throw nodeFailure(error);
      throw error;
    }
  }

  /**
   * The portal's record of `txid`: whether it recorded it at all (a package
   * member or a failed attempt has no submission row), and its submission
   * row when there is one. One query, one row, whatever the answer.
   */
  async function portalRecord(txid: string): Promise<{ known: boolean; submission: SubmissionRow | undefined }> {
    const { rows } = await db.query<SubmissionRow & { known: boolean; submitted: boolean }>(
      `SELECT s.size, s.vsize, s.weight, s.fee, s.functional_rate, s.created_at, s.status, s.block_hash, s.block_height, s.block_time,
              s.tx_hex, s.replaced_by, s.txid IS NOT NULL AS submitted, ${recordedByPortal('q.txid')} AS known
       FROM (SELECT $1::text AS txid) q LEFT JOIN tx_submissions s ON s.txid = q.txid`,
      [txid],
    );
    const { known, submitted, ...row } = rows[0]!;
    return { known, submission: submitted ? row : undefined };
  }

  /**
   * A transaction the portal did not record: mined, from the chain alone,
   * or not found. The mempool is never consulted, not even by the node on
   * our behalf (getrawtransaction without a block hash looks there first),
   * so a transaction the node holds costs the same calls as an unknown one.
   */
  async function fromChainOnly(txid: string, view: MempoolView): Promise<StatusResponse> {
    const gone = mempool.removal(txid);
    const blockHash = gone?.reason === 'mined' && gone.blockHash ? gone.blockHash : await blockOf(txid);
    const mined = blockHash ? await minedIn(txid, blockHash) : undefined;
    if (!mined) throw new ApiError(404, TX_NOT_FOUND_MESSAGE);
    return { ...minedAnswer(txid, mined, gone, undefined, view), ...poolOddsOf(await mempool.odds()) };
  }

  /**
   * The block holding `txid`, from the node's transaction index or its
   * unspent outputs: gettxoutproof never reads the mempool, and answers an
   * unconfirmed transaction and an unknown one with the same error.
   */
  async function blockOf(txid: string): Promise<string | undefined> {
    let proof: string;
    try {
      proof = await rpc.call<string>('gettxoutproof', [[txid]]);
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
    // A merkle block (BIP 37) starts with the 80-byte block header; the block hash is its double SHA-256, shown byte-reversed.
    const once = createHash('sha256').update(Buffer.from(proof.slice(0, 160), 'hex')).digest();
    return createHash('sha256').update(once).digest().reverse().toString('hex');
  }

  function minedAnswer(txid: string, mined: { tx: VerboseTx; height: number }, gone: RemovedTx | undefined, recorded: SubmissionRow | undefined, view: MempoolView): Omit<StatusResponse, 'last_24h_odds' | 'last_7d_odds' | 'expected_next_block_seconds' | 'odds_note'> {
    return {
      transaction: {
        txid,
        weight: mined.tx.weight,
        fee: mined.tx.fee !== undefined ? btcToSats(mined.tx.fee) : (recorded?.fee ?? gone?.fee ?? null),
        size: mined.tx.size,
        vsize: mined.tx.vsize,
        // Only for the portal's own: when a stranger's transaction entered the private mempool is not the chain's to tell.
        firstSeen: recorded ? (gone?.firstSeen ?? unix(recorded.created_at)) : null,
        position: { block: null, vsize: null },
        status: { confirmed: true, block_hash: mined.tx.blockhash!, block_height: mined.height, block_time: mined.tx.blocktime ?? null },
      },
      state: 'confirmed',
      removal: null,
      market_rate: view.marketRate,
      functional_rate: recorded?.functional_rate ?? null,
    };
  }

  function inMempool(txid: string, view: MempoolView, tx: MempoolTxView | undefined, entry: MempoolEntry | undefined, size: number | null): Omit<StatusResponse, 'last_24h_odds' | 'last_7d_odds' | 'expected_next_block_seconds' | 'odds_note'> {
    const status = { confirmed: false, block_hash: null, block_height: null, block_time: null };
    if (tx?.projected) {
      return {
        transaction: { txid, weight: tx.weight, fee: tx.fee, size, vsize: tx.vsize, firstSeen: tx.firstSeen, position: tx.position ?? { block: null, vsize: null }, status },
        state: 'in_mempool',
        removal: null,
        market_rate: view.marketRate,
        functional_rate: tx.functionalRate,
      };
    }
    // The engine has not projected it yet (it trails the node by a moment): the node's entry, and its
    // ancestor score (CompareTxMemPoolEntryByAncestorFee: the lower of its own rate and its package's) against the rate to beat.
    const fee = tx?.fee ?? btcToSats(entry!.fees.base);
    const vsize = tx?.vsize ?? entry!.vsize;
    const functional = entry ? Math.min(btcToSats(entry.fees.modified) / entry.vsize, btcToSats(entry.fees.ancestor) / entry.ancestorsize) : (tx?.modifiedFee ?? fee) / vsize;
    return {
      transaction: {
        txid,
        weight: tx?.weight ?? entry!.weight,
        fee,
        size,
        vsize,
        firstSeen: tx?.firstSeen ?? entry!.time,
        position: { block: functional >= view.marketRate ? 0 : null, vsize: null },
        status,
      },
      state: 'in_mempool',
      removal: null,
      market_rate: view.marketRate,
      functional_rate: functional,
    };
  }

  function recordedConfirmed(txid: string, recorded: SubmissionRow, view: MempoolView): Omit<StatusResponse, 'last_24h_odds' | 'last_7d_odds' | 'expected_next_block_seconds' | 'odds_note'> {
    return {
      transaction: {
        txid,
        weight: recorded.weight,
        fee: recorded.fee,
        size: recorded.size,
        vsize: recorded.vsize,
        firstSeen: unix(recorded.created_at),
        position: { block: null, vsize: null },
        status: { confirmed: true, block_hash: recorded.block_hash, block_height: recorded.block_height, block_time: recorded.block_time ? unix(recorded.block_time) : null },
      },
      state: 'confirmed',
      removal: null,
      market_rate: view.marketRate,
      functional_rate: recorded.functional_rate,
    };
  }

  async function mempoolEntry(txid: string): Promise<MempoolEntry | undefined> {
    try {
      return await rpc.call<MempoolEntry>('getmempoolentry', [txid]);
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
  }

  /** The serialized size, witness included: half the raw hex's length. */
  async function rawSize(txid: string): Promise<number | null> {
    try {
      return (await rpc.call<string>('getrawtransaction', [txid, 0])).length / 2;
    } catch (error) {
      if (error instanceof RpcError) return null;
      throw error;
    }
  }

  /**
   * Mined: in the block the engine saw take it (getrawtransaction with a
   * block hash needs no -txindex), or found through the node's transaction
   * index. Verbosity 2 includes the fee when the node keeps undo data.
   */
  async function findMined(txid: string, gone: RemovedTx | undefined): Promise<{ tx: VerboseTx; height: number } | undefined> {
    const attempts: unknown[][] = gone?.reason === 'mined' && gone.blockHash ? [[txid, 2, gone.blockHash], [txid, 2]] : [[txid, 2]];
    for (const params of attempts) {
      const found = await confirmed(txid, params);
      if (found) return found;
    }
    return undefined;
  }

  /** `txid` in the block `blockHash` of the active chain (getrawtransaction with a block hash reads that block only). */
  function minedIn(txid: string, blockHash: string): Promise<{ tx: VerboseTx; height: number } | undefined> {
    return confirmed(txid, [txid, 2, blockHash]);
  }

  async function confirmed(txid: string, params: unknown[]): Promise<{ tx: VerboseTx; height: number } | undefined> {
    let tx: VerboseTx;
    try {
      tx = await rpc.call<VerboseTx>('getrawtransaction', params);
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
    if (!tx.blockhash || tx.in_active_chain === false || (tx.confirmations !== undefined && tx.confirmations < 1)) return undefined;
    const header = await rpc.call<{ height: number; confirmations: number }>('getblockheader', [tx.blockhash, true]);
    if (header.confirmations < 1) return undefined; // a block reorganised out of the chain
    return { tx, height: header.height };
  }

  return { check };
}

export type StatusService = ReturnType<typeof createStatusService>;
