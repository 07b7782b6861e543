import { createHash } from 'node:crypto';
import { explainRejectReason } from '../../bitcoin/reject-reasons.ts';
import { RpcCode, RpcError } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { notePackageStandardness } from '../policy/note-standardness.ts';
import { feeRate } from '../pricing/fee-math.ts';
import type { PortalSettings } from '../settings/settings.store.ts';
import { recordCpfpLinks, type CpfpLink } from './cpfp-links.repository.ts';
import { judgePackage, type PricedMember } from './package-cpfp.ts';
import { priceTransactions, type PricedTx } from './prevouts.ts';
import { fail, nodeVerdict, notice, openForSubmissions, pricingContext, type FailedSubmission, type PricingContext, type SubmissionContext, type SubmitOptions } from './submission-context.ts';
import { OTHER_WITNESS_MESSAGE, PACKAGE_FEE_TOO_LOW_MESSAGE } from './submission-rules.ts';
import { refuseInvalidSignatures } from './signature-check.ts';
import { unknownInputsRefusal } from './already-confirmed.ts';
import type { PackageResult } from './submission.schemas.ts';
import { decodePackageOrReject, normaliseItems } from './tx-decoding.ts';
import { publicPackageResult } from '../disclosure/public-disclosure.ts';
import { namedQuote, receiptsOf, withQuote } from './quote-and-receipt.ts';

/**
 * A package submitted (submitpackage): every member must clear the minimum
 * on its own, or together with the members that spend it (child pays for
 * parent, package-cpfp.ts; docs/behaviour.md#child-pays-for-parent: for single
 * submissions and in a package). The members the
 * node took are recorded, even when the package as a whole failed, and a
 * member paid for by its child is linked to it for both status answers.
 */

type PackageFailure = FailedSubmission;
type SubmitPackageResult = PackageResult['result'];

export async function submitPackage(service: SubmissionContext, rawHexes: string[], rawClientCode: string | undefined, options: SubmitOptions = {}): Promise<PackageResult> {
  const hexes = normaliseItems(rawHexes);
  const clientCode = normaliseClientCode(rawClientCode);
  const txs = await decodePackageOrReject(hexes);
  const current = await openForSubmissions(service);
  // A quote the submitter holds: checked before anything costs the node (quote-and-receipt.ts).
  const quote = namedQuote(service, options.quoteId, clientCode);
  const txids = txs.map((t) => t.txid);
  const failure: PackageFailure = { txid: txids[txids.length - 1]!, txHex: hexes[hexes.length - 1]!, txHexes: hexes, submissionType: 'package', clientCode: clientCode ?? null, clientAddress: options.clientAddress };
  const [priceCtx, priced] = await pricePackage(service, txs, hexes, clientCode, current, failure);
  const ctx = withQuote(priceCtx, quote);
  refuseInvalidSignatures(priced);

  const members = priced as PricedMember[];
  const { unpaid, lifted } = judgePackage(members, ctx.threshold);
  if (unpaid >= 0) {
    throw new ApiError(422, `Transaction ${unpaid + 1} of the package ${PACKAGE_FEE_TOO_LOW_MESSAGE}`, notice(ctx));
  }
  if (lifted.length > 0) await childrenPass(service, txs, hexes, failure, ctx);

  let result: SubmitPackageResult;
  try {
    result = await service.rpc.call<SubmitPackageResult>('submitpackage', [hexes.map(validatedHex)]);
  } catch (error) {
    await fail(service, { ...failure, priced }, error);
    throw await service.conflicts.refusal(error, txs);
  }
  result = await withoutOtherCopies(service, result);
  await keepAccepted(service, result, priced, hexes, clientCode, ctx, options, lifted);
  // A receipt for each member the node took as sent (not another copy it held) and the portal recorded, whether or not the package as a whole succeeded.
  const taken = takenAsSent(result);
  const receipts = await receiptsOf(service, priced.flatMap((p) => (taken.has(p.tx.txid) ? [{ tx: p.tx, fee: p.fee!, vsize: p.vsize }] : [])), ctx, service.clock.now());
  const withReceipts = Object.keys(receipts).length > 0 ? { receipts } : {};
  // What the answer names beyond the package itself passes the public rule (modules/disclosure/).
  const shown = await publicPackageResult(service.portalTxids, result);
  if (result.package_msg !== 'success') await refuseFailed(service, result, shown, txs, { ...failure, priced }, withReceipts);
  return { status: 'success', message: result.package_msg, result: shown, ...notice(ctx), ...withReceipts };
}

