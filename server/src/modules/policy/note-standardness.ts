import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { StandardVerdict } from './policy.schemas.ts';
import { recordPackageStandardness, recordStandardness, type RecordedStandardness } from '../submission/standard-verdicts.repository.ts';
import { UNKNOWN } from './standard-verdict.ts';
import { judgePolicies, type PolicyNodes, type PricedHexTx } from './policy-verdicts.ts';

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

/** What noting a verdict uses: the oracle and the pool node to judge with (standard-verdict.ts), the rows to write it on, a log for a failure. */
export interface NoteStandardnessDeps extends PolicyNodes {
  db: Queryable;
  log: Logger;
}

/**
 * Records whether the public network would have relayed transactions the
 * pool node just accepted, on their rows. A follow-up of the submission
 * pipeline (submission/submission-pipeline.ts afterAnswer): the user's
 * answer never waits for the oracle, and a failure only leaves the verdict
 * unset (logged). Never rejects.
 */
export async function noteStandardness(deps: NoteStandardnessDeps, items: PricedHexTx[]): Promise<void> {
  await judgedThen(deps, items, async (verdicts) => {
    await recordStandardness(deps.db, items.map(({ tx }) => ({ txid: tx.txid, ...recorded(verdicts.get(tx) ?? UNKNOWN) })));
  });
}

/** The same for an accepted package (its row by `packageHash`), judged member by member, parents with their children. */
export async function notePackageStandardness(deps: NoteStandardnessDeps, packageHash: string, items: PricedHexTx[]): Promise<void> {
  await judgedThen(deps, items, async (verdicts) => {
    await recordPackageStandardness(deps.db, packageHash, recorded(packageVerdict(items.map(({ tx }) => verdicts.get(tx) ?? UNKNOWN))));
  });
}

async function judgedThen(deps: NoteStandardnessDeps, items: PricedHexTx[], record: (verdicts: Map<DecodedTx, StandardVerdict>) => Promise<void>): Promise<void> {
  try {
    // The recorded verdict is `standard`'s: Bitcoin Core 30 and later (policy-verdicts.ts).
    const judged = await judgePolicies({ ...deps, knotsPolicy: undefined }, items);
    await record(new Map([...judged].map(([tx, v]) => [tx, v.standard])));
  } catch (error) {
    deps.log.warn({ err: error, txids: items.map((i) => i.tx.txid) }, 'Could not record whether submissions are standard');
  }
}
