import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PolicyVerdict, StandardVerdict } from './policy.schemas.ts';
import { recordPackageStandardness, recordStandardness, type RecordedStandardness } from '../submission/standard-verdicts.repository.ts';
import { UNKNOWN } from './standard-verdict.ts';
import { judgePolicies, type PolicyNodes, type PolicyVerdicts, type PricedHexTx } from './policy-verdicts.ts';

/** At most this many characters of a reason the table does not know are kept as its code. */
const MAX_CODE_CHARS = 100;

/** A reason's code: the table's, or the node's words up to their details ("min relay fee not met, 100 < 141" → "min relay fee not met"). */
export function reasonCode(reason: string): string {
  return rejectReasonEntry(reason)?.code ?? reason.split(/[,(]/)[0]!.trim().slice(0, MAX_CODE_CHARS);
}

/** A policy's verdict in the standard field's shape. */
function asStandard(p: PolicyVerdict): StandardVerdict {
  if (p.relays === true) return { verdict: 'standard' };
  if (p.relays === null) return UNKNOWN;
  return { verdict: 'non-standard', ...(p.reason === undefined ? {} : { reason: p.reason }) };
}

/** What a row keeps: `core`'s verdict and code, and every policy's in one line (migration 031). */
function recorded(policies: ReadonlyArray<{ policy: PolicyVerdict['policy']; verdict: StandardVerdict }>): Omit<RecordedStandardness, 'txid'> {
  const core = policies.find((p) => p.policy === 'core')?.verdict ?? UNKNOWN;
  const line = policies.map(({ policy, verdict }) => `${policy}: ${verdict.verdict}${verdict.verdict === 'non-standard' ? ` (${verdict.reason === undefined ? 'other' : reasonCode(verdict.reason)})` : ''}`).join('; ');
  return { verdict: core.verdict, reasonCode: core.reason === undefined ? undefined : reasonCode(core.reason), relayPolicies: line };
}

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
    await recordStandardness(deps.db, items.map(({ tx }) => ({ txid: tx.txid, ...recorded(verdicts.get(tx)!.policies.map((p) => ({ policy: p.policy, verdict: asStandard(p) }))) })));
  });
}

/** The same for an accepted package (its row by `packageHash`), judged member by member, parents with their children. */
export async function notePackageStandardness(deps: NoteStandardnessDeps, packageHash: string, items: PricedHexTx[]): Promise<void> {
  await judgedThen(deps, items, async (verdicts) => {
    // Per policy, the package's verdict from its members' (packageVerdict).
    const policies = verdicts.get(items[0]!.tx)!.policies.map((p, i) => ({ policy: p.policy, verdict: packageVerdict(items.map(({ tx }) => asStandard(verdicts.get(tx)!.policies[i]!))) }));
    await recordPackageStandardness(deps.db, packageHash, recorded(policies));
  });
}

async function judgedThen(deps: NoteStandardnessDeps, items: PricedHexTx[], record: (verdicts: Map<DecodedTx, PolicyVerdicts>) => Promise<void>): Promise<void> {
  try {
    await record(await judgePolicies(deps, items));
  } catch (error) {
    deps.log.warn({ err: error, txids: items.map((i) => i.tx.txid) }, 'Could not record whether submissions are standard');
  }
}
