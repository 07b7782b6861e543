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
import { afterAnswer, answered, checkCallback, decodePackage, subscribeAccepted, type Subscribers } from './submission-pipeline.ts';
import type { PortalTxids } from './portal-records.repository.ts';
import type { PricedHexTx } from '../policy/policy-verdicts.ts';
import { publicPackageResult } from '../disclosure/public-disclosure.ts';
import { namedQuote, receiptsOf, withQuote } from './quote-and-receipt.ts';

/**
 * A package submitted (submitpackage): every member must clear the minimum
 * on its own, or together with the members that spend it (child pays for
 * parent, package-cpfp.ts; docs/behaviour.md#child-pays-for-parent: for single
 * submissions and in a package). The members the
 * node took are recorded, even when the package as a whole failed, and a
 * member paid for by its child is linked to it for both status answers.
 *
 * The pipeline of submission-pipeline.ts (callback, decode, open, price,
 * decide, send, record, answer, subscribe, follow-ups): submitPackage reads as that list, and
 * each step below takes only what it uses.
 */

type SubmitPackageResult = PackageResult['result'];
/** A member priced, its fee known (pricePackage refuses a package with one unknown). */
type PricedWithFee = PricedTx & PricedMember;

/**
 * The submit-package routes' entry, submit-tx's for a transaction with
 * given parents, and the staff retry's (through the submission service).
 * `subscribers`: the callback URL and the client's webhook that hear of
 * the members once accepted (routes only).
 */
export async function submitPackage(context: SubmissionContext, entries: string[], rawClientCode: string | undefined, options: SubmitOptions = {}, subscribers?: Subscribers): Promise<PackageResult> {
  const callback = checkCallback(subscribers);
  const { txs, hexes } = await decodePackage(context.rpc, entries);
  const answer = await answered<PackageResult>(context.portalTxids, txs, async () => {
    const current = await openForSubmissions(context.settings);
    const clientCode = normaliseClientCode(rawClientCode);
    // A quote the submitter holds: checked before anything costs the node, then judged at (quote-and-receipt.ts).
    const quote = namedQuote(context, options.quoteId, clientCode);
    const failure: FailedSubmission = { txid: txs.at(-1)!.txid, txHex: hexes.at(-1)!, txHexes: hexes, submissionType: 'package', clientCode: clientCode ?? null, clientAddress: options.clientAddress };
    const { ctx: priceCtx, priced } = await pricePackage(context, txs, hexes, clientCode, current, failure);
    const ctx = withQuote(priceCtx, quote);
    const lifted = await decide(context, txs, hexes, priced, ctx, failure);
    // Priced: a failure can now be checked for signatures before it is kept.
    const refused: FailedSubmission = { ...failure, priced };
    const result = await sendPackage(context, txs, hexes, refused);
    const kept = await recordAccepted(context, result, priced, hexes, { clientCode, ctx, createdAt: options.createdAt, lifted });
    if (kept) afterAnswer(context, 'whether the package is standard', () => notePackageStandardness(context, kept.packageHash, kept.members));
    // A receipt for each member the node took as sent (not another copy it held) and the portal recorded, whether or not the package as a whole succeeded.
    const taken = takenAsSent(result);
    const receipts = await receiptsOf(context, priced.flatMap((p) => (taken.has(p.tx.txid) ? [{ tx: p.tx, fee: p.fee, vsize: p.vsize }] : [])), ctx, context.clock.now());
    const withReceipts = Object.keys(receipts).length > 0 ? { receipts } : {};
    // What the answer names beyond the package itself passes the public rule (modules/disclosure/).
    const shown = await publicPackageResult(context.portalTxids, result);
    if (result.package_msg !== 'success') await refuseFailed(context, result, shown, txs, refused, withReceipts);
    return { status: 'success', message: result.package_msg, result: shown, ...notice(ctx), ...withReceipts };
  });
  return subscribeAccepted(callback, answer, { txids: acceptedMembers(answer.result), clientCode: rawClientCode, clientAddress: options.clientAddress });
}

/** The members of the answered package the node took (each tx-result with a txid and no error), whatever the package's overall status. */
function acceptedMembers(result: SubmitPackageResult): string[] {
  return Object.values(result['tx-results']).flatMap((r) => (r.txid && !r.error ? [r.txid] : []));
}

