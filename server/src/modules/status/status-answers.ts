import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import type { MempoolTxView, MempoolView, RemovedTx } from '@slipstream/mempool-engine';
import type { PoolOdds } from '@slipstream/mempool-engine/queries/block-tracker';
import type { PortalFamily } from './portal-family.ts';
import { rateToBeatFor } from './rate-to-enter.ts';
import type { Removal } from './removal-finder.ts';
import type { StatusResponse } from './status.schemas.ts';

/**
 * The shapes of a status answer, one per place a transaction can be: in the
 * mempool (projected, or only just taken by the node), mined, or gone. Pure:
 * what to look up, and in which order, is status.service.ts's.
 *
 * `firstSeen` is always the portal's time (status.repository.ts
 * portalRecordOf), never the node's: the mempool entry's `time`, and the
 * engine's copy of it, say when the pool got the transaction by whatever
 * channel, and the pool's mempool is private (docs/behaviour.md#private-until-mined).
 */

/** getrawtransaction's verbose answer, the fields a status needs. */
export interface VerboseTx {
  size: number;
  vsize: number;
  weight: number;
  fee?: number;
  blockhash?: string;
  blocktime?: number;
  confirmations?: number;
  in_active_chain?: boolean;
}

/** A transaction in a block of the active chain, and that block's height. */
export interface MinedTx {
  tx: VerboseTx;
  height: number;
}

/** getmempoolentry's answer, the fields a status needs. */
export interface MempoolEntry {
  vsize: number;
  weight: number;
  time: number;
  /** Its in-mempool parents. */
  depends: string[];
  ancestorcount: number;
  descendantcount: number;
  /** Base fee only: `modified` carries the pool's prioritisetransaction deltas, which are not the public's. */
  fees: { base: number };
}

