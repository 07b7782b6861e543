import { createHash, randomUUID } from 'node:crypto';
import { RpcCode, RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import { decodeTxHex, MAX_BLOCK_WEIGHT, TxDecodeError, type DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { Database } from '../../db/database.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { lookupDiscount, normaliseClientCode, type DiscountLookup } from '../discounts/discount-lookup.ts';
import { clearsThreshold, feeRate, functionalClears, functionalRate, thresholdRate } from '../pricing/fee-math.ts';
import type { MarketRateSource, MarketSnapshot } from '../pricing/market-rate.ts';
import type { PortalSettings, SettingsStore } from '../settings/settings.store.ts';
import { priceTransactions, type PricedTx } from './prevouts.ts';
import { isRetryableFailure } from './failure-policy.ts';
import { recordedTxids } from './portal-records.repository.ts';
import { createPrivateConflicts } from './private-conflicts.ts';
import type { RecordKeeper } from './record-keeper.ts';
import { claimSubmission, recordFailure, releaseClaim, type NewFailure, type NewSubmission } from './submission.repository.ts';
import type { PackageResult, ParseResponse, ParsedTxItem, SubmitResponse } from './submission.schemas.ts';

/** Bitcoin Core's MAX_PACKAGE_COUNT (policy/packages.h). */
export const MAX_PACKAGE_COUNT = 25;

export const FEE_TOO_LOW_MESSAGE = 'The transaction fee is too low for this service. Raise the fee and submit again.';
export const PACKAGE_FEE_TOO_LOW_MESSAGE =
  'pays too low a fee for this service. In a package every transaction must clear the minimum on its own; child-pays-for-parent works only for transactions submitted one at a time.';
export const MAINTENANCE_MESSAGE = 'Submissions are paused for maintenance. Please check back later.';
/**
 * The answer for a transaction spending an output the portal cannot price:
 * one nobody knows, or one of a transaction the node holds but the portal
 * did not record (private until mined, SPEC.md section 1). Not the node's
 * verdict on it: the node knows the second kind, and its checks of amounts
 * and scripts would tell it apart.
 */
export const MISSING_INPUTS_MESSAGE = 'missing-inputs';

/** Lists longer than this are cut in parse answers; the counts are always given. */
const PARSE_LIST_LIMIT = 100;

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
}

export interface SubmitOptions {
  /** A staff retry keeps the time the user first submitted (ISO 8601). */
  createdAt?: string;
}

interface PricingContext {
  snapshot: MarketSnapshot;
  threshold: number;
  discount: DiscountLookup;
}

export function createSubmissionService(deps: SubmissionDeps) {
  const { db, rpc, market, settings, records, clock, log } = deps;
  const portalTxids = (txids: readonly string[]) => recordedTxids(db, txids);
  const pricing = { bytesPerSigop: deps.bytesPerSigop, portalTxids };
  const conflicts = createPrivateConflicts({ rpc, portalTxids });

  /** The settings this submission is judged by, read once: refused here when in maintenance. */
  async function openForSubmissions(): Promise<PortalSettings> {
    const current = await settings.get();
    if (current.maintenanceMode) throw new ApiError(503, MAINTENANCE_MESSAGE);
    return current;
  }

  async function pricingContext(clientCode: string | undefined, known?: PortalSettings): Promise<PricingContext> {
    const [current, snapshot, discount] = await Promise.all([known ?? settings.get(), market.snapshot(), lookupDiscount(db, clientCode, clock.now())]);
    const threshold = thresholdRate({
      feeRateFloor: current.feeRateFloor,
      multiplier: current.multiplier,
      marketRate: snapshot.marketRate,
      discountPercentage: discount.kind === 'applied' ? discount.discountPercentage : 0,
    });
    return { snapshot, threshold, discount };
  }

  /**
   * Keeps a transaction the node could not take, for staff to retry: when the
   * node was unreachable or too slow, or refused it for a reason that passes
   * (a full mempool, chain limits). Bad hex, unknown inputs, a fee under the
   * minimum or a consensus failure would be refused again on retry, so they
   * are not stored: strangers cannot fill the database with them (the audit
   * trail still shows each attempt).
   */
  async function fail(failure: Omit<NewFailure, 'status' | 'error'>, error: unknown): Promise<void> {
    if (!isRetryableFailure(error)) return;
    const status = error instanceof RpcTransportError && error.kind === 'timeout' ? 'Timeout' : 'Failed';
    const message = error instanceof Error ? error.message : String(error);
    // The failure row is what lets staff retry: if even that cannot be written,
    // the user still gets an error and keeps their transaction.
    await recordFailure(db, { ...failure, status, error: message }).catch((dbError: unknown) => {
      log.error({ err: dbError, txid: failure.txid }, 'Could not record a failed submission');
    });
  }

  /** The node's own verdict on a transaction it was not sent, whose inputs are all known: outputs worth more than them. */
  async function nodeVerdict(hexes: string[]): Promise<string[]> {
    const results = await rpc.call<Array<{ txid: string; allowed?: boolean; 'reject-reason'?: string; 'package-error'?: string }>>(
      'testmempoolaccept',
      [hexes.map(validatedHex)],
    );
    return results.flatMap((r) => (r['reject-reason'] ? [r['reject-reason']] : r['package-error'] ? [r['package-error']] : []));
  }

  function notice(ctx: PricingContext): { notice?: string } {
    return ctx.discount.kind === 'refused' ? { notice: ctx.discount.notice } : {};
  }

  async function submitTx(rawHex: string, rawClientCode: string | undefined, options: SubmitOptions = {}): Promise<SubmitResponse> {
    const hex = rawHex.trim();
    const clientCode = normaliseClientCode(rawClientCode);
    const tx = await decodeOrReject(hex);
    const current = await openForSubmissions();

    const failure = { txid: tx.txid, txHex: hex, txHexes: null, submissionType: 'tx' as const, clientCode: clientCode ?? null };
    let ctx: PricingContext;
    let priced: PricedTx;
    try {
      [ctx, [priced]] = (await Promise.all([pricingContext(clientCode, current), priceTransactions(rpc, [tx], pricing)])) as [PricingContext, [PricedTx]];
      if (priced.fee === undefined) throw new ApiError(422, MISSING_INPUTS_MESSAGE);
      // Outputs worth more than the inputs: the node says why in its own words.
      if (priced.fee < 0) {
        const { message, staffDetail } = await conflicts.publicReason((await nodeVerdict([hex]))[0] ?? 'bad-txns-in-belowout', [tx]);
        throw new ApiError(422, message, undefined, staffDetail);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      await fail(failure, error);
      throw nodeFailure(error);
    }

    const own = { feeSats: priced.fee, vsize: priced.vsize };
    if (!functionalClears(own, priced.mempoolAncestors, ctx.threshold)) {
      // Already in the mempool, submitted here earlier when the market was
      // lower: it stays there, so a repeat is not a refusal. One the portal
      // did not record is not looked for (private until mined).
      if ((await portalTxids([tx.txid])).has(tx.txid) && (await inMempool(tx.txid))) return { status: 'success', message: tx.txid, ...notice(ctx) };
      throw new ApiError(422, FEE_TOO_LOW_MESSAGE, notice(ctx));
    }

    const rate = feeRate(priced.fee, priced.vsize);
    const submission: NewSubmission = {
      txid: tx.txid,
      wtxid: tx.wtxid,
      txHex: hex,
      clientCode: clientCode ?? null,
      discountCodeId: ctx.discount.kind === 'applied' ? ctx.discount.discountCodeId : null,
      size: tx.size,
      vsize: priced.vsize,
      weight: tx.weight,
      fee: priced.fee,
      feeRate: rate,
      functionalRate: functionalRate(own, priced.mempoolAncestors),
      marketRate: ctx.snapshot.marketRate,
      thresholdRate: ctx.threshold,
      multiplier: rate / ctx.snapshot.marketRate,
      createdAt: options.createdAt,
    };

    // Always ask the node, even for a transaction recorded before: it may have
    // been evicted or replaced since, and a resubmission puts it back. The row
    // is written meanwhile, as this request's pending claim, so that it exists
    // before the user hears "success" without a write after the node's answer.
    const claim = randomUUID();
    const [sent, claimed] = await Promise.allSettled([rpc.call<string>('sendrawtransaction', [validatedHex(hex)]), claimSubmission(db, submission, claim)]);
    // Already mined counts as done: the submission did what the user wanted.
    const accepted = sent.status === 'fulfilled' || (sent.reason instanceof RpcError && sent.reason.code === RpcCode.VERIFY_ALREADY_IN_CHAIN);
    if (!accepted) {
      if (claimed.status === 'fulfilled') {
        await releaseClaim(db, tx.txid, claim).catch((error: unknown) => log.error({ err: error, txid: tx.txid }, 'Could not take back a refused submission\'s pending row'));
      }
      await fail(failure, sent.reason);
      throw await conflicts.refusal(sent.reason, [tx]);
    }

    // Accepted: the row becomes 'accepted' (or is written, or spooled to disk
    // when the database is down). With the pending row in place that can
    // finish after the answer; without it, the answer waits for it.
    const recorded = records.track(
      holdsOurCopy(tx).then(async (ours) => {
        if (ours) return records.keep({ kind: 'tx', submission });
        await releaseClaim(db, tx.txid, claim);
      }),
    );
    if (claimed.status === 'rejected') await recorded;
    else recorded.catch((error: unknown) => log.error({ err: error, txid: tx.txid }, 'An accepted submission stays pending: neither the database nor the spool took it'));
    return { status: 'success', message: tx.txid, ...notice(ctx) };
  }

  /**
   * The node answers "success" for a transaction whose txid it already holds,
   * even when the copy it holds has another witness (same txid, other wtxid):
   * then this copy is not what will be mined, and the one recorded must be
   * the copy the node holds (its own submitter records it).
   */
  async function holdsOurCopy(tx: DecodedTx): Promise<boolean> {
    try {
      const entry = await rpc.call<{ wtxid?: string }>('getmempoolentry', [tx.txid]);
      return entry.wtxid === undefined || entry.wtxid === tx.wtxid;
    } catch {
      // Mined already, or the node went away: record this copy, as accepted.
      return true;
    }
  }

  async function inMempool(txid: string): Promise<boolean> {
    try {
      await rpc.call('getmempoolentry', [txid]);
      return true;
    } catch (error) {
      if (error instanceof RpcError) return false;
      throw nodeFailure(error);
    }
  }

  async function submitPackage(rawHexes: string[], rawClientCode: string | undefined, options: SubmitOptions = {}): Promise<PackageResult> {
    const hexes = normaliseItems(rawHexes);
    const clientCode = normaliseClientCode(rawClientCode);
    const txs = await decodePackageOrReject(hexes);
    const current = await openForSubmissions();
    const txids = txs.map((t) => t.txid);
    const failure = { txid: txids[txids.length - 1]!, txHex: hexes[hexes.length - 1]!, txHexes: hexes, submissionType: 'package' as const, clientCode: clientCode ?? null };

    let ctx: PricingContext;
    let priced: PricedTx[];
    try {
      ctx = await pricingContext(clientCode, current);
      priced = await priceTransactions(rpc, txs, pricing);
      if (priced.some((p) => p.fee === undefined)) throw new ApiError(422, MISSING_INPUTS_MESSAGE);
      if (priced.some((p) => p.fee! < 0)) {
        const { message, staffDetail } = await conflicts.publicReason((await nodeVerdict(hexes))[0] ?? 'bad-txns-in-belowout', txs);
        throw new ApiError(422, message, undefined, staffDetail);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      await fail(failure, error);
      throw nodeFailure(error);
    }

    // Packages get no child-pays-for-parent (SPEC.md section 1): each member on its own.
    const cheap = priced.findIndex((p) => !clearsThreshold(p.fee!, p.vsize, ctx.threshold));
    if (cheap >= 0) {
      throw new ApiError(422, `Transaction ${cheap + 1} of the package ${PACKAGE_FEE_TOO_LOW_MESSAGE}`, notice(ctx));
    }

    let result: PackageResult['result'];
    try {
      result = await rpc.call<PackageResult['result']>('submitpackage', [hexes.map(validatedHex)]);
    } catch (error) {
      await fail(failure, error);
      throw await conflicts.refusal(error, txs);
    }
    // Members the node took are in its mempool even when the package as a
    // whole failed: they are recorded all the same.
    const accepted = new Set(Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.txid && !r.error ? [r.txid] : [])));
    const kept = priced.flatMap((p, i) => (accepted.has(p.tx.txid) ? [{ p, hex: hexes[i]! }] : []));
    if (kept.length > 0) {
      const totalFee = kept.reduce((sum, k) => sum + k.p.fee!, 0);
      const totalVsize = kept.reduce((sum, k) => sum + k.p.vsize, 0);
      const rate = feeRate(totalFee, totalVsize);
      const keptTxids = kept.map((k) => k.p.tx.txid);
      await records.keep({
        kind: 'package',
        submission: {
          packageHash: createHash('sha256').update(keptTxids.join(',')).digest('hex'),
          txids: keptTxids,
          txHexes: kept.map((k) => k.hex),
          clientCode: clientCode ?? null,
          discountCodeId: ctx.discount.kind === 'applied' ? ctx.discount.discountCodeId : null,
          totalSize: kept.reduce((sum, k) => sum + k.p.tx.size, 0),
          totalVsize,
          totalWeight: kept.reduce((sum, k) => sum + k.p.tx.weight, 0),
          totalFee,
          feeRate: rate,
          marketRate: ctx.snapshot.marketRate,
          multiplier: rate / ctx.snapshot.marketRate,
          packageMsg: result.package_msg,
          createdAt: options.createdAt,
        },
      });
    }
    if (result.package_msg !== 'success') {
      const errors = Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.error ? [r.error] : []));
      const reasons = errors.join('; ') || result.package_msg;
      await fail(failure, new RpcError('submitpackage', RpcCode.VERIFY_REJECTED, reasons));
      const { message, staffDetail } = await conflicts.publicReason(reasons, txs);
      if (staffDetail === undefined) throw new ApiError(422, errors[0] ?? result.package_msg, { result });
      // Each member's reason and the package's would describe the private conflict: one sentence for all of them.
      throw new ApiError(422, message, { result: withoutReasons(result, message) }, staffDetail);
    }
    return { status: 'success', message: result.package_msg, result, ...notice(ctx) };
  }

  async function parse(rawHexes: string[], rawClientCode: string | undefined): Promise<ParseResponse> {
    const hexes = normaliseItems(rawHexes);
    const clientCode = normaliseClientCode(rawClientCode);
    if (hexes.length === 0) throw new ApiError(400, 'Transaction hex is empty.');
    if (hexes.length > MAX_PACKAGE_COUNT) throw new ApiError(400, `A package holds at most ${MAX_PACKAGE_COUNT} transactions.`);
    const decoded: Array<DecodedTx | TxDecodeError> = [];
    for (const hex of hexes) {
      if (hex.length > YIELD_ABOVE_HEX_CHARS) await nextTurn();
      try {
        decoded.push(decodeTxHex(hex));
      } catch (error) {
        if (!(error instanceof TxDecodeError)) throw error;
        decoded.push(error);
      }
    }
    const txs = decoded.filter((d): d is DecodedTx => !(d instanceof TxDecodeError));

    let ctx: PricingContext | undefined;
    // By the decoded transaction itself, not its txid: two copies of one
    // transaction with different witnesses share a txid, not a size.
    let priced = new Map<DecodedTx, PricedTx>();
    let pricingNote: string | undefined;
    try {
      ctx = await pricingContext(clientCode);
      priced = new Map((await priceTransactions(rpc, txs, pricing)).map((p) => [p.tx, p]));
    } catch (error) {
      if (!(error instanceof RpcError || error instanceof RpcTransportError)) throw error;
      pricingNote = 'The fee could not be checked because the mining node is not reachable right now.';
    }

    const single = hexes.length === 1;
    const transactions: ParsedTxItem[] = decoded.map((d) => {
      if (d instanceof TxDecodeError) return { status: 'error', message: d.message };
      const p = priced.get(d);
      const fee = p?.fee;
      const vsize = p?.vsize ?? d.vsize;
      let meets: boolean | null = null;
      let functional: number | null = null;
      if (fee !== undefined && ctx) {
        const own = { feeSats: fee, vsize };
        const ancestors = single ? p!.mempoolAncestors : [];
        meets = functionalClears(own, ancestors, ctx.threshold);
        functional = functionalRate(own, ancestors);
      }
      const message = pricingNote ?? (fee === undefined ? 'Some inputs spend outputs the mining node does not know, so the fee is unknown.' : meets ? 'The fee clears the current minimum.' : FEE_TOO_LOW_MESSAGE);
      return {
        status: 'success',
        message,
        txid: d.txid,
        wtxid: d.wtxid,
        version: d.version,
        locktime: d.locktime,
        size: d.size,
        vsize,
        weight: d.weight,
        fee: fee ?? null,
        fee_rate: fee === undefined ? null : feeRate(fee, vsize),
        functional_rate: functional,
        meets_minimum_fee: meets,
        input_count: d.inputs.length,
        output_count: d.outputs.length,
        inputs: d.inputs.slice(0, PARSE_LIST_LIMIT).map((i) => ({ txid: i.txid, vout: i.vout, sequence: i.sequence })),
        outputs: d.outputs.slice(0, PARSE_LIST_LIMIT).map((o) => ({ value: o.value, script_pubkey: o.scriptPubKey })),
      };
    });
    const failed = transactions.filter((t) => t.status === 'error').length;
    return {
      status: failed === 0 ? 'success' : 'error',
      message: failed === 0 ? `Decoded ${transactions.length} transaction${single ? '' : 's'}.` : `${failed} of ${transactions.length} could not be decoded.`,
      ...(ctx ? notice(ctx) : {}),
      transactions,
    };
  }

  async function info(network: string) {
    const [current, snapshot] = await Promise.all([settings.get(), market.snapshot()]).catch((error: unknown) => {
      throw nodeFailure(error);
    });
    const threshold = thresholdRate({ feeRateFloor: current.feeRateFloor, multiplier: current.multiplier, marketRate: snapshot.marketRate, discountPercentage: 0 });
    return { block_height: snapshot.height - 1, network, fee_rate: threshold };
  }

  return { submitTx, submitPackage, parse, info };
}