/** The txids of the members the node took in the very copy sent: another witness it already held (`other-wtxid`) is not this copy. */
function takenAsSent(result: SubmitPackageResult): Set<string> {
  return new Set(Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.txid && !r.error && (r as { 'other-wtxid'?: string })['other-wtxid'] === undefined ? [r.txid] : [])));
}

/** Step 4: the price context and each member's price; refused (422) when a fee cannot be known or is negative. */
async function pricePackage(context: SubmissionContext, txs: DecodedTx[], hexes: string[], clientCode: string | undefined, current: PortalSettings, failure: FailedSubmission): Promise<{ ctx: PricingContext; priced: PricedWithFee[] }> {
  try {
    const ctx = await pricingContext(context, clientCode, current);
    const priced = await priceTransactions(context.rpc, txs, context.pricing);
    const unknown = priced.flatMap((p, i) => (p.fee === undefined ? [i] : []));
    if (unknown.length > 0) throw await unknownInputsRefusal(context, txs, unknown);
    if (priced.some((p) => p.fee! < 0)) {
      const { message, staffDetail } = await context.conflicts.publicReason((await nodeVerdict(context.rpc, hexes))[0] ?? 'bad-txns-in-belowout', txs);
      throw new ApiError(422, message, undefined, staffDetail);
    }
    return { ctx, priced: priced as PricedWithFee[] };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    await fail(context, failure, error);
    throw nodeFailure(error);
  }
}

/**
 * Step 5: the signatures the portal can check, then the threshold: every
 * member clears it on its own or with the members that spend it
 * (package-cpfp.ts), refused (422) otherwise. The members below it that
 * their children pay for: [parent, child] positions.
 */
async function decide(context: Pick<SubmissionContext, 'rpc' | 'conflicts' | 'db' | 'log' | 'failureStorage'>, txs: DecodedTx[], hexes: string[], priced: PricedWithFee[], ctx: PricingContext, failure: FailedSubmission): Promise<Array<[number, number]>> {
  refuseInvalidSignatures(priced);
  const { unpaid, lifted } = judgePackage(priced, ctx.threshold);
  if (unpaid >= 0) throw new ApiError(422, `Transaction ${unpaid + 1} of the package ${PACKAGE_FEE_TOO_LOW_MESSAGE}`, notice(ctx));
  if (lifted.length > 0) await childrenPass(context, txs, hexes, failure, ctx);
  return lifted;
}

/**
 * Step 6: submitpackage. A refusal of the whole call is kept for staff
 * when its reason passes, and answered as the public may read it; a
 * member's copy the node did not take is answered as refused
 * (withoutOtherCopies).
 */
