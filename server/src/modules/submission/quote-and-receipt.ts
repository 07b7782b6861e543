import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { Logger } from '../../lib/logger.ts';
import type { CheckedQuote } from '../quotes/quote-token.ts';
import { appliedThreshold, type QuoteService } from '../quotes/quotes.service.ts';
import type { ReceiptService } from '../receipts/receipts.service.ts';

/**
 * Where the submission paths meet quotes and receipts (modules/quotes/,
 * modules/receipts/), in one place:
 *
 * - before pricing, the quote a submission names is checked (refused, 422,
 *   when expired, for another client code or altered) and, when it holds,
 *   the submission is judged at the quoted minimum (or the current one when
 *   that is lower): withQuote;
 * - once the node accepted it and the portal recorded it, its receipt is
 *   signed: receiptOf, receiptsOf. A receipt that cannot be signed (the
 *   database holding the keys out of reach) leaves the answer without one:
 *   the node took the transaction, and the answer says so all the same.
 */

export interface QuoteAndReceiptDeps {
  /** Fee quotes (issued with the rates, checked on submission); without, no quote is issued and a named one is ignored (tools that build the submission service alone). */
  quotes?: Pick<QuoteService, 'check' | 'issue'> | undefined;
  /** Receipts; without, answers carry none. */
  receipts?: Pick<ReceiptService, 'issue'> | undefined;
  log: Logger;
}

/** The quote `quoteId` names when it holds for `clientCode` now; none when none is named. Refused (422) otherwise. */
export function namedQuote(deps: Pick<QuoteAndReceiptDeps, 'quotes'>, quoteId: string | undefined, clientCode: string | undefined): CheckedQuote | undefined {
  return deps.quotes?.check(quoteId, clientCode);
}

/** A pricing context judged at the quote's minimum when one holds (never above the current one), and carrying it for the receipt. */
export function withQuote<C extends { threshold: number }>(ctx: C, quote: CheckedQuote | undefined): C & { quote?: CheckedQuote } {
  return quote === undefined ? ctx : { ...ctx, threshold: appliedThreshold(ctx.threshold, quote), quote };
}

/** What a receipt says of one accepted transaction. */
export interface AcceptedTx {
  tx: Pick<DecodedTx, 'txid' | 'wtxid'>;
  fee: number;
  vsize: number;
}

/** The receipt of one accepted transaction, judged at `ctx`: `{receipt}`, or nothing when none could be signed. */
export async function receiptOf(deps: QuoteAndReceiptDeps, accepted: AcceptedTx, ctx: { threshold: number; quote?: CheckedQuote }, acceptedAt: Date): Promise<{ receipt?: string }> {
  const receipts = await receiptsOf(deps, [accepted], ctx, acceptedAt);
  const receipt = receipts[accepted.tx.txid];
  return receipt === undefined ? {} : { receipt };
}

/** The receipts of accepted transactions (a package's members), by txid; none for those that could not be signed. */
export async function receiptsOf(deps: QuoteAndReceiptDeps, accepted: readonly AcceptedTx[], ctx: { threshold: number; quote?: CheckedQuote }, acceptedAt: Date): Promise<Record<string, string>> {
  const { receipts, log } = deps;
  if (!receipts || accepted.length === 0) return {};
  const signed = await Promise.all(
    accepted.map(async ({ tx, fee, vsize }) => {
      try {
        const receipt = await receipts.issue({ txid: tx.txid, wtxid: tx.wtxid, fee, vsize, threshold: ctx.threshold, quote: ctx.quote, acceptedAt });
        return [tx.txid, receipt] as const;
      } catch (error) {
        log.error({ err: error, txid: tx.txid }, 'An accepted submission is answered without its receipt: it could not be signed');
        return undefined;
      }
    }),
  );
  return Object.fromEntries(signed.filter((entry) => entry !== undefined));
}