export type SubmissionService = ReturnType<typeof createSubmissionService>;

/** A submitpackage result with the package's and every refused member's reason replaced by `message`. */
function withoutReasons(result: PackageResult['result'], message: string): PackageResult['result'] {
  const txResults = Object.fromEntries(Object.entries(result['tx-results'] ?? {}).map(([wtxid, r]) => [wtxid, r.error ? { ...r, error: message } : r]));
  return { ...result, package_msg: message, 'tx-results': txResults };
}

/** Trim every item and drop empty ones (SPEC.md section 5). */
function normaliseItems(items: string[]): string[] {
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Above this much hex, decoding yields to the event loop first: body parsing
 * and decoding a multi-megabyte transaction would otherwise run as one block
 * long enough to stall every other request.
 */
const YIELD_ABOVE_HEX_CHARS = 256 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function decodeOrReject(hex: string): Promise<DecodedTx> {
  if (hex.length > YIELD_ABOVE_HEX_CHARS) await nextTurn();
  try {
    return decodeTxHex(hex);
  } catch (error) {
    if (error instanceof TxDecodeError) throw new ApiError(400, error.message);
    throw error;
  }
}

async function decodePackageOrReject(hexes: string[]): Promise<DecodedTx[]> {
  if (hexes.length === 0) throw new ApiError(400, 'The package is empty.');
  if (hexes.length > MAX_PACKAGE_COUNT) throw new ApiError(400, `A package holds at most ${MAX_PACKAGE_COUNT} transactions.`);
  const txs: DecodedTx[] = [];
  for (const [i, hex] of hexes.entries()) {
    try {
      txs.push(await decodeOrReject(hex));
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(400, `Transaction ${i + 1} of the package: ${error.message}`);
      throw error;
    }
  }
  const weight = txs.reduce((s, t) => s + t.weight, 0);
  if (weight > MAX_BLOCK_WEIGHT) {
    throw new ApiError(400, `The package weighs ${weight.toLocaleString('en-US')} weight units, more than a block can hold (4,000,000).`);
  }
  if (new Set(txs.map((t) => t.txid)).size !== txs.length) throw new ApiError(400, 'The package contains the same transaction twice.');
  return txs;
}