async function sendPackage(context: Pick<SubmissionContext, 'rpc' | 'conflicts' | 'portalTxids' | 'db' | 'log' | 'failureStorage'>, txs: DecodedTx[], hexes: string[], refused: FailedSubmission): Promise<SubmitPackageResult> {
  let result: SubmitPackageResult;
  try {
    result = await context.rpc.call<SubmitPackageResult>('submitpackage', [hexes.map(validatedHex)]);
  } catch (error) {
    await fail(context, refused, error);
    throw await context.conflicts.refusal(error, txs);
  }
  return withoutOtherCopies(context.portalTxids, result);
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
async function childrenPass(context: Pick<SubmissionContext, 'rpc' | 'conflicts' | 'db' | 'log' | 'failureStorage'>, txs: DecodedTx[], hexes: string[], failure: FailedSubmission, ctx: PricingContext): Promise<void> {
  let reasons: string[];
  try {
    reasons = await nodeVerdict(context.rpc, hexes);
  } catch (error) {
    await fail(context, failure, error);
    throw nodeFailure(error);
  }
  const final = reasons.find((r) => !NOT_FINAL.test(r));
  if (final === undefined) return;
  const { message, staffDetail } = await context.conflicts.publicReason(final, txs);
  throw new ApiError(422, staffDetail === undefined ? explainRejectReason(final) : message, notice(ctx), staffDetail);
}

/**
 * A member the node answered with `other-wtxid` was not taken: the node
 * holds the same txid with another witness. When that copy is not the
 * portal's it is private, and the member is answered as refused (as
 * submit-tx answers it), so that neither the answer nor the records say
 * the pool holds it; the package then failed in part.
 */
async function withoutOtherCopies(portalTxids: PortalTxids, result: SubmitPackageResult): Promise<SubmitPackageResult> {
  const entries = Object.entries(result['tx-results'] ?? {});
  // submitpackage's member results carry more than the schema names (additionalProperties).
  const otherWtxid = (r: object) => (r as { 'other-wtxid'?: string })['other-wtxid'];
  const others = entries.flatMap(([, r]) => (otherWtxid(r) !== undefined && r.txid ? [r.txid] : []));
  if (others.length === 0) return result;
  const ours = await portalTxids(others);
  const refused = (r: SubmitPackageResult['tx-results'][string]) => otherWtxid(r) !== undefined && r.txid !== undefined && !ours.has(r.txid);
  if (!entries.some(([, r]) => refused(r))) return result;
  const txResults = Object.fromEntries(entries.map(([wtxid, r]) => [wtxid, refused(r) ? { txid: r.txid, error: OTHER_WITNESS_MESSAGE } : r]));
  return { ...result, package_msg: 'transaction failed', 'tx-results': txResults };
}

/** What a package's record is priced with, besides its members. */
interface PackagePricing {
  clientCode: string | undefined;
  ctx: PricingContext;
  createdAt: string | undefined;
  /** Members below the minimum that their children pay for: [parent, child] positions. */
  lifted: Array<[number, number]>;
}

/**
 * Step 7: the members the node took, recorded before the answer (written,
 * or spooled to disk when the database is down: record-keeper.ts), even
 * when the package as a whole failed: they are in its mempool all the same.
 * The record, its hash and its members, for the follow-ups; none when the
 * node took none.
 */
async function recordAccepted(context: Pick<SubmissionContext, 'records' | 'db' | 'log'>, result: SubmitPackageResult, priced: PricedWithFee[], hexes: string[], pricing: PackagePricing): Promise<{ packageHash: string; members: PricedHexTx[] } | undefined> {
  const { clientCode, ctx, createdAt, lifted } = pricing;
  const accepted = new Set(Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.txid && !r.error ? [r.txid] : [])));
  const kept = priced.flatMap((p, i) => (accepted.has(p.tx.txid) ? [{ p, hex: hexes[i]! }] : []));
  if (kept.length === 0) return undefined;
  // Which of them a child paid for, both taken: said on both status answers.
  const links: CpfpLink[] = lifted.flatMap(([parent, child]) => {
    const [p, c] = [priced[parent]!.tx.txid, priced[child]!.tx.txid];
    return accepted.has(p) && accepted.has(c) ? [{ parentTxid: p, childTxid: c }] : [];
  });
  const totalFee = kept.reduce((sum, k) => sum + k.p.fee, 0);
  const totalVsize = kept.reduce((sum, k) => sum + k.p.vsize, 0);
  const rate = feeRate(totalFee, totalVsize);
  const keptTxids = kept.map((k) => k.p.tx.txid);
  const packageHash = createHash('sha256').update(keptTxids.join(',')).digest('hex');
  const recorded = context.records.keep({
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
      createdAt,
    },
  });
  // The links only add a note to the status answers: without them the package still stands.
  const linked = recordCpfpLinks(context.db, links).catch((error: unknown) => context.log.error({ err: error, packageHash }, 'Could not record which child pays for which parent'));
  await Promise.all([recorded, linked]);
  return { packageHash, members: kept.map((k) => ({ tx: k.p.tx, hex: k.hex, priced: k.p })) };
}

/** A package the node refused (in whole or in part): kept for staff when the reason passes, and refused (422) with `shown`, the result as the public may read it. */
async function refuseFailed(context: Pick<SubmissionContext, 'conflicts' | 'db' | 'log' | 'failureStorage'>, result: SubmitPackageResult, shown: SubmitPackageResult, txs: DecodedTx[], failure: FailedSubmission, receipts: { receipts?: Record<string, string> }): Promise<never> {
  const errors = Object.values(result['tx-results'] ?? {}).flatMap((r) => (r.error ? [r.error] : []));
  const reasons = errors.join('; ') || result.package_msg;
  await fail(context, failure, new RpcError('submitpackage', RpcCode.VERIFY_REJECTED, reasons));
  const { message, staffDetail } = await context.conflicts.publicReason(reasons, txs);
  // Each reason in plain words, the node's after it (bitcoin/reject-reasons.ts).
  // The members the node took all the same keep their receipts.
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