/** The price context and each member's price; refused (422) when a fee cannot be known or is negative. */
async function pricePackage(service: SubmissionContext, txs: DecodedTx[], hexes: string[], clientCode: string | undefined, current: PortalSettings, failure: PackageFailure): Promise<[PricingContext, PricedTx[]]> {
  try {
    const ctx = await pricingContext(service, clientCode, current);
    const priced = await priceTransactions(service.rpc, txs, service.pricing);
    const unknown = priced.flatMap((p, i) => (p.fee === undefined ? [i] : []));
    if (unknown.length > 0) throw await unknownInputsRefusal(service, txs, unknown);
    if (priced.some((p) => p.fee! < 0)) {
      const { message, staffDetail } = await service.conflicts.publicReason((await nodeVerdict(service, hexes))[0] ?? 'bad-txns-in-belowout', txs);
      throw new ApiError(422, message, undefined, staffDetail);
    }
    return [ctx, priced];
  } catch (error) {
    if (error instanceof ApiError) throw error;
    await fail(service, failure, error);
    throw nodeFailure(error);
  }
}

/** The node's verdicts that do not stop a package: already there, or a fee the package as a whole may still pay (submitpackage judges that). */
const NOT_FINAL = /^txn-already-(in-mempool|known)$|^txn-same-nonwitness-data-in-mempool$|^min relay fee not met|^mempool min fee not met/;

/**
 * Before a package whose children pay for a parent below the minimum is
 * sent: the node's testmempoolaccept on it. submitpackage takes each member
 * that passes alone first (validation.cpp AcceptPackage), so a parent that
 * clears the node's own minimum would enter even when its child is then
 * refused, paying less than the portal's minimum: a member the node would
 * refuse for another reason than its fee refuses the whole package here.
 */
async function childrenPass(service: SubmissionContext, txs: DecodedTx[], hexes: string[], failure: PackageFailure, ctx: PricingContext): Promise<void> {
  let reasons: string[];
  try {
    reasons = await nodeVerdict(service, hexes);
  } catch (error) {
    await fail(service, failure, error);
    throw nodeFailure(error);
  }
  const final = reasons.find((r) => !NOT_FINAL.test(r));
  if (final === undefined) return;
  const { message, staffDetail } = await service.conflicts.publicReason(final, txs);
  throw new ApiError(422, staffDetail === undefined ? explainRejectReason(final) : message, notice(ctx), staffDetail);
}

/**
 * A member the node answered with `other-wtxid` was not taken: the node
 * holds the same txid with another witness. When that copy is not the
 * portal's it is private, and the member is answered as refused (as
 * submit-tx answers it), so that neither the answer nor the records say
 * the pool holds it; the package then failed in part.
 */
async function withoutOtherCopies(service: SubmissionContext, result: SubmitPackageResult): Promise<SubmitPackageResult> {
  const entries = Object.entries(result['tx-results'] ?? {});
  // submitpackage's member results carry more than the schema names (additionalProperties).
  const otherWtxid = (r: object) => (r as { 'other-wtxid'?: string })['other-wtxid'];
  const others = entries.flatMap(([, r]) => (otherWtxid(r) !== undefined && r.txid ? [r.txid] : []));
  if (others.length === 0) return result;
  const ours = await service.portalTxids(others);
  const refused = (r: SubmitPackageResult['tx-results'][string]) => otherWtxid(r) !== undefined && r.txid !== undefined && !ours.has(r.txid);
  if (!entries.some(([, r]) => refused(r))) return result;
  const txResults = Object.fromEntries(entries.map(([wtxid, r]) => [wtxid, refused(r) ? { txid: r.txid, error: OTHER_WITNESS_MESSAGE } : r]));
  return { ...result, package_msg: 'transaction failed', 'tx-results': txResults };
}

/** The txids of the members the node took. */
function acceptedTxids(result: SubmitPackageResult): Set<string> {
  return new Set(Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.txid && !r.error ? [r.txid] : [])));
}

