import { RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { validatedHex } from '../../bitcoin/json-rpc-body.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { TxDecodeError } from '../../bitcoin/tx-codec.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import { UNKNOWN } from '../policy/standard-verdict.ts';
import { judgePolicies, type PolicyVerdicts } from '../policy/policy-verdicts.ts';
import type { PolicyVerdict, StandardVerdict } from '../policy/policy.schemas.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { functionalClears } from '../pricing/fee-math.ts';
import { priceTransactions, type PricedTx } from './prevouts.ts';
import { nodeVerdict, notice, openForSubmissions, pricingContext, type PricingContext, type SubmissionContext } from './submission-context.ts';
import { FEE_TOO_LOW_MESSAGE, MAX_PACKAGE_COUNT, MISSING_INPUTS_MESSAGE, OTHER_WITNESS_MESSAGE } from './submission-rules.ts';
import { refuseInvalidSignatures } from './signature-check.ts';
import { DRY_RUN_PRIVATE_CONFLICT_MESSAGE } from './private-conflicts.ts';
import { decodeEach } from './tx-decoding.ts';
import { packageHexesForSubmission } from './psbt.ts';
import { answered, callerIds, decodeTx } from './submission-pipeline.ts';
import { namedQuote, withQuote } from './quote-and-receipt.ts';
import { withoutPrivateIds } from '../disclosure/public-disclosure.ts';

/**
 * Transactions judged as a submission would be, without sending them: for
 * the public API's `skip_mempool_submission` and its dry run
 * (/api/mempool/tests). Nothing is recorded (no submission, no failure
 * kept for staff); the audit trail still has the request like any other.
 *
 * The private mempool stays private as on the submission paths: an input
 * spending a transaction the portal did not record is unknown (the node is
 * not asked about it), and the node's reasons pass through the same filter.
 */

/** The node's answers that mean "it is already there", which sendrawtransaction answers with success. */
const ALREADY_THERE = /^txn-already-(in-mempool|known)$/;
/** The node holds the same txid with another witness: "already there" only when that copy is the portal's (submit-tx.ts). */
const OTHER_COPY_THERE = /^txn-same-nonwitness-data-in-mempool$/;

/**
 * Judges one transaction as submit-tx would, up to the node's verdict
 * (testmempoolaccept) instead of sending it: submit-tx's pipeline
 * (submission-pipeline.ts) without its send and record steps.
 */
export async function checkTx(
  context: SubmissionContext,
  entry: string,
  rawClientCode: string | undefined,
  quoteId?: string,
): Promise<{ status: 'success'; message: string; notice?: string; standard: StandardVerdict; policies: PolicyVerdict[] }> {
  // Decoded as submit-tx decodes (a PSBT finalized, whitespace dropped), so both judge the same transaction.
  const { tx, hex } = await decodeTx(context.rpc, entry);
  return answered(context.portalTxids, [tx], async () => {
    const current = await openForSubmissions(context.settings);
    const clientCode = normaliseClientCode(rawClientCode);
    // Judged at a quote's minimum while it holds, as the submission would be (quote-and-receipt.ts).
    const quote = namedQuote(context, quoteId, clientCode);
    let ctx: PricingContext;
    let priced: PricedTx;
    try {
      [ctx, [priced]] = (await Promise.all([pricingContext(context, clientCode, current), priceTransactions(context.rpc, [tx], context.pricing)])) as [PricingContext, [PricedTx]];
    } catch (error) {
      throw nodeFailure(error);
    }
    ctx = withQuote(ctx, quote);
    if (priced.fee === undefined) throw new ApiError(422, MISSING_INPUTS_MESSAGE);
    refuseInvalidSignatures([priced]);
    if (priced.fee >= 0 && !functionalClears({ feeSats: priced.fee, vsize: priced.vsize }, priced.mempoolAncestors, ctx.threshold)) {
      throw new ApiError(422, FEE_TOO_LOW_MESSAGE, notice(ctx));
    }
    // The public network's verdict is asked beside the pool node's, and never fails the answer.
    const [[reason], judged] = await Promise.all([verdicts(context.rpc, [hex]), judgePolicies(context, [{ tx, hex, priced }])]);
    // Conflicting with a transaction the portal did not record: one answer, whatever the node says (private-conflicts.ts).
    if ((reason === undefined || !(ALREADY_THERE.test(reason) || OTHER_COPY_THERE.test(reason))) && (await context.conflicts.conflictsWithPrivate([tx]))) {
      throw new ApiError(422, DRY_RUN_PRIVATE_CONFLICT_MESSAGE, notice(ctx), reason);
    }
    if (reason !== undefined && OTHER_COPY_THERE.test(reason) && !(await context.portalTxids([tx.txid])).has(tx.txid)) {
      throw new ApiError(422, OTHER_WITNESS_MESSAGE, notice(ctx));
    }
    if (reason !== undefined && !ALREADY_THERE.test(reason) && !OTHER_COPY_THERE.test(reason)) {
      const { message, staffDetail } = await context.conflicts.publicReason(reason, [tx]);
      throw new ApiError(422, message, notice(ctx), staffDetail);
    }
    const { standard, policies } = judged.get(tx)!;
    return { status: 'success' as const, message: tx.txid, ...notice(ctx), standard, policies };
  });
}

export interface MempoolTestResult {
  txid: string | null;
  wtxid: string | null;
  allowed: boolean;
  vsize: number | null;
  fee: number | null;
  reject_reason: string | null;
  /** Whether the public network would relay it (Bitcoin Core 30+); "unknown" when it could not be judged. */
  standard: StandardVerdict;
  /** The same per relay policy (policy-verdicts.ts); empty when the transaction was not tested. */
  policies: PolicyVerdict[];
}

/**
 * The node's testmempoolaccept for each transaction, as a package (parents
 * first), with no pricing threshold: an authorised caller's dry run. A
 * transaction that cannot be decoded, or spends an output the portal cannot
 * see (unknown, or a transaction it did not record), is answered without
 * asking the node; staff (`trusted`) get the node's own reasons, a client's
 * key the filtered ones.
 */
export async function testMempoolAccept(context: SubmissionContext, entries: string[], trusted: boolean): Promise<MempoolTestResult[]> {
  // PSBTs finalized as the submission paths finalize them (psbt.ts).
  const hexes = await packageHexesForSubmission(context.rpc, entries);
  if (hexes.length === 0) throw new ApiError(400, 'Transaction hex is empty.');
  if (hexes.length > MAX_PACKAGE_COUNT) throw new ApiError(400, `A package holds at most ${MAX_PACKAGE_COUNT} transactions.`);
  const decoded = await decodeEach(hexes);
  const txs = decoded.filter((d): d is DecodedTx => !(d instanceof TxDecodeError));
  if (txs.length < decoded.length) {
    return decoded.map((d) => (d instanceof TxDecodeError ? refused(null, d.message) : refused(d, 'Not tested: another transaction of the list could not be decoded.')));
  }
  let priced: PricedTx[];
  try {
    priced = await priceTransactions(context.rpc, txs, context.pricing);
  } catch (error) {
    throw nodeFailure(error);
  }
  if (priced.some((p) => p.fee === undefined)) {
    return priced.map((p) => (p.fee === undefined ? refused(p.tx, MISSING_INPUTS_MESSAGE) : refused(p.tx, 'Not tested: another transaction of the list spends outputs the mining node does not know.')));
  }
  let results: Array<{ txid: string; wtxid?: string; allowed?: boolean; vsize?: number; fees?: { base: number }; 'reject-reason'?: string; 'package-error'?: string }>;
  let judged: Map<DecodedTx, PolicyVerdicts>;
  try {
    [results, judged] = await Promise.all([
      context.rpc.call<typeof results>('testmempoolaccept', [hexes.map(validatedHex)]),
      judgePolicies(context, txs.map((tx, i) => ({ tx, hex: hexes[i]!, priced: priced[i] }))),
    ]);
  } catch (error) {
    if (error instanceof RpcError || error instanceof RpcTransportError) throw nodeFailure(error);
    throw error;
  }
  // A client's key: conflicting with a transaction the portal did not record, the list hears one answer whatever the node says.
  if (!trusted && (await context.conflicts.conflictsWithPrivate(txs))) {
    return txs.map((tx) => ({ ...refused(tx, DRY_RUN_PRIVATE_CONFLICT_MESSAGE), ...verdictsOf(judged, tx) }));
  }
  const reasons = await Promise.all(results.map(async (r) => {
    const reason = r['reject-reason'] ?? r['package-error'];
    return reason === undefined || trusted ? reason : (await context.conflicts.publicReason(reason, txs)).message;
  }));
  // A client's key reads the reasons as any public refusal (modules/disclosure/): no transaction named but its own and the portal's.
  const told = trusted ? reasons : await withoutPrivateIds(context.portalTxids, reasons.map((r) => r ?? ''), callerIds(txs));
  return results.map((r, i) => ({
    txid: r.txid,
    wtxid: r.wtxid ?? txs[i]?.wtxid ?? null,
    allowed: r.allowed === true,
    vsize: r.vsize ?? null,
    // The node reports BTC; sats are counted from the priced inputs, in integers.
    fee: r.allowed === true ? priced[i]!.fee! : null,
    reject_reason: r.allowed === true || reasons[i] === undefined ? null : told[i]!,
    ...verdictsOf(judged, txs[i]),
  }));
}

function verdictsOf(judged: Map<DecodedTx, PolicyVerdicts>, tx: DecodedTx | undefined): Pick<MempoolTestResult, 'standard' | 'policies'> {
  const found = tx && judged.get(tx);
  return found ? { standard: found.standard, policies: found.policies } : { standard: UNKNOWN, policies: [] };
}

function refused(tx: DecodedTx | null, reason: string): MempoolTestResult {
  return { txid: tx?.txid ?? null, wtxid: tx?.wtxid ?? null, allowed: false, vsize: null, fee: null, reject_reason: reason, standard: UNKNOWN, policies: [] };
}

/** testmempoolaccept's reasons, the node's failures answered as the submission paths answer them. */
async function verdicts(rpc: RpcClient, hexes: string[]): Promise<Array<string | undefined>> {
  try {
    return await nodeVerdict(rpc, hexes);
  } catch (error) {
    throw nodeFailure(error);
  }
}
