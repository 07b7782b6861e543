import { randomUUID } from 'node:crypto';
import { RpcCode, RpcError } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { feeRate, functionalClears, functionalRate } from '../pricing/fee-math.ts';
import type { PortalSettings } from '../settings/settings.store.ts';
import { priceTransactions, type PricedTx } from './prevouts.ts';
import { fail, nodeVerdict, notice, offer, openForSubmissions, pricingContext, pricingFor, type FailedSubmission, type PricingContext, type SubmissionContext, type SubmitOptions } from './submission-context.ts';
import { submitPackage } from './submit-package.ts';
import { claimSubmission, releaseClaim, type NewSubmission } from './submission.repository.ts';
import { FEE_TOO_LOW_MESSAGE, OTHER_WITNESS_MESSAGE } from './submission-rules.ts';
import { refuseInvalidSignatures } from './signature-check.ts';
import { unknownInputsRefusal } from './already-confirmed.ts';
import type { SubmitResponse } from './submission.schemas.ts';
import { compactHex, decodeOrReject } from './tx-decoding.ts';
import { noteStandardness } from '../policy/note-standardness.ts';
import { namedQuote, receiptOf, withQuote } from './quote-and-receipt.ts';

/**
 * One transaction submitted: decoded, priced with its unconfirmed
 * ancestors (child pays for parent), sent to the node, and recorded.
 */

type TxFailure = FailedSubmission;
type PricedWithFee = PricedTx & { fee: number };

