import { RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { lookupDiscount, type DiscountLookup } from '../discounts/discount-lookup.ts';
import { thresholdRate } from '../pricing/fee-math.ts';
import type { MarketRateSource, MarketSnapshot } from '../pricing/market-rate.ts';
import type { PolicyOracle } from '../policy/policy-oracle.ts';
import type { PortalSettings, SettingsStore } from '../settings/settings.store.ts';
import { isRetryableFailure } from './failure-policy.ts';
import { recordedTxids, type PortalTxids } from './portal-records.repository.ts';
import { offerParents, offeredBy, type OfferedParent } from './offered-parents.repository.ts';
import type { PricingOptions } from './prevouts.ts';
import type { PublicMempool } from './public-mempool.ts';
import { createPrivateConflicts, type PrivateConflicts } from './private-conflicts.ts';
import type { RecordKeeper } from './record-keeper.ts';
import { recordFailure, type NewFailure } from './submission.repository.ts';
import { MAINTENANCE_MESSAGE } from './submission-rules.ts';

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
  /** The public network's mempool (PUBLIC_MEMPOOL_RPC_URL): a child may be priced with a parent it holds. None without. */
  publicMempool?: PublicMempool | undefined;
}

export interface SubmitOptions {
  /** A staff retry keeps the time the user first submitted (ISO 8601). */
  createdAt?: string;
  /**
   * The submitter's address (request.ip): a transaction it submits below the
   * minimum is remembered as a parent it offered, and its child is priced
   * with the parents it offered (child pays for parent). None for staff retries.
   */
  clientAddress?: string | undefined;
}

export interface SubmissionContext extends SubmissionDeps {
  /** Which of these txids the portal recorded. */
  portalTxids: PortalTxids;
  pricing: PricingOptions;
  conflicts: PrivateConflicts;
}

/** The market, the threshold and the discount a submission is priced with. */
export interface PricingContext {
  snapshot: MarketSnapshot;
  threshold: number;
  discount: DiscountLookup;
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
  return { ...deps, portalTxids, pricing, conflicts };
}

/**
 * How a submission from `clientAddress` is priced: with the portal's own
 * parents, public ones, and the parents this address offered (none without
 * an address). The same questions whatever the parents are, so a private
 * parent costs what an unknown one does.
 */
export function pricingFor(service: SubmissionContext, clientAddress: string | undefined): PricingOptions {
  if (clientAddress === undefined) return service.pricing;
  const { db, clock } = service;
  return { ...service.pricing, outside: { ...service.pricing.outside!, givenHexes: (txids) => offeredBy(db, clientAddress, txids, clock.now()) } };
}

/**
 * Remembers transactions refused as below the minimum as parents this
 * address offered, for a child to pay for (offered-parents.repository.ts).
 * Never fails the answer: without the row, a child is refused as before.
 */
export async function offer(service: SubmissionContext, clientAddress: string | undefined, offered: readonly OfferedParent[]): Promise<void> {
  if (clientAddress === undefined || offered.length === 0) return;
  await offerParents(service.db, clientAddress, offered, service.clock.now()).catch((error: unknown) => {
    service.log.error({ err: error }, 'Could not remember an offered parent');
  });
}

/** The settings this submission is judged by, read once: refused here when in maintenance. */
export async function openForSubmissions(service: SubmissionContext): Promise<PortalSettings> {
  const current = await service.settings.get();
  if (current.maintenanceMode) throw new ApiError(503, MAINTENANCE_MESSAGE);
  return current;
}

export async function pricingContext(service: SubmissionContext, clientCode: string | undefined, known?: PortalSettings): Promise<PricingContext> {
  const { settings, market, db, clock } = service;
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
 * Keeps a transaction the node could not take, for staff to retry: when the
 * node was unreachable or too slow, or refused it for a reason that passes
 * (a full mempool, chain limits). Bad hex, unknown inputs, a fee under the
 * minimum or a consensus failure would be refused again on retry, so they
 * are not stored: strangers cannot fill the database with them (the audit
 * trail still shows each attempt).
 */
export async function fail(service: SubmissionContext, failure: Omit<NewFailure, 'status' | 'error'>, error: unknown): Promise<void> {
  if (!isRetryableFailure(error)) return;
  const status = error instanceof RpcTransportError && error.kind === 'timeout' ? 'Timeout' : 'Failed';
  const message = error instanceof Error ? error.message : String(error);
  // The failure row is what lets staff retry: if even that cannot be written,
  // the user still gets an error and keeps their transaction.
  await recordFailure(service.db, { ...failure, status, error: message }).catch((dbError: unknown) => {
    service.log.error({ err: dbError, txid: failure.txid }, 'Could not record a failed submission');
  });
}

/** The node's own verdict on a transaction it was not sent, whose inputs are all known: outputs worth more than them. */
export async function nodeVerdict(service: SubmissionContext, hexes: string[]): Promise<string[]> {
  const results = await service.rpc.call<Array<{ txid: string; allowed?: boolean; 'reject-reason'?: string; 'package-error'?: string }>>(
    'testmempoolaccept',
    [hexes.map(validatedHex)],
  );
  return results.flatMap((r) => (r['reject-reason'] ? [r['reject-reason']] : r['package-error'] ? [r['package-error']] : []));
}
