import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import type { SubmissionContext } from '../submission/submission-context.ts';
import { recordStandardness } from './standardness.repository.ts';
import { judgeStandard, type HexTx } from './standard-verdict.ts';

/** At most this many characters of a reason the table does not know are kept as its code. */
const MAX_CODE_CHARS = 100;

/** A reason's code: the table's, or the node's words up to their details ("min relay fee not met, 100 < 141" → "min relay fee not met"). */
export function reasonCode(reason: string): string {
  return rejectReasonEntry(reason)?.code ?? reason.split(/[,(]/)[0]!.trim().slice(0, MAX_CODE_CHARS);
}

/**
 * Records whether the public network would have relayed transactions the
 * pool node just accepted, once their rows are written (`after`). In the
 * background: the user's answer never waits for the oracle, and a failure
 * only leaves the verdict unset (logged). Tracked by the record keeper, so
 * that shutting down and tests wait for it.
 */
export function noteStandardness(service: SubmissionContext, items: HexTx[], after: Promise<unknown>): void {
  const work = after
    .catch(() => {})
    .then(async () => {
      const verdicts = await judgeStandard(service, items);
      await recordStandardness(
        service.db,
        items.map(({ tx }) => {
          const v = verdicts.get(tx);
          return { txid: tx.txid, verdict: v?.verdict ?? 'unknown', reasonCode: v?.reason === undefined ? undefined : reasonCode(v.reason) };
        }),
      );
    })
    .catch((error: unknown) => service.log.warn({ err: error, txids: items.map((i) => i.tx.txid) }, 'Could not record whether submissions are standard'));
  void service.records.track(work);
}