/** The portal's submission row, as a status reads it. */
export interface RecordedSubmission {
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

type OddsFields = 'last_24h_odds' | 'last_7d_odds' | 'expected_next_block_seconds' | 'odds_note';
/** A status answer before the pool's odds are added. */
export type StatusAnswer = Omit<StatusResponse, OddsFields>;

export const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export const poolOddsOf = (odds: PoolOdds): Pick<StatusResponse, OddsFields> => ({
  last_24h_odds: odds.last24h,
  last_7d_odds: odds.last7d,
  expected_next_block_seconds: odds.expectedNextBlockSeconds,
  odds_note: odds.note,
});

const UNCONFIRMED = { confirmed: false, block_hash: null, block_height: null, block_time: null };
const NO_POSITION = { block: null, vsize: null };

export function minedAnswer(txid: string, mined: MinedTx, gone: RemovedTx | undefined, recorded: RecordedSubmission | undefined, view: MempoolView, firstSeen: number | null): StatusAnswer {
  return {
    transaction: {
      txid,
      weight: mined.tx.weight,
      fee: mined.tx.fee !== undefined ? btcToSats(mined.tx.fee) : (recorded?.fee ?? gone?.fee ?? null),
      size: mined.tx.size,
      vsize: mined.tx.vsize,
      // Only for the portal's own: when a stranger's transaction entered the private mempool is not the chain's to tell.
      firstSeen,
      position: NO_POSITION,
      status: { confirmed: true, block_hash: mined.tx.blockhash!, block_height: mined.height, block_time: mined.tx.blocktime ?? null },
    },
    state: 'confirmed',
    removal: null,
    market_rate: view.marketRate,
    rate_to_beat: null,
    functional_rate: recorded?.functional_rate ?? null,
  };
}

/**
 * In the mempool. Its functional rate is the portal's own view of it
 * (portal-family.ts): its base fee and vsize with those of its unconfirmed
 * relatives submitted here, never the engine's package rate nor the node's
 * ancestor or modified fees, which a private relative or a prioritisation
 * moves. Its position is the pool's template's truth, so a relative the
 * portal did not record can change its block number: that, and only that,
 * stays observable of such a relative; the depth in the block is given only
 * when every relative is the portal's.
 */
export function inMempoolAnswer(txid: string, view: MempoolView, tx: MempoolTxView | undefined, entry: MempoolEntry | undefined, size: number | null, firstSeen: number | null, own: PortalFamily): StatusAnswer {
  if (tx?.projected) {
    const position = tx.position ? { block: tx.position.block, vsize: own.withOthers ? null : tx.position.vsize } : NO_POSITION;
    return {
      transaction: { txid, weight: tx.weight, fee: tx.fee, size, vsize: tx.vsize, firstSeen, position, status: UNCONFIRMED },
      state: 'in_mempool',
      removal: null,
      market_rate: view.marketRate,
      rate_to_beat: rateToBeatFor(tx, view, own),
      functional_rate: own.rate,
    };
  }
  // The engine has not projected it yet (it trails the node by a moment): the node's entry, and whether
  // the portal's package of it beats the rate to beat for its size.
  const fee = tx?.fee ?? btcToSats(entry!.fees.base);
  const vsize = tx?.vsize ?? entry!.vsize;
  const rateToBeat = rateToBeatFor({ fee, vsize }, view, own);
  return {
    transaction: {
      txid,
      weight: tx?.weight ?? entry!.weight,
      fee,
      size,
      vsize,
      firstSeen,
      position: { block: own.rate >= rateToBeat ? 0 : null, vsize: null },
      status: UNCONFIRMED,
    },
    state: 'in_mempool',
    removal: null,
    market_rate: view.marketRate,
    rate_to_beat: rateToBeat,
    functional_rate: own.rate,
  };
}

/** Mined by the portal's records, though the node can no longer find it (pruned, or no transaction index). */
export function recordedConfirmedAnswer(txid: string, recorded: RecordedSubmission, view: MempoolView): StatusAnswer {
  return {
    transaction: {
      txid,
      weight: recorded.weight,
      fee: recorded.fee,
      size: recorded.size,
      vsize: recorded.vsize,
      firstSeen: unix(recorded.created_at),
      position: NO_POSITION,
      status: { confirmed: true, block_hash: recorded.block_hash, block_height: recorded.block_height, block_time: recorded.block_time ? unix(recorded.block_time) : null },
    },
    state: 'confirmed',
    removal: null,
    market_rate: view.marketRate,
    rate_to_beat: null,
    functional_rate: recorded.functional_rate,
  };
}

/** Neither in the mempool nor mined: what the records and the engine's memory say of it, and why it left. */
export function goneAnswer(txid: string, recorded: RecordedSubmission | undefined, gone: RemovedTx | undefined, why: Removal, view: MempoolView, firstSeen: number | null): StatusAnswer {
  return {
    transaction: {
      txid,
      weight: recorded?.weight ?? gone?.weight ?? null,
      fee: recorded?.fee ?? gone?.fee ?? null,
      size: recorded?.size ?? null,
      vsize: recorded?.vsize ?? gone?.vsize ?? null,
      firstSeen,
      position: NO_POSITION,
      status: UNCONFIRMED,
    },
    state: 'not_in_mempool',
    removal: why,
    market_rate: view.marketRate,
    rate_to_beat: null,
    functional_rate: recorded?.functional_rate ?? null,
  };
}

/**
 * The child-pays-for-parent note (submission/cpfp-links.repository.ts): a
 * transaction that entered below the minimum because a child paid for it,
 * or such a child. Both are the portal's records, so each may name the other.
 */
export function cpfpNote(links: { paysFor: string[]; paidBy: string[] }): StatusResponse['child_pays_for_parent'] {
  const { paysFor, paidBy } = links;
  if (paysFor.length === 0 && paidBy.length === 0) return null;
  const parts = [
    ...(paidBy.length > 0 ? [`This transaction paid less than the minimum on its own; ${paidBy.length === 1 ? 'a child transaction that spends it' : 'child transactions that spend it'} paid for it, and they entered the mempool together (child pays for parent). A miner takes them together, at their combined fee rate.`] : []),
    ...(paysFor.length > 0 ? [`This transaction pays for ${paysFor.length === 1 ? 'its parent' : 'its parents'}, which paid less than the minimum on ${paysFor.length === 1 ? 'its' : 'their'} own; they entered the mempool together (child pays for parent). A miner takes them together, at their combined fee rate.`] : []),
  ];
  return { pays_for: paysFor, paid_by: paidBy, message: parts.join(' ') };
}
