import { randomUUID } from 'node:crypto';
import { RpcCode, RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { noteStandardness } from '../policy/note-standardness.ts';
import { feeRate, functionalClears, functionalRate } from '../pricing/fee-math.ts';
import type { PortalSettings } from '../settings/settings.store.ts';
import { findConfirmation, unknownInputsRefusal } from './already-confirmed.ts';
import { priceTransactions, type PricedTx } from './prevouts.ts';
import { refuseInvalidSignatures } from './signature-check.ts';
import { fail, nodeVerdict, notice, offer, openForSubmissions, pricingContext, pricingFor, type FailedSubmission, type PricingContext, type SubmissionContext, type SubmitOptions } from './submission-context.ts';
import { afterAnswer, answered, checkCallback, decodeTx, subscribeAccepted, type Subscribers } from './submission-pipeline.ts';
import { FEE_TOO_LOW_MESSAGE, LEFT_MEMPOOL_MESSAGE, OTHER_WITNESS_MESSAGE } from './submission-rules.ts';
import { claimSubmission, releaseClaim, type NewSubmission } from './submission.repository.ts';
import type { SubmitResponse } from './submission.schemas.ts';
import { submitPackage } from './submit-package.ts';
import { namedQuote, receiptOf, withQuote } from './quote-and-receipt.ts';

/**
 * One transaction submitted, as the pipeline of submission-pipeline.ts
 * (callback, decode, open, price, decide, send, record, answer, subscribe,
 * follow-ups):
 * submitTx reads as that list, and each step below takes only what it uses.
 */

type PricedWithFee = PricedTx & { fee: number };

/**
 * The submit routes' entry, and the staff retry's (through the submission
 * service). `subscribers`: the callback URL and the client's webhook that
 * hear of the transaction once accepted (routes only).
 */
export async function submitTx(context: SubmissionContext, entry: string, rawClientCode: string | undefined, options: SubmitOptions = {}, subscribers?: Subscribers): Promise<SubmitResponse> {
  const callback = checkCallback(subscribers);
  const { tx, hex } = await decodeTx(context.rpc, entry);
  const answer = await answered<SubmitResponse>(context.portalTxids, [tx], async () => {
    const current = await openForSubmissions(context.settings);
    const clientCode = normaliseClientCode(rawClientCode);
    // A quote the submitter holds: checked before anything costs the node, then judged at (quote-and-receipt.ts).
    const quote = namedQuote(context, options.quoteId, clientCode);
    const failure: FailedSubmission = { txid: tx.txid, txHex: hex, txHexes: null, submissionType: 'tx', clientCode: clientCode ?? null, clientAddress: options.clientAddress };
    const { ctx: priceCtx, priced } = await priceTx(context, tx, hex, clientCode, current, failure, options.clientAddress);
    const ctx = withQuote(priceCtx, quote);
    const success: SubmitResponse = { status: 'success', message: tx.txid, ...notice(ctx) };

    switch (await decide(context, priced, ctx.threshold)) {
      case 'below-minimum':
        // Kept for a while: a child this address submits next may pay for it.
        await offer(context, options.clientAddress, [{ txid: tx.txid, hex }]);
        throw new ApiError(422, FEE_TOO_LOW_MESSAGE, notice(ctx));
      case 'already-in-mempool':
        return success;
      case 'with-given-parents': {
        // They enter together, as a package (child pays for parent): that pipeline sends, records and signs their receipts.
        const { receipts } = await submitPackage(context, [...priced.givenParents.map((p) => p.hex), hex], rawClientCode, options);
        const receipt = receipts?.[tx.txid];
        return receipt === undefined ? success : { ...success, receipt };
      }
      case 'send':
        break;
    }

    const submission = submissionRow(tx, hex, priced, ctx, clientCode, options.createdAt);
    const claim = randomUUID();
    const sent = await sendTx(context, hex, submission, claim);
    const ownRow = sent.claimed ? claim : undefined;
    // Priced: a failure can now be checked for signatures before it is kept.
    const refused: FailedSubmission = { ...failure, priced: [priced] };
    if (!sent.accepted) {
      await takeBack(context, tx.txid, ownRow);
      await fail(context, refused, sent.reason);
      throw await sendRefusal(context, tx, sent.reason);
    }

    const held = sent.mined ? { kind: 'mined' as const } : await copyHeld(context, tx);
    if (held.kind === 'unknown') {
      await takeBack(context, tx.txid, ownRow);
      await fail(context, refused, held.error);
      throw nodeFailure(held.error);
    }
    if (held.kind === 'another' || held.kind === 'gone') {
      await takeBack(context, tx.txid, ownRow);
      // The portal recorded this txid before (its submitter's copy): that record is what the caller finds.
      if ((await context.portalTxids([tx.txid])).has(tx.txid)) return success;
      throw new ApiError(422, held.kind === 'another' ? OTHER_WITNESS_MESSAGE : LEFT_MEMPOOL_MESSAGE);
    }
    await recordAccepted(context, submission, !sent.claimed || options.waitForRecord === true);
    afterAnswer(context, 'whether it is standard', () => noteStandardness(context, [{ tx, hex, priced }]));
    // This copy is the one recorded: the answer carries its receipt.
    return { ...success, ...(await receiptOf(context, { tx, fee: priced.fee, vsize: priced.vsize }, ctx, context.clock.now())) };
  });
  return subscribeAccepted(callback, answer, { txids: [answer.message], clientCode: rawClientCode, clientAddress: options.clientAddress });
}

/** Step 4: the price context and the transaction's price; refused (422) when the fee cannot be known or is negative. */
async function priceTx(context: SubmissionContext, tx: DecodedTx, hex: string, clientCode: string | undefined, current: PortalSettings, failure: FailedSubmission, clientAddress: string | undefined): Promise<{ ctx: PricingContext; priced: PricedWithFee }> {
  try {
    const [ctx, [priced]] = (await Promise.all([pricingContext(context, clientCode, current), priceTransactions(context.rpc, [tx], pricingFor(context, clientAddress))])) as [PricingContext, [PricedTx]];
    if (priced.fee === undefined) throw await unknownInputsRefusal(context, [tx], [0]);
    // Outputs worth more than the inputs: the node says why in its own words.
    if (priced.fee < 0) {
      const { message, staffDetail } = await context.conflicts.publicReason((await nodeVerdict(context.rpc, [hex]))[0] ?? 'bad-txns-in-belowout', [tx]);
      throw new ApiError(422, message, undefined, staffDetail);
    }
    return { ctx, priced: priced as PricedWithFee };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    await fail(context, failure, error);
    throw nodeFailure(error);
  }
}

type Decision = 'send' | 'below-minimum' | 'already-in-mempool' | 'with-given-parents';

/**
 * Step 5: the signatures the portal can check (refused, 422, whatever the
 * fee), then the threshold, with the unconfirmed ancestors the transaction
 * would be mined with (child pays for parent).
 */
async function decide({ rpc, portalTxids }: Pick<SubmissionContext, 'rpc' | 'portalTxids'>, priced: PricedWithFee, threshold: number): Promise<Decision> {
  refuseInvalidSignatures([priced]);
  const { txid } = priced.tx;
  if (!functionalClears({ feeSats: priced.fee, vsize: priced.vsize }, priced.mempoolAncestors, threshold)) {
    // Already in the mempool, submitted here earlier when the market was
    // lower: it stays there, so a repeat is not a refusal. One the portal
    // did not record is not looked for (private until mined).
    return (await portalTxids([txid])).has(txid) && (await inMempool(rpc, txid)) ? 'already-in-mempool' : 'below-minimum';
  }
  // Spends parents its submitter gave earlier: they enter together.
  return priced.givenParents.length > 0 ? 'with-given-parents' : 'send';
}

/** The row an accepted transaction is recorded with: what it paid, priced how, under which client code. */
function submissionRow(tx: DecodedTx, hex: string, priced: PricedWithFee, ctx: PricingContext, clientCode: string | undefined, createdAt: string | undefined): NewSubmission {
  const rate = feeRate(priced.fee, priced.vsize);
  return {
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
    functionalRate: functionalRate({ feeSats: priced.fee, vsize: priced.vsize }, priced.mempoolAncestors),
    marketRate: ctx.snapshot.marketRate,
    thresholdRate: ctx.threshold,
    multiplier: rate / ctx.snapshot.marketRate,
    createdAt,
  };
}

interface Sent {
  /** The node took it, or it is already in the chain (`mined`). */
  accepted: boolean;
  mined: boolean;
  /** The node's refusal, or why it could not be asked. */
  reason: unknown;
  /** This request's pending row was written. */
  claimed: boolean;
}

/**
 * Step 6: sendrawtransaction. Always asks the node, even for a transaction
 * recorded before: it may have been evicted or replaced since, and a
 * resubmission puts it back. Meanwhile this request's pending row (its
 * claim) is written, so that a row exists from before the node answers:
 * should the server stop between that answer and the record, the block scan
 * settles the row (PENDING_SETTLE_MS) and a caller who may have heard
 * "success" still finds it.
 */
async function sendTx({ rpc, db }: Pick<SubmissionContext, 'rpc' | 'db'>, hex: string, submission: NewSubmission, claim: string): Promise<Sent> {
  const [sent, claimed] = await Promise.allSettled([rpc.call<string>('sendrawtransaction', [validatedHex(hex)]), claimSubmission(db, submission, claim)]);
  // Already mined counts as done: the submission did what the user wanted.
  const mined = sent.status === 'rejected' && sent.reason instanceof RpcError && sent.reason.code === RpcCode.VERIFY_ALREADY_IN_CHAIN;
  return { accepted: sent.status === 'fulfilled' || mined, mined, reason: sent.status === 'rejected' ? sent.reason : undefined, claimed: claimed.status === 'fulfilled' };
}

/**
 * This request's pending row taken back (never a row another request wrote
 * or the node accepted), before the answer: left behind, the block scan
 * would settle it as accepted (PENDING_SETTLE_MS) and make a transaction
 * the node did not take from the portal the portal's. Nothing to take back
 * without a claim.
 */
async function takeBack({ db, log }: Pick<SubmissionContext, 'db' | 'log'>, txid: string, claim: string | undefined): Promise<void> {
  if (claim === undefined) return;
  await releaseClaim(db, txid, claim).catch((error: unknown) => log.error({ err: error, txid }, 'Could not take back a pending row the node did not make the portal\'s'));
}

/** The answer to the node's refusal: "already confirmed in block N" when it was mined since it was priced, else the node's reason as the public may read it (private-conflicts.ts). */
async function sendRefusal(context: Pick<SubmissionContext, 'rpc' | 'db' | 'conflicts'>, tx: DecodedTx, reason: unknown): Promise<ApiError> {
  if (reason instanceof RpcError && /^txn-already-known|^bad-txns-inputs-missingorspent|^missing-inputs/.test(reason.message)) {
    const mined = await unknownInputsRefusal(context, [tx], [0]);
    if (mined.extra?.confirmed) return mined;
  }
  return context.conflicts.refusal(reason, [tx]);
}

type HeldCopy = { kind: 'ours' | 'another' | 'mined' | 'gone' } | { kind: 'unknown'; error: unknown };

/**
 * Which copy the node holds, once it answered sendrawtransaction with
 * success. Bitcoin Core answers success for this exact hex, but also for a
 * txid it already held with another witness (same txid, other wtxid: a
 * segwit txid does not cover the witness; node/transaction.cpp
 * BroadcastTransaction), and then that copy is what will be mined. So this
 * copy is recorded only when the node's answers allow it:
 * - its mempool entry has this copy's wtxid: ours, recorded;
 * - any other entry: another copy, not recorded (when it is the portal's,
 *   its submitter recorded it; when not, it is private, and recording this
 *   one would make it the portal's, to be named in public answers);
 * - the node answers it is not in its mempool (-5): it left between the
 *   two calls, mined, replaced or evicted, and which copy it was the node
 *   no longer says. Mined (the node, or the portal's records, name its
 *   block: already-confirmed.ts): a mined transaction is public, so
 *   recording this copy names nothing private, as for a send answered
 *   "already in the chain". Otherwise ('gone') not recorded: it may have
 *   been another's private copy;
 * - no answer (the node went away or timed out), or any other error: that
 *   is not knowledge. Not recorded; the caller hears that the node could
 *   not be reached, and the failure is kept for staff, whose retry asks the
 *   node again.
 */
async function copyHeld(deps: Pick<SubmissionContext, 'rpc' | 'db'>, tx: DecodedTx): Promise<HeldCopy> {
  try {
    const entry = await deps.rpc.call<{ wtxid?: string }>('getmempoolentry', [tx.txid]);
    return { kind: entry.wtxid === tx.wtxid ? 'ours' : 'another' };
  } catch (error) {
    if (!(error instanceof RpcError && error.code === RpcCode.INVALID_ADDRESS_OR_KEY)) return { kind: 'unknown', error };
  }
  try {
    return { kind: (await findConfirmation(deps, tx.txid)) ? 'mined' : 'gone' };
  } catch (error) {
    return { kind: 'unknown', error };
  }
}

/**
 * Step 7: the accepted transaction recorded before the answer: its row
 * becomes 'accepted' (or is written, or is spooled to disk when the
 * database is down: record-keeper.ts). Until then the transaction is not
 * the portal's for any public answer (a 'pending' row is anyone's to make:
 * portal-records.repository.ts), so a caller who heard "success" must find
 * it recorded. With this request's pending row in place, a failure of both
 * still answers success (the block scan settles the row later); without it
 * (`mustRecord`), and for a staff retry that reads the record next
 * (SubmitOptions.waitForRecord), the failure is the answer.
 */
async function recordAccepted({ records, log }: Pick<SubmissionContext, 'records' | 'log'>, submission: NewSubmission, mustRecord: boolean): Promise<void> {
  const recorded = records.keep({ kind: 'tx', submission });
  if (mustRecord) await recorded;
  else await recorded.catch((error: unknown) => log.error({ err: error, txid: submission.txid }, 'An accepted submission stays pending: neither the database nor the spool took it'));
}

async function inMempool(rpc: RpcClient, txid: string): Promise<boolean> {
  try {
    await rpc.call('getmempoolentry', [txid]);
    return true;
  } catch (error) {
    if (error instanceof RpcError) return false;
    throw nodeFailure(error);
  }
}
