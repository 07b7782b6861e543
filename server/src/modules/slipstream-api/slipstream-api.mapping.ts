import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { DiscountLookup } from '../discounts/discount-lookup.ts';
import type { MarketSnapshot } from '../pricing/market-rate.ts';
import type { PortalSettings } from '../settings/settings.store.ts';
import type { StatusResponse } from '../status/status.schemas.ts';
import type { PackageResult } from '../submission/submission.schemas.ts';
import type { ExplorerDetails } from './explorer-details.ts';
import type { RatesResponse } from './slipstream-api.schemas.ts';
import type { Quote as SignedQuote } from '../quotes/quote-token.ts';

/**
 * The portal's answers in the public service's field names: one service
 * underneath (submission, status, pricing), this shape on top. Pure
 * functions, so the mapping is read (and tested) apart from the routes.
 */

export interface Quote {
  settings: PortalSettings;
  snapshot: MarketSnapshot;
  threshold: number;
  discount: DiscountLookup;
  /** The threshold as a signed quote a submission may name (modules/quotes/). */
  signed?: SignedQuote;
}

/** /api/rates from the price a submission with the same client code would be judged by now. */
export function ratesOf(quote: Quote): RatesResponse {
  const percent = quote.discount.kind === 'applied' ? quote.discount.discountPercentage : 0;
  const discounted = quote.settings.multiplier * (1 - percent / 100);
  return {
    market_rate: quote.snapshot.marketRate,
    multiplier: quote.settings.multiplier,
    multiplier_discount_percent: percent,
    discounted_multiplier: discounted,
    submit_fee_rate: quote.settings.feeRateFloor,
    slipstream_rate: quote.snapshot.marketRate * discounted,
    // The threshold itself (fee-math.ts thresholdRate), not recomputed here: what submit-tx applies.
    effective_rate: quote.threshold,
    ...(quote.discount.kind === 'refused' ? { notice: quote.discount.notice } : {}),
    ...(quote.signed ? { quote: quote.signed } : {}),
  };
}

/** The public service reports its chain as rust-bitcoin names networks; the portal's `mainnet` is its `bitcoin`. */
export function chainName(network: string): string {
  return network === 'mainnet' ? 'bitcoin' : network;
}

/** /api/transactions/status from status-check's answer. */
export function txStatusOf(answer: StatusResponse) {
  const { transaction: tx } = answer;
  return {
    is_success: true as const,
    tx_id: tx.txid,
    state: answer.state,
    confirmed: tx.status.confirmed,
    block_height: tx.status.block_height,
    block_hash: tx.status.block_hash,
    block_time: tx.status.block_time,
    fee: tx.fee,
    vsize: tx.vsize,
    weight: tx.weight,
    first_seen: tx.firstSeen,
    projected_block: tx.position.block,
    rate_to_beat: answer.rate_to_beat,
    functional_rate: answer.functional_rate,
    last_24h_odds: answer.last_24h_odds,
    last_7d_odds: answer.last_7d_odds,
    expected_next_block_seconds: answer.expected_next_block_seconds,
    removal_reason: answer.removal?.reason ?? null,
    replaced_by: answer.removal?.replaced_by ?? null,
    // The same numbers and field names as status-check's `bump`: the portal builds no transaction.
    bump_advice: answer.bump ?? null,
  };
}

type NodePackageResult = PackageResult['result'];

/** Each member the node judged, in the node's (package) order: accepted, or its reason. */
export function packageMembers(result: NodePackageResult) {
  return Object.entries(result['tx-results'] ?? {}).map(([wtxid, r]) => ({
    txid: r.txid ?? null,
    wtxid,
    status: r.error ? ('error' as const) : ('success' as const),
    message: r.error ?? 'accepted',
  }));
}

/** An explorer's (Esplora's) status object: the block fields only once confirmed. */
export function explorerStatusOf(answer: StatusResponse) {
  const { status } = answer.transaction;
  if (!status.confirmed || status.block_height === null || status.block_hash === null) return { confirmed: false };
  return { confirmed: true, block_height: status.block_height, block_hash: status.block_hash, ...(status.block_time === null ? {} : { block_time: status.block_time }) };
}

/** An explorer's (Esplora's) transaction, from the portal's copy of it and its status. */
export function explorerTxOf(tx: DecodedTx, answer: StatusResponse, details: ExplorerDetails) {
  const coinbase = (txid: string) => /^0{64}$/.test(txid);
  return {
    txid: tx.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.inputs.map((i, k) => ({
      txid: i.txid,
      vout: i.vout,
      prevout: details.prevouts[k] ?? null,
      scriptsig: i.scriptSig,
      ...(i.witness.length > 0 ? { witness: i.witness } : {}),
      is_coinbase: coinbase(i.txid),
      sequence: i.sequence,
    })),
    vout: details.outputs,
    size: tx.size,
    weight: tx.weight,
    fee: answer.transaction.fee,
    status: explorerStatusOf(answer),
  };
}
