import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import { checkSignatures } from '../../bitcoin/signature-check.ts';
import { CORE, CORE_29, type PolicyFamily } from '../../bitcoin/standardness/policy-families.ts';
import { checkStandardRules, RULE_SOURCES, type RuleVerdict } from '../../bitcoin/standardness/standard-rules.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { PricedTx } from '../submission/prevouts.ts';
import type { PolicyOracle } from './policy-oracle.ts';
import type { PolicyVerdict, StandardVerdict } from './policy.schemas.ts';
import { ANCESTOR_REFUSED, ancestorRefusal, judgeStandard, type HexTx, type StandardJudgeDeps } from './standard-verdict.ts';

/**
 * Whether the public network would relay a transaction, per relay policy
 * (bitcoin/standardness/policy-families.ts), from two sources that each
 * know part of it:
 * - the policy node (Knots with `-corepolicy`, standard-verdict.ts) runs
 *   Core 29's rules on the real transaction: scripts, signatures, finality,
 *   conflicts and chain limits, and stands for `core-29` itself;
 * - the rules module (bitcoin/standardness/standard-rules.ts) implements the
 *   pre-script rules of Core 29 and Core 30, including those the node cannot
 *   run (Core 30's OP_RETURN budget and 0.1 sat/vB floor), from the outputs
 *   the transaction spends and its fee.
 * `core` is the rules module's Core 30 verdict, completed by the node for
 * what comes after those rules: a node refusal for a rule Core 30 no longer
 * has (or one only Knots has) stopped it before the scripts, which are then
 * judged by the portal's own signature check where it can; otherwise the
 * verdict is unknown, never a guess.
 */

/** The share of the network's nodes each policy stands for, when the operator says (POLICY_NETWORK_SHARES). */
export type PolicyShares = Partial<Record<PolicyFamily, number>>;

/**
 * Refusals only Bitcoin Knots makes, whatever its policy flags: an output
 * script over 34 bytes (83 for OP_RETURN), and tapscript `OP_FALSE OP_IF`
 * envelopes (docs/production.md#which-node-for-which-transactions). Core
 * relays both, so for the Core families they say nothing.
 */
export const KNOTS_ONLY = /^(bad-txns-vout-script-toolarge|mempool-script-verify-flag-failed \(OP_IF\/NOTIF argument must be minimal in tapscript\))/;

/**
 * Knots names each refusal it can be told to ignore (-acceptnonstdtxn's
 * finer grain) on its own where Core gives one name to the rule: the same
 * checks of AreInputsStandard, IsWitnessStandard and SingleTRUCChecks, under
 * Core's name here. Only names whose check is Core's are listed.
 */
export const KNOTS_REASON_NAMES: Record<string, string> = {
  'bad-txns-input-script-unknown': 'bad-txns-nonstandard-inputs',
  'bad-txns-input-witness-unknown': 'bad-txns-nonstandard-inputs',
  'bad-txns-input-scriptsig-failure': 'bad-txns-nonstandard-inputs',
  'bad-txns-input-scriptcheck-missing': 'bad-txns-nonstandard-inputs',
  'bad-txns-input-scriptcheck-sigops': 'bad-txns-nonstandard-inputs',
  'bad-witness-anchor-not-empty': 'bad-witness-nonstandard',
  'bad-witness-nonwitness-input': 'bad-witness-nonstandard',
  'bad-witness-script-size': 'bad-witness-nonstandard',
  'bad-witness-stackitem-count': 'bad-witness-nonstandard',
  'bad-witness-stackitem-size': 'bad-witness-nonstandard',
  'bad-witness-taproot-annex': 'bad-witness-nonstandard',
  'bad-witness-taproot-control-missing': 'bad-witness-nonstandard',
  'bad-witness-taproot-stackitem-size': 'bad-witness-nonstandard',
  'truc-vsize-toobig': 'TRUC-violation',
};

