import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { SubmissionContext } from '../submission/submission-context.ts';
import type { StandardVerdict } from './policy.schemas.ts';
import { recordPackageStandardness, recordStandardness, type RecordedStandardness } from '../submission/standard-verdicts.repository.ts';
import { judgeStandard, UNKNOWN, type HexTx } from './standard-verdict.ts';

/** At most this many characters of a reason the table does not know are kept as its code. */
const MAX_CODE_CHARS = 100;

/** A reason's code: the table's, or the node's words up to their details ("min relay fee not met, 100 < 141" → "min relay fee not met"). */
export function reasonCode(reason: string): string {
  return rejectReasonEntry(reason)?.code ?? reason.split(/[,(]/)[0]!.trim().slice(0, MAX_CODE_CHARS);
}

const recorded = (v: StandardVerdict): Omit<RecordedStandardness, 'txid'> => ({ verdict: v.verdict, reasonCode: v.reason === undefined ? undefined : reasonCode(v.reason) });

/**
 * A package's verdict from its members', in package order: non-standard for
 * the first member public nodes refuse (one is enough for them to refuse
 * the package), else unknown when any could not be judged, else standard.
 */
export function packageVerdict(members: StandardVerdict[]): StandardVerdict {
  return members.find((v) => v.verdict === 'non-standard') ?? members.find((v) => v.verdict === 'unknown') ?? (members.length > 0 ? { verdict: 'standard' } : UNKNOWN);
}

/**
 * Records whether the public network would have relayed transactions the
 * pool node just accepted, once their rows are written (`after`). In the
 * background: the user's answer never waits for the oracle, and a failure
 * only leaves the verdict unset (logged). Tracked by the record keeper, so
 * that shutting down and tests wait for it.
 */
export function noteStandardness(service: SubmissionContext, items: HexTx[], after: Promise<unknown>): void {
  inBackground(service, items, after, async (verdicts) => {
    await recordStandardness(service.db, items.map(({ tx }) => ({ txid: tx.txid, ...recorded(verdicts.get(tx) ?? UNKNOWN) })));
  });
}

/** The same for an accepted package (its row by `packageHash`), judged member by member, parents with their children. */
export function notePackageStandardness(service: SubmissionContext, packageHash: string, items: HexTx[], after: Promise<unknown>): void {
  inBackground(service, items, after, async (verdicts) => {
    await recordPackageStandardness(service.db, packageHash, recorded(packageVerdict(items.map(({ tx }) => verdicts.get(tx) ?? UNKNOWN))));
  });
}

function inBackground(service: SubmissionContext, items: HexTx[], after: Promise<unknown>, record: (verdicts: Map<DecodedTx, StandardVerdict>) => Promise<void>): void {
  const work = after
    .catch(() => {})
    .then(async () => record(await judgeStandard(service, items)))
    .catch((error: unknown) => service.log.warn({ err: error, txids: items.map((i) => i.tx.txid) }, 'Could not record whether submissions are standard'));
  void service.records.track(work);
}