export async function submitTx(service: SubmissionContext, rawHex: string, rawClientCode: string | undefined, options: SubmitOptions = {}): Promise<SubmitResponse> {
  const hex = compactHex(rawHex);
  const clientCode = normaliseClientCode(rawClientCode);
  const tx = await decodeOrReject(hex);
  const current = await openForSubmissions(service);
  // A quote the submitter holds: checked before anything costs the node (quote-and-receipt.ts).
  const quote = namedQuote(service, options.quoteId, clientCode);

  const failure: TxFailure = { txid: tx.txid, txHex: hex, txHexes: null, submissionType: 'tx', clientCode: clientCode ?? null, clientAddress: options.clientAddress };
  const [priceCtx, priced] = await priceTx(service, tx, hex, clientCode, current, failure, options.clientAddress);
  const ctx = withQuote(priceCtx, quote);
  refuseInvalidSignatures([priced]);

  const own = { feeSats: priced.fee, vsize: priced.vsize };
  if (!functionalClears(own, priced.mempoolAncestors, ctx.threshold)) {
    // Already in the mempool, submitted here earlier when the market was
    // lower: it stays there, so a repeat is not a refusal. One the portal
    // did not record is not looked for (private until mined).
    if ((await service.portalTxids([tx.txid])).has(tx.txid) && (await inMempool(service, tx.txid))) return { status: 'success', message: tx.txid, ...notice(ctx) };
    // Kept for a while: a child this address submits next may pay for it.
    await offer(service, options.clientAddress, [{ txid: tx.txid, hex }]);
    throw new ApiError(422, FEE_TOO_LOW_MESSAGE, notice(ctx));
  }
  // Spends parents its submitter gave earlier: they enter together, as a package (child pays for parent).
  if (priced.givenParents.length > 0) {
    const { receipts } = await submitPackage(service, [...priced.givenParents.map((p) => p.hex), hex], rawClientCode, options);
    const receipt = receipts?.[tx.txid];
    return { status: 'success', message: tx.txid, ...notice(ctx), ...(receipt === undefined ? {} : { receipt }) };
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
  // Priced: a failure can now be checked for signatures before it is kept.
  const recorded = await sendAndRecord(service, tx, hex, submission, { ...failure, priced: [priced] }, options);
  // The copy recorded is this one: its receipt (none when the node holds another copy, recorded by its own submitter).
  const receipt = recorded ? await receiptOf(service, { tx, fee: priced.fee, vsize: priced.vsize }, ctx, service.clock.now()) : {};
  return { status: 'success', message: tx.txid, ...notice(ctx), ...receipt };
}

/** The price context and the transaction's price; refused (422) when the fee cannot be known or is negative. */
async function priceTx(service: SubmissionContext, tx: DecodedTx, hex: string, clientCode: string | undefined, current: PortalSettings, failure: TxFailure, clientAddress: string | undefined): Promise<[PricingContext, PricedWithFee]> {
  try {
    const [ctx, [priced]] = (await Promise.all([pricingContext(service, clientCode, current), priceTransactions(service.rpc, [tx], pricingFor(service, clientAddress))])) as [PricingContext, [PricedTx]];
    if (priced.fee === undefined) throw await unknownInputsRefusal(service, [tx], [0]);
    // Outputs worth more than the inputs: the node says why in its own words.
    if (priced.fee < 0) {
      const { message, staffDetail } = await service.conflicts.publicReason((await nodeVerdict(service, [hex]))[0] ?? 'bad-txns-in-belowout', [tx]);
      throw new ApiError(422, message, undefined, staffDetail);
    }
    return [ctx, priced as PricedWithFee];
  } catch (error) {
    if (error instanceof ApiError) throw error;
    await fail(service, failure, error);
    throw nodeFailure(error);
  }
}

/**
 * Always asks the node, even for a transaction recorded before: it may have
 * been evicted or replaced since, and a resubmission puts it back. The row
 * is written meanwhile, as this request's pending claim, so that it exists
 * before the user hears "success" without a write after the node's answer.
 * True when this copy is recorded; false when the node holds another one.
 */
async function sendAndRecord(service: SubmissionContext, tx: DecodedTx, hex: string, submission: NewSubmission, failure: TxFailure, options: SubmitOptions): Promise<boolean> {
  const { rpc, db, records, log } = service;
  const claim = randomUUID();
  const [sent, claimed] = await Promise.allSettled([rpc.call<string>('sendrawtransaction', [validatedHex(hex)]), claimSubmission(db, submission, claim)]);
  // Already mined counts as done: the submission did what the user wanted.
  const accepted = sent.status === 'fulfilled' || (sent.reason instanceof RpcError && sent.reason.code === RpcCode.VERIFY_ALREADY_IN_CHAIN);
  if (!accepted) {
    if (claimed.status === 'fulfilled') {
      await releaseClaim(db, tx.txid, claim).catch((error: unknown) => log.error({ err: error, txid: tx.txid }, 'Could not take back a refused submission\'s pending row'));
    }
    await fail(service, failure, sent.reason);
    // Mined since it was priced, or its outputs still unspent: "already confirmed in block N".
    if (sent.reason instanceof RpcError && /^txn-already-known|^bad-txns-inputs-missingorspent|^missing-inputs/.test(sent.reason.message)) {
      const mined = await unknownInputsRefusal(service, [tx], [0]);
      if (mined.extra?.confirmed) throw mined;
    }
    throw await service.conflicts.refusal(sent.reason, [tx]);
  }

  // Accepted: the row becomes 'accepted' (or is written, or spooled to disk
  // when the database is down) before the answer. Until then the
  // transaction is not the portal's for any public answer (a 'pending' row
  // is anyone's to make: portal-records.repository.ts), so a caller who
  // heard "success" must find it recorded. With the pending row in place a
  // failure to record still answers success (the block scan settles the
  // row later); without it, the failure is the answer.
  if (!(await holdsOurCopy(service, tx))) {
    // Another copy (same txid, other witness) is what the node holds: this one is not recorded. When that
    // copy is the portal's, its submitter recorded it; when it is not, it is private, and saying "success"
    // would tell whoever holds the transaction's unsigned form that the pool has it (refuseInvalidSignatures
    // refuses a made-up witness before this for the inputs the portal can check).
    await releaseClaim(db, tx.txid, claim).catch((error: unknown) => log.error({ err: error, txid: tx.txid }, 'Could not take back a pending row of another copy'));
    if (!(await service.portalTxids([tx.txid])).has(tx.txid)) throw new ApiError(422, OTHER_WITNESS_MESSAGE);
    return false;
  }
  const recorded = records.track(records.keep({ kind: 'tx', submission }));
  if (claimed.status === 'rejected' || options.waitForRecord) await recorded;
  else await recorded.catch((error: unknown) => log.error({ err: error, txid: tx.txid }, 'An accepted submission stays pending: neither the database nor the spool took it'));
  // Whether the public network would have relayed it, kept on its row for staff and the metrics (modules/policy/).
  noteStandardness(service, [{ tx, hex }], recorded);
  return true;
}

/**
 * The node answers "success" for a transaction whose txid it already holds,
 * even when the copy it holds has another witness (same txid, other wtxid):
 * then this copy is not what will be mined, and the one recorded must be
 * the copy the node holds (its own submitter records it).
 */
async function holdsOurCopy(service: SubmissionContext, tx: DecodedTx): Promise<boolean> {
  try {
    const entry = await service.rpc.call<{ wtxid?: string }>('getmempoolentry', [tx.txid]);
    return entry.wtxid === undefined || entry.wtxid === tx.wtxid;
  } catch {
    // Mined already, or the node went away: record this copy, as accepted.
    return true;
  }
}

async function inMempool(service: SubmissionContext, txid: string): Promise<boolean> {
  try {
    await service.rpc.call('getmempoolentry', [txid]);
    return true;
  } catch (error) {
    if (error instanceof RpcError) return false;
    throw nodeFailure(error);
  }
}
