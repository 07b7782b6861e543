import { RpcError, RpcTransportError } from '../../bitcoin/rpc-client.ts';
import { TxDecodeError, type DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError } from '../../http/errors.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { feeRate, functionalClears, functionalRate } from '../pricing/fee-math.ts';
import { alreadyConfirmedMessage, confirmationFields, findConfirmation, type Confirmation } from './already-confirmed.ts';
import { askPolicyNodes, combinePolicies } from '../policy/policy-verdicts.ts';
import { priceTransactions, type PricedTx } from './prevouts.ts';
import { entriesForParse } from './psbt.ts';
import { judgePackage, type PackageVerdict, type PricedMember } from './package-cpfp.ts';
import { notice, offer, pricingContext, pricingFor, type PricingContext, type SubmissionContext, type SubmitOptions } from './submission-context.ts';
import { FEE_TOO_LOW_MESSAGE, MAX_PACKAGE_COUNT } from './submission-rules.ts';
import type { ParseResponse, ParsedTxItem } from './submission.schemas.ts';
import { decodeEach, normaliseItems } from './tx-decoding.ts';
import { namedQuote, withQuote } from './quote-and-receipt.ts';
import type { CheckedQuote } from '../quotes/quote-token.ts';

/**
 * Transactions decoded and priced without being sent: what each one is,
 * what it pays, and whether that clears the current minimum. A node out of
 * reach leaves the fee unchecked rather than failing the answer.
 */

/** Lists longer than this are cut in parse answers; the counts are always given. */
const PARSE_LIST_LIMIT = 100;

/** The price context and each decoded transaction's price; both empty, with a note, when the node cannot be reached. */
interface ParsePricing {
  ctx: PricingContext | undefined;
  /** By the decoded transaction itself, not its txid: two copies of one transaction with different witnesses share a txid, not a size. */
  priced: Map<DecodedTx, PricedTx>;
  /** The transactions whose fee is unknown because they are already mined. */
  confirmed: Map<DecodedTx, Confirmation>;
  /** A package's members judged together (package-cpfp.ts); undefined for one transaction, or when a fee is unknown. */
  together: PackageVerdict | undefined;
  note: string | undefined;
}

/** What a child can do for a transaction below the minimum: the flow the portal takes (submit-tx, submit-package). */
export const CHILD_CAN_PAY = 'A child transaction that spends it can pay for both: submit the child next, or both at once as parent,child.';
const PAYS_FOR_PARENTS = 'Priced with the unconfirmed parents it spends: its fee pays for them too (child pays for parent).';
const PAID_BY_CHILDREN = 'Below the minimum on its own; the transactions of the package that spend it pay for it (child pays for parent).';

export async function parse(context: SubmissionContext, rawHexes: string[], rawClientCode: string | undefined, options: Pick<SubmitOptions, 'clientAddress' | 'quoteId'> = {}): Promise<ParseResponse> {
  const hexes = normaliseItems(rawHexes);
  const clientCode = normaliseClientCode(rawClientCode);
  const quote = previewQuote(context, options.quoteId, clientCode);
  if (hexes.length === 0) throw new ApiError(400, 'Transaction hex is empty.');
  if (hexes.length > MAX_PACKAGE_COUNT) throw new ApiError(400, `A package holds at most ${MAX_PACKAGE_COUNT} transactions.`);
  // PSBTs are finalized on the node first; one that cannot be is reported in its row.
  const entries = await entriesForParse(context.rpc, hexes);
  const decoded = await decodeEach(entries.map((e) => ('hex' in e ? e.hex : '')));
  const txs = decoded.filter((d, i): d is DecodedTx => 'hex' in entries[i]! && !(d instanceof TxDecodeError));
  // Whether the public network would relay each one: the policy node asked beside the pricing, never failing the answer.
  const [pricing, nodes] = await Promise.all([
    priceForParse(context, clientCode, txs, options.clientAddress, quote),
    askPolicyNodes(
      context,
      entries.flatMap((e, i) => ('hex' in e && txs.includes(decoded[i] as DecodedTx) ? [{ tx: decoded[i] as DecodedTx, hex: e.hex }] : [])),
    ),
  ]);
  const policies = combinePolicies(txs.map((tx) => ({ tx, priced: pricing.priced.get(tx) })), nodes, context.policyShares);

  const single = hexes.length === 1;
  const transactions: ParsedTxItem[] = entries.map((entry, i): ParsedTxItem => {
    if ('error' in entry) return { status: 'error', message: entry.error };
    const d = decoded[i]!;
    if (d instanceof TxDecodeError) return { status: 'error', message: d.message };
    const judged = policies.get(d)!;
    const item = { ...parsedItem(d, pricing, single), standard: judged.standard, policies: judged.policies };
    return entry.psbt ? { ...item, psbt: { stated_fee: entry.psbt.statedFeeSats } } : item;
  });
  // Below the minimum: kept as offered, for a child this address submits next (child pays for parent).
  await offer(context, options.clientAddress, entries.flatMap((e, i) => {
    const item = transactions[i]!;
    return 'hex' in e && item.meets_minimum_fee === false && item.txid !== undefined ? [{ txid: item.txid, hex: e.hex }] : [];
  }));
  const failed = transactions.filter((t) => t.status === 'error').length;
  return {
    status: failed === 0 ? 'success' : 'error',
    message: failed === 0 ? `Decoded ${transactions.length} transaction${single ? '' : 's'}.` : `${failed} of ${transactions.length} could not be decoded.`,
    ...(pricing.ctx ? notice(pricing.ctx) : {}),
    transactions,
  };
}

