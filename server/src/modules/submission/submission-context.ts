import { RpcCode, RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { lookupDiscount, type DiscountLookup } from '../discounts/discount-lookup.ts';
import { thresholdRate } from '../pricing/fee-math.ts';
import type { MarketRateSource, MarketSnapshot } from '../pricing/market-rate.ts';
import type { PolicyOracle } from '../policy/policy-oracle.ts';
import type { PolicyShares } from '../policy/policy-verdicts.ts';
import type { PortalSettings, SettingsStore } from '../settings/settings.store.ts';
import { isRetryableFailure } from './failure-policy.ts';
import { recordedTxids, type PortalTxids } from './portal-records.repository.ts';
import { recordedCoreRefusals } from './standard-verdicts.repository.ts';
import type { PricedTx, PricingOptions } from './prevouts.ts';
import { offerParents, offeredBy, type OfferedParent } from './offered-parents.repository.ts';
import type { PublicMempool } from './public-mempool.ts';
import { createPrivateConflicts, type PrivateConflicts } from './private-conflicts.ts';
import type { RecordKeeper } from './record-keeper.ts';
import { signaturesVerdict } from './signature-check.ts';
import { recordFailure, type NewFailure } from '../failed-txs/failed-txs.repository.ts';
import { DEFAULT_FAILURE_STORAGE, type FailureStorageBound } from '../failed-txs/failed-tx-storage.ts';
import { MAINTENANCE_MESSAGE } from './submission-rules.ts';
import type { CheckedQuote } from '../quotes/quote-token.ts';
import type { QuoteAndReceiptDeps } from './quote-and-receipt.ts';

/**
 * What the submission paths (submit-tx.ts, submit-package.ts, parse-txs.ts)
 * share: the service's dependencies, made once by createSubmissionService,
 * and the steps they have in common: the settings a submission is judged
 * by, its price threshold, the failure kept for staff, the node's verdict.
 */

export interface SubmissionDeps {
  db: Database;
  rpc: RpcClient;
  market: MarketRateSource;
  settings: SettingsStore;
  records: RecordKeeper;
  clock: Clock;
  log: Logger;
  /** The node's -bytespersigop, for the sigop-adjusted virtual size. */
  bytesPerSigop: number;
  /** The standard-policy oracle (modules/policy/); without it every "standard" verdict is "unknown". */
  policy?: PolicyOracle | undefined;
  /** A node with Knots' default policy: the 'knots' verdict (policy-verdicts.ts); "unknown" without. */
  knotsPolicy?: PolicyOracle | undefined;
  /** The share of the network each relay policy stands for, as the operator configured it (POLICY_NETWORK_SHARES); none unset. */
  policyShares?: PolicyShares | undefined;
  /** What one client address may make the portal store as failed submissions in a day (DEFAULT_FAILURE_STORAGE without). */
  failureStorage?: FailureStorageBound | undefined;
  /** The public network's mempool (PUBLIC_MEMPOOL_RPC_URL): a child may be priced with a parent it holds. None without. */
  publicMempool?: PublicMempool | undefined;
  /** Fee quotes a submission may name, and the receipts accepted ones are answered with (quote-and-receipt.ts). */
  quotes?: QuoteAndReceiptDeps['quotes'];
  receipts?: QuoteAndReceiptDeps['receipts'];
}

export interface SubmitOptions {
  /** A staff retry keeps the time the user first submitted (ISO 8601). */
  createdAt?: string;
  /**
   * Answer only once the accepted record is written to the database or
   * spooled, and to hear when neither took it (a user's answer hears success
   * all the same, the block scan settling the row later): a staff retry reads the
   * record before it calls the failure resolved.
   */
  waitForRecord?: boolean;
  /**
   * The submitter's address group (http/sse-registry.ts addressGroup), none
   * for staff retries: what it may make the portal store as failures is
   * bounded; a transaction it submits below the minimum is remembered as a
   * parent it offered, and its child is priced with the parents it offered
   * (child pays for parent).
   */
  clientAddress?: string | undefined;
  /** A fee quote the submitter holds (modules/quotes/): judged at its minimum while it holds, refused (422) when it does not. */
  quoteId?: string | undefined;
}

export interface SubmissionContext extends SubmissionDeps {
  failureStorage: FailureStorageBound;
  /** Which of these txids the portal recorded. */
  portalTxids: PortalTxids;
  /** Which of these the portal recorded as refused by Core 30's nodes, with the reason code (policy-verdicts.ts ancestorRefusals). */
  recordedRefusals: (txids: readonly string[]) => Promise<Map<string, string>>;
  pricing: PricingOptions;
  conflicts: PrivateConflicts;
}

/** The market, the threshold and the discount a submission is priced with. */
export interface PricingContext {
  snapshot: MarketSnapshot;
  threshold: number;
  discount: DiscountLookup;
  /** The quote the threshold comes from, when one held (quote-and-receipt.ts withQuote). */
  quote?: CheckedQuote;
}

export function createSubmissionContext(deps: SubmissionDeps): SubmissionContext {
  const { db, rpc } = deps;
  const portalTxids = (txids: readonly string[]) => recordedTxids(db, txids);
  const publicMempool = deps.publicMempool;
  const pricing: PricingOptions = {
    bytesPerSigop: deps.bytesPerSigop,
    portalTxids,
    outside: { publicTxids: (txids) => (publicMempool ? publicMempool.holds(txids) : Promise.resolve(new Set())), givenHexes: () => Promise.resolve(new Map()) },
  };
  const conflicts = createPrivateConflicts({ rpc, portalTxids });
  const recordedRefusals = (txids: readonly string[]) => recordedCoreRefusals(db, txids);
  return { ...deps, portalTxids, recordedRefusals, pricing, conflicts, failureStorage: deps.failureStorage ?? DEFAULT_FAILURE_STORAGE };
}

/**
 * How a submission from `clientAddress` is priced: with the portal's own
 * parents, public ones, and the parents this address offered (none without
 * an address). The same questions whatever the parents are, so a private
 * parent costs what an unknown one does.
 */
export function pricingFor(context: Pick<SubmissionContext, 'pricing' | 'db' | 'clock'>, clientAddress: string | undefined): PricingOptions {
  if (clientAddress === undefined) return context.pricing;
  const { db, clock } = context;
  return { ...context.pricing, outside: { ...context.pricing.outside!, givenHexes: (txids) => offeredBy(db, clientAddress, txids, clock.now()) } };
}

/**
 * Remembers transactions refused as below the minimum as parents this
 * address offered, for a child to pay for (offered-parents.repository.ts).
 * Never fails the answer: without the row, a child is refused as before.
 */
export async function offer(context: Pick<SubmissionContext, 'db' | 'clock' | 'log'>, clientAddress: string | undefined, offered: readonly OfferedParent[]): Promise<void> {
  if (clientAddress === undefined || offered.length === 0) return;
  await offerParents(context.db, clientAddress, offered, context.clock.now()).catch((error: unknown) => {
    context.log.error({ err: error }, 'Could not remember an offered parent');
  });
}

/** The settings this submission is judged by, read once: refused here when in maintenance. */
export async function openForSubmissions(settings: Pick<SettingsStore, 'get'>): Promise<PortalSettings> {
  const current = await settings.get();
  if (current.maintenanceMode) throw new ApiError(503, MAINTENANCE_MESSAGE);
  return current;
}

export async function pricingContext(context: Pick<SubmissionContext, 'settings' | 'market' | 'db' | 'clock'>, clientCode: string | undefined, known?: PortalSettings): Promise<PricingContext> {
  const { settings, market, db, clock } = context;
  const [current, snapshot, discount] = await Promise.all([known ?? settings.get(), market.snapshot(), lookupDiscount(db, clientCode, clock.now())]);
  const threshold = thresholdRate({
    feeRateFloor: current.feeRateFloor,
    multiplier: current.multiplier,
    marketRate: snapshot.marketRate,
    discountPercentage: discount.kind === 'applied' ? discount.discountPercentage : 0,
  });
  return { snapshot, threshold, discount };
}

/** A refused discount code's notice, for the answer. */
export function notice(ctx: PricingContext): { notice?: string } {
  return ctx.discount.kind === 'refused' ? { notice: ctx.discount.notice } : {};
}

/**
 * A failed submission as fail() may keep it: the row's fields, the caller's
 * address group, and the transactions as priced (what each input spends),
 * which the signature check reads. Without `priced` (the node failed before
 * pricing finished) nothing can be checked, so nothing is kept.
 */
export type FailedSubmission = Omit<NewFailure, 'status' | 'error'> & { priced?: readonly PricedTx[] | undefined };

/**
 * Keeps a transaction the node could not take, for staff to retry: when the
 * node was unreachable or too slow, or refused it for a reason that passes
 * (a full mempool, chain limits, a timelock not yet reached). Bad hex,
 * unknown inputs, a fee under the minimum or a consensus failure would be
 * refused again on retry, so they are not stored.
 *
 * None of the passing reasons says the transaction is signed: Bitcoin Core
 * checks fees, chain limits and finality before any script
 * (validation.cpp MemPoolAccept::PreChecks), and a timeout says nothing at
 * all. So a failure is kept only when the portal verified every input's
 * signature itself (signature-check.ts) against the outputs pricing found,
 * and only within what one client address may store in a day
 * (FailureStorageBound); or, within the same bound, when the node could
 * not be asked at all before pricing (it judged nothing, and a user's
 * submission is not lost while it is down). Otherwise the user still gets the refusal, and may
 * submit again later; the audit trail still shows each attempt.
 */
export async function fail(context: Pick<SubmissionContext, 'db' | 'log' | 'failureStorage'>, failure: FailedSubmission, error: unknown): Promise<void> {
  if (!isRetryableFailure(error)) return;
  const { priced, ...row } = failure;
  const verdict = signaturesVerdict(priced);
  // The node could not be asked before the spent outputs were known: it
  // judged nothing, and nothing a user submitted may be lost while it is
  // down. Such a failure is kept unchecked, within the same per-address
  // bound (the signatures are checked by the node itself on retry).
  const unpriced = priced === undefined && nodeUnreachable(error);
  if (!verdict.ok && !unpriced) {
    context.log.info({ txid: failure.txid, input: verdict.input, reason: verdict.reason }, 'A failed submission is not kept: its signatures could not be verified');
    return;
  }
  // Timeout says the node may have taken it from the portal (so it counts as the portal's: portal_accepted):
  // only a send that timed out, of a transaction whose signatures were checked. One that timed out while
  // it was being priced never reached the node as a submission, and one whose send the node answered
  // before a later question timed out (submit-tx.ts copyHeld) may be another copy the node held already.
  const status = error instanceof RpcTransportError && error.kind === 'timeout' && SENDS.has(error.method) && !unpriced ? 'Timeout' : 'Failed';
  const message = error instanceof Error ? error.message : String(error);
  // The failure row is what lets staff retry: if even that cannot be written,
  // the user still gets an error and keeps their transaction.
  // While the node is down a client's whole batch waits here to be retried: its bytes are bounded, not its
  // count of rows (a busy client sends many small transactions, and none of them may be lost).
  const bound = unpriced ? { ...context.failureStorage, maxRowsPerAddressPerDay: Number.MAX_SAFE_INTEGER } : context.failureStorage;
  const kept = await recordFailure(context.db, { ...row, status, error: message }, bound).catch((dbError: unknown) => {
    context.log.error({ err: dbError, txid: failure.txid }, 'Could not record a failed submission');
  });
  if (kept === 'over-bound') context.log.info({ txid: failure.txid, clientAddress: failure.clientAddress }, 'A failed submission is not kept: its address stored its day\'s share of failures');
}

/** The node calls that hand it a submission. */
const SENDS = new Set(['sendrawtransaction', 'submitpackage']);

/** The node did not judge: it could not be reached, timed out, or is still starting (-28). */
function nodeUnreachable(error: unknown): boolean {
  return error instanceof RpcTransportError || (error instanceof RpcError && error.code === RpcCode.IN_WARMUP);
}

/** The node's own verdict on a transaction it was not sent, whose inputs are all known: outputs worth more than them. */
export async function nodeVerdict(rpc: RpcClient, hexes: string[]): Promise<string[]> {
  const results = await rpc.call<Array<{ txid: string; allowed?: boolean; 'reject-reason'?: string; 'package-error'?: string }>>(
    'testmempoolaccept',
    [hexes.map(validatedHex)],
  );
  return results.flatMap((r) => (r['reject-reason'] ? [r['reject-reason']] : r['package-error'] ? [r['package-error']] : []));
}
