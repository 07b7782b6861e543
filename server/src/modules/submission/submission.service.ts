import { nodeFailure } from '../../http/errors.ts';
import { thresholdRate } from '../pricing/fee-math.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { checkTx, testMempoolAccept } from './dry-run.ts';
import { parse } from './parse-txs.ts';
import { submitPackage } from './submit-package.ts';
import { submitTx } from './submit-tx.ts';
import { createSubmissionContext, pricingContext, type SubmissionContext, type SubmissionDeps, type SubmitOptions } from './submission-context.ts';

/**
 * Submissions: a transaction (submit-tx.ts), a package (submit-package.ts),
 * each one pipeline of named steps (submission-pipeline.ts), transactions
 * parsed without being sent (parse-txs.ts), and the public fee
 * information. What they share (the settings, pricing, failures kept for
 * staff) is in submission-context.ts; decoding in tx-decoding.ts; the
 * limits and the answers' wording in submission-rules.ts.
 */

export { FEE_TOO_LOW_MESSAGE, MAINTENANCE_MESSAGE, MAX_PACKAGE_COUNT, MISSING_INPUTS_MESSAGE, PACKAGE_FEE_TOO_LOW_MESSAGE } from './submission-rules.ts';
export type { SubmissionDeps, SubmitOptions } from './submission-context.ts';

export function createSubmissionService(deps: SubmissionDeps) {
  const context = createSubmissionContext(deps);
  return {
    /** What the pipelines share: the submit routes hand it to the pipelines' entries themselves (submit-tx.ts, submit-package.ts, dry-run.ts checkTx). */
    context,
    // The staff retry's way in (jobs/retry-job.ts), without subscribers.
    // A PSBT is taken wherever a hex is: finalized on the node first, the pipeline's decode step (submission-pipeline.ts).
    submitTx: (entry: string, rawClientCode: string | undefined, options?: SubmitOptions) => submitTx(context, entry, rawClientCode, options),
    submitPackage: (entries: string[], rawClientCode: string | undefined, options?: SubmitOptions) => submitPackage(context, entries, rawClientCode, options),
    /** `options.clientAddress`: a transaction below the minimum is kept as a parent that address offered (child pays for parent). */
    parse: (rawHexes: string[], rawClientCode: string | undefined, options?: Pick<SubmitOptions, 'clientAddress' | 'quoteId'>) => parse(context, rawHexes, rawClientCode, options),
    /** With a quote of the minimum for `rawClientCode` (none: without a client code), held for the quote validity setting. */
    info: (network: string, rawClientCode?: string) => info(context, network, rawClientCode),
    /** submit-tx's judgement without sending: nothing recorded (dry-run.ts). */
    checkTx: (entry: string, rawClientCode: string | undefined, quoteId?: string) => checkTx(context, entry, rawClientCode, quoteId),
    /** The node's testmempoolaccept for an authorised caller (dry-run.ts). */
    testMempoolAccept: (entries: string[], trusted: boolean) => testMempoolAccept(context, entries, trusted),
    /** What a submission with this client code would be priced with now: the settings, the market, the discount and the threshold, and that threshold as a signed quote. */
    quote: (rawClientCode: string | undefined) => quote(context, rawClientCode),
  };
}

export type SubmissionService = ReturnType<typeof createSubmissionService>;

async function quote(context: SubmissionContext, rawClientCode: string | undefined) {
  let priced;
  try {
    const current = await context.settings.get();
    priced = { settings: current, ...(await pricingContext(context, rawClientCode, current)) };
  } catch (error) {
    throw nodeFailure(error);
  }
  return { ...priced, ...(context.quotes ? { signed: await context.quotes.issue(priced.threshold, rawClientCode) } : {}) };
}

/**
 * The block height, network and the fee rate a transaction without a
 * discount must pay now (docs/behaviour.md#data-shapes: Info), and a quote of the
 * minimum for `rawClientCode` (its discount applied), which a submission
 * may name to be judged by it while it holds.
 */
async function info(context: SubmissionContext, network: string, rawClientCode: string | undefined) {
  const [current, snapshot] = await Promise.all([context.settings.get(), context.market.snapshot()]).catch((error: unknown) => {
    throw nodeFailure(error);
  });
  const threshold = thresholdRate({ feeRateFloor: current.feeRateFloor, multiplier: current.multiplier, marketRate: snapshot.marketRate, discountPercentage: 0 });
  const answer = { block_height: snapshot.height - 1, network, fee_rate: threshold };
  if (!context.quotes) return answer;
  const quoted = normaliseClientCode(rawClientCode) === undefined ? threshold : (await pricingContext(context, rawClientCode, current).catch((error: unknown) => {
    throw nodeFailure(error);
  })).threshold;
  return { ...answer, quote: await context.quotes.issue(quoted, rawClientCode) };
}