/** The txids of the members the node took in the very copy sent: another witness it already held (`other-wtxid`) is not this copy. */
function takenAsSent(result: SubmitPackageResult): Set<string> {
  return new Set(Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.txid && !r.error && (r as { 'other-wtxid'?: string })['other-wtxid'] === undefined ? [r.txid] : [])));
}

/** Members the node took are in its mempool even when the package as a whole failed: they are recorded all the same. */
async function keepAccepted(service: SubmissionContext, result: SubmitPackageResult, priced: PricedTx[], hexes: string[], clientCode: string | undefined, ctx: PricingContext, options: SubmitOptions, lifted: Array<[number, number]>): Promise<void> {
  const accepted = acceptedTxids(result);
  const kept = priced.flatMap((p, i) => (accepted.has(p.tx.txid) ? [{ p, hex: hexes[i]! }] : []));
  if (kept.length === 0) return;
  // Which of them a child paid for, both taken: said on both status answers.
  const links: CpfpLink[] = lifted.flatMap(([parent, child]) => {
    const [p, c] = [priced[parent]!.tx.txid, priced[child]!.tx.txid];
    return accepted.has(p) && accepted.has(c) ? [{ parentTxid: p, childTxid: c }] : [];
  });
  const totalFee = kept.reduce((sum, k) => sum + k.p.fee!, 0);
  const totalVsize = kept.reduce((sum, k) => sum + k.p.vsize, 0);
  const rate = feeRate(totalFee, totalVsize);
  const keptTxids = kept.map((k) => k.p.tx.txid);
  const packageHash = createHash('sha256').update(keptTxids.join(',')).digest('hex');
  const recorded = service.records.keep({
    kind: 'package',
    submission: {
      packageHash,
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
  // Whether the public network would have relayed it, kept on its row for staff and the metrics (modules/policy/).
  notePackageStandardness(service, packageHash, kept.map((k) => ({ tx: k.p.tx, hex: k.hex })), recorded);
  // The links only add a note to the status answers: without them the package still stands.
  const linked = recordCpfpLinks(service.db, links).catch((error: unknown) => service.log.error({ err: error, packageHash }, 'Could not record which child pays for which parent'));
  await Promise.all([recorded, linked]);
}

/**
 * A package the node refused (in whole or in part): kept for staff when the reason passes, and refused (422) with `shown`, the result as the
 * public may read it, and the receipts of the members it took all the same.
 */
async function refuseFailed(service: SubmissionContext, result: SubmitPackageResult, shown: SubmitPackageResult, txs: DecodedTx[], failure: PackageFailure, receipts: { receipts?: Record<string, string> }): Promise<never> {
  const errors = Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.error ? [r.error] : []));
  const reasons = errors.join('; ') || result.package_msg;
  await fail(service, failure, new RpcError('submitpackage', RpcCode.VERIFY_REJECTED, reasons));
  const { message, staffDetail } = await service.conflicts.publicReason(reasons, txs);
  // Each reason in plain words, the node's after it (bitcoin/reject-reasons.ts).
  if (staffDetail === undefined) throw new ApiError(422, explainRejectReason(errors[0] ?? result.package_msg), { result: explained(shown), ...receipts });
  // Each member's reason and the package's would describe the private conflict: one sentence for all of them.
  throw new ApiError(422, message, { result: withoutReasons(shown, message), ...receipts }, staffDetail);
}

/** A submitpackage result with every refused member's reason in plain words. */
function explained(result: SubmitPackageResult): SubmitPackageResult {
  // The portal's own refusals (another copy under the same txid) are not the node's words: not rewrapped as such.
  const txResults = Object.fromEntries(Object.entries(result['tx-results'] ?? {}).map(([wtxid, r]) => [wtxid, r.error && r.error !== OTHER_WITNESS_MESSAGE ? { ...r, error: explainRejectReason(r.error) } : r]));
  return { ...result, 'tx-results': txResults };
}

/** A submitpackage result with the package's and every refused member's reason replaced by `message`. */
function withoutReasons(result: SubmitPackageResult, message: string): SubmitPackageResult {
  const txResults = Object.fromEntries(Object.entries(result['tx-results'] ?? {}).map(([wtxid, r]) => [wtxid, r.error ? { ...r, error: message } : r]));
  return { ...result, package_msg: message, 'tx-results': txResults };
}
