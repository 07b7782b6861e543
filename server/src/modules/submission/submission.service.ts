import { nodeFailure } from '../../http/errors.ts';
import { thresholdRate } from '../pricing/fee-math.ts';
import { parse } from './parse-txs.ts';
import { submitPackage } from './submit-package.ts';
import { submitTx } from './submit-tx.ts';
import { createSubmissionContext, type SubmissionContext, type SubmissionDeps, type SubmitOptions } from './submission-context.ts';

/**
 * Submissions: a transaction (submit-tx.ts), a package (submit-package.ts),
 * transactions parsed without being sent (parse-txs.ts), and the public fee
 * information. What they share (the settings, pricing, failures kept for
 * staff) is in submission-context.ts; decoding in tx-decoding.ts; the
 * limits and the answers' wording in submission-rules.ts.
 */

export { FEE_TOO_LOW_MESSAGE, MAINTENANCE_MESSAGE, MAX_PACKAGE_COUNT, MISSING_INPUTS_MESSAGE, PACKAGE_FEE_TOO_LOW_MESSAGE } from './submission-rules.ts';
export type { SubmissionDeps, SubmitOptions } from './submission-context.ts';

export function createSubmissionService(deps: SubmissionDeps) {
  const service = createSubmissionContext(deps);
  return {
    submitTx: (rawHex: string, rawClientCode: string | undefined, options?: SubmitOptions) => submitTx(service, rawHex, rawClientCode, options),
    submitPackage: (rawHexes: string[], rawClientCode: string | undefined, options?: SubmitOptions) => submitPackage(service, rawHexes, rawClientCode, options),
    parse: (rawHexes: string[], rawClientCode: string | undefined) => parse(service, rawHexes, rawClientCode),
    info: (network: string) => info(service, network),
  };
}

export type SubmissionService = ReturnType<typeof createSubmissionService>;

/** The block height, network and the fee rate a transaction without a discount must pay now. */
async function info(service: SubmissionContext, network: string) {
  const [current, snapshot] = await Promise.all([service.settings.get(), service.market.snapshot()]).catch((error: unknown) => {
    throw nodeFailure(error);
  });
  const threshold = thresholdRate({ feeRateFloor: current.feeRateFloor, multiplier: current.multiplier, marketRate: snapshot.marketRate, discountPercentage: 0 });
  return { block_height: snapshot.height - 1, network, fee_rate: threshold };
}