/**
 * The quote the preview is judged at, as the submission naming it would be
 * (quote-and-receipt.ts); one that does not hold is left out here (the
 * preview shows the current minimum) and refused with its reason only when
 * a submission names it.
 */
function previewQuote(context: SubmissionContext, quoteId: string | undefined, clientCode: string | undefined): CheckedQuote | undefined {
  try {
    return namedQuote(context, quoteId, clientCode);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

async function priceForParse(context: SubmissionContext, clientCode: string | undefined, txs: DecodedTx[], clientAddress: string | undefined, quote: CheckedQuote | undefined): Promise<ParsePricing> {
  const pricing: ParsePricing = { ctx: undefined, priced: new Map(), confirmed: new Map(), together: undefined, note: undefined };
  try {
    pricing.ctx = withQuote(await pricingContext(context, clientCode), quote);
    const priced = await priceTransactions(context.rpc, txs, pricingFor(context, clientAddress));
    pricing.priced = new Map(priced.map((p) => [p.tx, p]));
    if (priced.length > 1 && priced.every((p) => p.fee !== undefined)) pricing.together = judgePackage(priced as PricedMember[], pricing.ctx.threshold);
    // Spent inputs: pasted again after it was mined? Then say where it is.
    for (const p of pricing.priced.values()) {
      if (p.fee !== undefined) continue;
      const found = await findConfirmation(context, p.tx.txid);
      if (found) pricing.confirmed.set(p.tx, found);
    }
  } catch (error) {
    if (!(error instanceof RpcError || error instanceof RpcTransportError)) throw error;
    pricing.note = 'The fee could not be checked because the mining node is not reachable right now.';
  }
  return pricing;
}

/** One decoded transaction as the parse answer lists it; `single`: alone, so priced with its unconfirmed ancestors. */
function parsedItem(d: DecodedTx, { ctx, priced, confirmed, together, note }: ParsePricing, single: boolean): ParsedTxItem {
  const p = priced.get(d);
  const mined = confirmed.get(d);
  const fee = p?.fee;
  const vsize = p?.vsize ?? d.vsize;
  let meets: boolean | null = null;
  let functional: number | null = null;
  let cpfp: string | undefined;
  if (fee !== undefined && ctx) {
    const own = { feeSats: fee, vsize };
    const ancestors = single ? p!.mempoolAncestors : [];
    meets = functionalClears(own, ancestors, ctx.threshold);
    functional = functionalRate(own, ancestors);
    if (meets && ancestors.length > 0) cpfp = PAYS_FOR_PARENTS;
    // In a package: a member below the minimum that the members spending it pay for.
    const position = [...priced.keys()].indexOf(d);
    if (!meets && together?.unpaid === -1 && together.lifted.some(([parent]) => parent === position)) {
      meets = true;
      cpfp = PAID_BY_CHILDREN;
    }
    if (!meets) cpfp = CHILD_CAN_PAY;
  }
  const message = mined ? alreadyConfirmedMessage(mined) : note ?? (fee === undefined ? 'Some inputs spend outputs the mining node does not know, so the fee is unknown.' : meets ? 'The fee clears the current minimum.' : FEE_TOO_LOW_MESSAGE);
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
    ...(mined ? { confirmed: confirmationFields(mined) } : {}),
    ...(cpfp && !mined ? { child_pays_for_parent: cpfp } : {}),
  };
}