const RULE_REASONS = new Set<string>(Object.keys(RULE_SOURCES));
/** A reject reason's code, without the node's details ("min relay fee not met, 100 < 141" → "min relay fee not met"), under Core's name. */
const codeOf = (reason: string) => {
  const code = reason.split(/,| \(/)[0]!.trim();
  return KNOTS_REASON_NAMES[code] ?? code;
};
/** A refusal by one of the pre-script rules the rules module decides for each family itself. */
const isRuleRefusal = (reason: string) => RULE_REASONS.has(codeOf(reason));

export interface PolicyVerdicts {
  /** `core`, `core-29`, `knots`, in that order. */
  policies: PolicyVerdict[];
  /** `core`'s, in the shape the `standard` field has always had. */
  standard: StandardVerdict;
}

export interface PolicyInput {
  tx: DecodedTx;
  /** Its price (the outputs it spends, its fee); undefined when the pool node could not be asked. */
  priced: PricedTx | undefined;
  /** The policy node's verdict (Core 29's policy). */
  node: StandardVerdict;
  /** The Knots-policy node's verdict; undefined when none is configured. */
  knots?: StandardVerdict | undefined;
  /** Another transaction of the same list spends it (package relay). */
  hasChildInPackage: boolean;
}

export function policyVerdicts(input: PolicyInput, shares: PolicyShares = {}): PolicyVerdicts {
  const rulesInput = input.priced && { tx: input.tx, spent: input.priced.spent, fee: input.priced.fee, vsize: input.priced.vsize, hasChildInPackage: input.hasChildInPackage };
  const rules29: RuleVerdict = rulesInput ? checkStandardRules(rulesInput, CORE_29) : { relays: 'unknown', missing: 'prevouts' };
  const rulesCore: RuleVerdict = rulesInput ? checkStandardRules(rulesInput, CORE) : { relays: 'unknown', missing: 'prevouts' };
  const core = coreVerdict(input, rulesCore);
  const share = (policy: PolicyFamily) => (shares[policy] === undefined ? {} : { network_share: shares[policy] });
  const policies: PolicyVerdict[] = [
    { policy: 'core', ...core, ...share('core') },
    { policy: 'core-29', ...core29Verdict(input.node, rules29), ...share('core-29') },
    // Knots' filters are its own: only a node running them can tell.
    { policy: 'knots', ...knotsVerdict(input.knots), ...share('knots') },
  ];
  return { policies, standard: toStandard(core) };
}

type Judged = Omit<PolicyVerdict, 'policy' | 'network_share'>;

const UNKNOWN: Judged = { relays: null };
/** At most this many inputs' signatures are checked for a verdict (a few milliseconds at most, on every parse-tx that needs them). */
export const MAX_CHECKED_SIGNATURES = 64;
/** Nor for a transaction over this weight (10 kvB): a legacy input's digest hashes the whole transaction again. */
export const MAX_CHECKED_WEIGHT = 40_000;

/** Whether a verdict may check this transaction's signatures (MAX_CHECKED_SIGNATURES, MAX_CHECKED_WEIGHT). */
export function signaturesWorthChecking(tx: Pick<DecodedTx, 'inputs' | 'weight'>): boolean {
  return tx.inputs.length <= MAX_CHECKED_SIGNATURES && tx.weight <= MAX_CHECKED_WEIGHT;
}
export const NO_KNOTS_NODE = 'No node with Bitcoin Knots\' default policy is configured to judge it.';

function refused(reason: string, explanation?: string): Judged {
  const plain = explanation ?? rejectReasonEntry(reason)?.plain;
  return { relays: false, reason, ...(plain ? { explanation: plain } : {}) };
}

function fromNode(node: StandardVerdict): Judged {
  return node.reason === undefined ? UNKNOWN : refused(node.reason, node.explanation);
}

function knotsVerdict(node: StandardVerdict | undefined): Judged {
  if (node === undefined) return { relays: null, explanation: NO_KNOTS_NODE };
  return node.verdict === 'standard' ? { relays: true } : fromNode(node);
}

/** Core 29: the node runs it, save the rules only Knots adds, where the rules module decides the pre-script part. */
function core29Verdict(node: StandardVerdict, rules: RuleVerdict): Judged {
  if (node.verdict === 'standard') return { relays: true };
  if (node.verdict === 'non-standard' && node.reason !== undefined && !KNOTS_ONLY.test(node.reason)) return fromNode(node);
  return rules.relays === false ? refused(rules.reason) : UNKNOWN;
}

/** Core 30 and later: the rules module for the rules the node runs differently, the node (or the signature check) for the scripts. */
function coreVerdict(input: PolicyInput, rules: RuleVerdict): Judged {
  if (rules.relays === false) return refused(rules.reason);
  if (rules.relays === 'unknown') return input.node.verdict === 'non-standard' && input.node.reason !== undefined && !isRuleRefusal(input.node.reason) && !KNOTS_ONLY.test(input.node.reason) ? fromNode(input.node) : UNKNOWN;
  const node = input.node;
  if (node.verdict === 'standard') return { relays: true };
  if (node.verdict === 'unknown' || node.reason === undefined) return UNKNOWN;
  if (!isRuleRefusal(node.reason) && !KNOTS_ONLY.test(node.reason)) return fromNode(node);
  // An ancestor's refusal by a Core 29 rule: whether Core 30 takes that ancestor is its own verdict's (combinePolicies), not known here.
  if (node.explanation?.startsWith(ANCESTOR_REFUSED)) return UNKNOWN;
  // The node stopped at a rule Core 30 does not have, before any script ran: the signatures decide, where the portal can check them all,
  // for a transaction small enough that checking costs a public request little (each signature is a curve operation; legacy ones rehash the transaction).
  if (!signaturesWorthChecking(input.tx)) return UNKNOWN;
  const signed = input.priced && checkSignatures(input.tx, input.priced.spent);
  return signed?.ok ? { relays: true } : UNKNOWN;
}

function toStandard(verdict: Judged): StandardVerdict {
  if (verdict.relays === true) return { verdict: 'standard' };
  if (verdict.relays === null) return { verdict: 'unknown' };
  return { verdict: 'non-standard', ...(verdict.reason ? { reason: verdict.reason } : {}), ...(verdict.explanation ? { explanation: verdict.explanation } : {}) };
}

/** A transaction, its hex and its price (undefined when the pool node could not say). */
export type PricedHexTx = HexTx & { priced: PricedTx | undefined };

/** Transactions with their prices, judged by the policy node and then per policy. Never rejects for the node's sake: what it cannot tell is unknown. */
export async function judgePolicies(deps: PolicyNodes, items: PricedHexTx[]): Promise<Map<DecodedTx, PolicyVerdicts>> {
  const [node, knots] = await askPolicyNodes(deps, items);
  return combinePolicies(items, node, knots, deps.policyShares);
}

/** What judging per policy uses: the pool node and the policy nodes (standard-verdict.ts), and the operator's shares. */
export type PolicyNodes = StandardJudgeDeps & { knotsPolicy?: PolicyOracle | undefined; policyShares?: PolicyShares | undefined };

/** The Core 29 node's verdicts and the Knots node's (undefined when none is configured), asked at once. */
export async function askPolicyNodes(deps: PolicyNodes, items: HexTx[]): Promise<[Map<DecodedTx, StandardVerdict>, Map<DecodedTx, StandardVerdict> | undefined]> {
  return Promise.all([judgeStandard(deps, items), deps.knotsPolicy ? judgeStandard({ ...deps, policy: deps.knotsPolicy }, items) : undefined]);
}

/** The policy verdicts from the node's and each transaction's price (parse-tx asks the node beside the pricing). */
export function combinePolicies(items: ReadonlyArray<{ tx: DecodedTx; priced: PricedTx | undefined }>, node: ReadonlyMap<DecodedTx, StandardVerdict>, knots: ReadonlyMap<DecodedTx, StandardVerdict> | undefined, shares?: PolicyShares): Map<DecodedTx, PolicyVerdicts> {
  const spentByList = new Set(items.flatMap((i) => i.tx.inputs.map((input) => input.txid)));
  const own = new Map(items.map((i) => [i.tx, policyVerdicts({ tx: i.tx, priced: i.priced, node: node.get(i.tx) ?? { verdict: 'unknown' }, knots: knots && (knots.get(i.tx) ?? { verdict: 'unknown' }), hasChildInPackage: spentByList.has(i.tx.txid) }, shares)]));
  const byTxid = new Map(items.map((i) => [i.tx.txid, i.tx]));
  const settled = new Map<DecodedTx, PolicyVerdicts>();
  // Core 30's verdict on a transaction holds only with its parents in the list: nodes refuse a child whose parent they refuse.
  const settle = (tx: DecodedTx, path: Set<DecodedTx>): PolicyVerdicts => {
    const done = settled.get(tx);
    if (done) return done;
    const verdicts = own.get(tx)!;
    const core = verdicts.policies[0]!;
    let settledCore = core;
    for (const input of tx.inputs) {
      const parent = byTxid.get(input.txid);
      if (!parent || parent === tx || path.has(parent) || settledCore.relays === false) continue;
      const parentCore = settle(parent, new Set([...path, tx])).policies[0]!;
      if (parentCore.relays === false) settledCore = { ...refused(parentCore.reason ?? '', ancestorRefusal(parent.txid, parentCore.explanation ?? parentCore.reason ?? '')), policy: 'core', ...(core.network_share === undefined ? {} : { network_share: core.network_share }) };
      else if (parentCore.relays === null && settledCore.relays === true) settledCore = { ...UNKNOWN, policy: 'core', ...(core.network_share === undefined ? {} : { network_share: core.network_share }) };
    }
    const result = settledCore === core ? verdicts : { policies: [settledCore, ...verdicts.policies.slice(1)], standard: toStandard(settledCore) };
    settled.set(tx, result);
    return result;
  };
  return new Map(items.map((i) => [i.tx, settle(i.tx, new Set())]));
}
