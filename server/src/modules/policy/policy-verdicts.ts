import { DEFAULT_BYTES_PER_SIGOP, sigopAdjustedVsize } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import { transactionSigOpCost } from '../../bitcoin/sigops.ts';
import { CORE, CORE_29, type PolicyFamily } from '../../bitcoin/standardness/policy-families.ts';
import { checkStandardRules, type RuleVerdict } from '../../bitcoin/standardness/standard-rules.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { PricedTx } from '../submission/prevouts.ts';
import type { PolicyOracle } from './policy-oracle.ts';
import { newVouchBudget, scriptsVouched, type VouchBudget } from './scripts-vouched.ts';
import type { PolicyVerdict, StandardVerdict } from './policy.schemas.ts';
import { ANCESTOR_REFUSED, ancestorRefusal, judgeStandard, portalAncestorsOutside, type HexTx, type MempoolAncestors, type SharedPoolReads, type StandardJudgeDeps } from './standard-verdict.ts';

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

/** A reject reason's code, without the node's details ("min relay fee not met, 100 < 141" → "min relay fee not met"), under Core's name. */
const bareCode = (reason: string) => reason.split(/,| \(/)[0]!.trim();
const codeOf = (reason: string) => KNOTS_REASON_NAMES[bareCode(reason)] ?? bareCode(reason);

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
  /** Its outputs (vouts) another transaction of the same list spends (package relay). */
  spentInPackage: ReadonlySet<number>;
  /** The pool node's tip height: whether a lock time has passed. */
  tipHeight?: number | undefined;
  /** The signature checks this request's verdicts may still make (scripts-vouched.ts). */
  budget?: VouchBudget;
}

/**
 * The virtual size public nodes judge the fee by: sigop-adjusted with Core's
 * default -bytespersigop (20), whatever the pool's node is set to
 * (BITCOIN_BYTES_PER_SIGOP prices submissions, not the network's relay).
 */
function publicVsize(tx: DecodedTx, spent: PricedTx['spent']): number {
  return sigopAdjustedVsize(tx.weight, transactionSigOpCost(tx, spent.map((s) => s?.script)), DEFAULT_BYTES_PER_SIGOP);
}

export function policyVerdicts(input: PolicyInput, shares: PolicyShares = {}): PolicyVerdicts {
  const rulesInput = input.priced && { tx: input.tx, spent: input.priced.spent, fee: input.priced.fee, vsize: publicVsize(input.tx, input.priced.spent), spentInPackage: input.spentInPackage };
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
export const NO_KNOTS_NODE = 'No node with Bitcoin Knots\' default policy is configured to judge it.';

function refused(reason: string, explanation?: string): Judged {
  const plain = explanation ?? rejectReasonEntry(reason)?.plain;
  return { relays: false, reason, ...(plain ? { explanation: plain } : {}) };
}

/** The node's refusal; for the Core policies, a Knots name of one of Core's refusals is given as Core's. */
function fromNode(node: StandardVerdict, asCore = true): Judged {
  if (node.reason === undefined) return UNKNOWN;
  const core = asCore ? KNOTS_REASON_NAMES[bareCode(node.reason)] : undefined;
  return core === undefined ? refused(node.reason, node.explanation) : refused(core);
}

function knotsVerdict(node: StandardVerdict | undefined): Judged {
  if (node === undefined) return { relays: null, explanation: NO_KNOTS_NODE };
  return node.verdict === 'standard' ? { relays: true } : fromNode(node, false);
}

/** Core 29: the node runs it, save the rules only Knots adds, where the rules module decides the pre-script part. */
function core29Verdict(node: StandardVerdict, rules: RuleVerdict): Judged {
  if (node.verdict === 'standard') return { relays: true };
  if (node.verdict === 'non-standard' && node.reason !== undefined && !KNOTS_ONLY.test(node.reason)) return fromNode(node);
  return rules.relays === false ? refused(rules.reason) : UNKNOWN;
}

/**
 * Core 30 and later: the rules module for every rule before the scripts;
 * the node for the rest. Where the node refused for a rule Core 30 relaxed
 * (OP_RETURN size and count) or one only Knots has, it stopped before
 * finality and scripts: the portal vouches for those where it can
 * (scripts-vouched.ts), else the verdict is unknown. A refusal for a rule
 * both share is the node's, whatever the rules module found.
 */
function coreVerdict(input: PolicyInput, rules: RuleVerdict): Judged {
  if (rules.relays === false) return refused(rules.reason);
  const node = input.node;
  const relaxed = node.reason !== undefined && (RELAXED_IN_CORE_30.has(codeOf(node.reason)) || KNOTS_ONLY.test(node.reason));
  if (node.verdict === 'non-standard' && node.reason !== undefined && !relaxed) return fromNode(node);
  if (rules.relays === 'unknown') return UNKNOWN;
  if (node.verdict === 'standard') return { relays: true };
  if (node.verdict === 'unknown' || !relaxed) return UNKNOWN;
  // An ancestor's refusal: whether Core 30 takes that ancestor is its own verdict's (combinePolicies), not known here.
  if (node.explanation?.startsWith(ANCESTOR_REFUSED)) return UNKNOWN;
  return input.priced && scriptsVouched(input.tx, input.priced.spent, input.tipHeight, input.budget ?? newVouchBudget()) ? { relays: true } : UNKNOWN;
}

/** What Core 31 does with a parent below the floor that Core 30 refuses, when its one child pays for both. */
export const core31Relays = (childTxid: string) => `Bitcoin Core 31 and later relay it with its child ${childTxid}, which pays for both, as a one-parent-one-child package.`;

/**
 * Parents in the list below Core 30's relay floor that Core 31 relays with
 * their child: a non-TRUC one-parent-one-child package (neither has any
 * other unconfirmed parent) whose two transactions together pay the floor
 * (cluster mempool's package relay; Core 30 takes a parent below it only
 * when it is TRUC).
 */
function core31Pairs(items: ReadonlyArray<{ tx: DecodedTx; priced: PricedTx | undefined }>): Map<DecodedTx, DecodedTx> {
  const pairs = new Map<DecodedTx, DecodedTx>();
  const byTxid = new Map(items.map((i) => [i.tx.txid, i]));
  const listParents = (i: { tx: DecodedTx }) => new Set(i.tx.inputs.map((input) => input.txid).filter((id) => byTxid.has(id) && id !== i.tx.txid));
  // Unconfirmed parents: in the list, and (unknown prices count as some) in the pool's mempool.
  const unconfirmed = (i: { tx: DecodedTx; priced: PricedTx | undefined }) => listParents(i).size + (i.priced ? i.priced.mempoolAncestors.length : 1);
  const childrenOf = new Map<string, Array<{ tx: DecodedTx; priced: PricedTx | undefined }>>();
  for (const item of items) for (const id of listParents(item)) childrenOf.set(id, [...(childrenOf.get(id) ?? []), item]);
  for (const parent of items) {
    const children = childrenOf.get(parent.tx.txid) ?? [];
    const child = children[0];
    if (children.length !== 1 || !child || parent.tx.version === 3 || child.tx.version === 3) continue;
    if (unconfirmed(parent) !== 0 || unconfirmed(child) !== 1) continue;
    if (parent.priced?.fee === undefined || child.priced?.fee === undefined) continue;
    const size = publicVsize(parent.tx, parent.priced.spent) + publicVsize(child.tx, child.priced.spent);
    if ((parent.priced.fee + child.priced.fee) * 1_000 >= CORE.minRelayFeePerKvB * size) pairs.set(parent.tx, child.tx);
  }
  return pairs;
}

/** Core 29's refusals that Core 30 dropped: an OP_RETURN over 83 bytes (Core 29 says scriptpubkey), more than one. */
const RELAXED_IN_CORE_30 = new Set(['scriptpubkey', 'multi-op-return', 'datacarrier']);

function toStandard(verdict: Judged): StandardVerdict {
  if (verdict.relays === true) return { verdict: 'standard' };
  if (verdict.relays === null) return { verdict: 'unknown' };
  return { verdict: 'non-standard', ...(verdict.reason ? { reason: verdict.reason } : {}), ...(verdict.explanation ? { explanation: verdict.explanation } : {}) };
}

/** A transaction, its hex and its price (undefined when the pool node could not say). */
export type PricedHexTx = HexTx & { priced: PricedTx | undefined };

/** Transactions with their prices, judged by the policy node and then per policy. Never rejects for the node's sake: what it cannot tell is unknown. */
export async function judgePolicies(deps: PolicyNodes, items: PricedHexTx[]): Promise<Map<DecodedTx, PolicyVerdicts>> {
  return combinePolicies(items, await askPolicyNodes(deps, items), deps.policyShares);
}

/** What judging per policy uses: the pool node and the policy nodes (standard-verdict.ts), and the operator's shares. */
export type PolicyNodes = StandardJudgeDeps & { knotsPolicy?: PolicyOracle | undefined; policyShares?: PolicyShares | undefined };

/** What the policy nodes said: the Core 29 node's verdicts, the Knots node's (undefined when none is configured), and the pool node's tip they were judged at. */
export interface NodeVerdicts {
  node: Map<DecodedTx, StandardVerdict>;
  knots: Map<DecodedTx, StandardVerdict> | undefined;
  tipHeight: number | undefined;
  /**
   * For a transaction with an ancestor in the pool's mempool that the portal
   * recorded as refused under Core 30: that ancestor and its reason code. The
   * Core 29 node takes what only Core 30 refuses (BIP54's 2,500 legacy
   * sigops), so its verdict on the child cannot tell.
   */
  ancestorRefusals?: Map<DecodedTx, { txid: string; reason: string }>;
}

/**
 * Reasons a child may overcome by paying for its parent or spending its dust
 * (package relay): the policy node judges those with the child.
 */
const PACKAGE_RESCUABLE = /^(min relay fee not met|mempool min fee not met|dust)/;

/** Both policy nodes asked at once, with one read of the pool node's tip. */
export async function askPolicyNodes(deps: PolicyNodes, items: HexTx[]): Promise<NodeVerdicts> {
  const tip = deps.policy && items.length > 0 ? deps.rpc.call<number>('getblockcount') : undefined;
  // Judged by the oracles, or not asked at all: a failure here is the verdicts' "unknown", never the request's.
  tip?.catch(() => {});
  const shared: SharedPoolReads = { tip };
  const [node, knots] = await Promise.all([judgeStandard(deps, items, shared), deps.knotsPolicy ? judgeStandard({ ...deps, policy: deps.knotsPolicy }, items, shared) : undefined]);
  return { node, knots, tipHeight: tip ? await tip.catch(() => undefined) : undefined, ancestorRefusals: await refusedPortalAncestors(deps, items, shared.ancestors) };
}

/** Each transaction's first portal ancestor in the pool's mempool recorded as refused under Core 30 (NodeVerdicts.ancestorRefusals); none when it cannot be read. */
async function refusedPortalAncestors(deps: PolicyNodes, items: HexTx[], read: Promise<MempoolAncestors> | undefined): Promise<Map<DecodedTx, { txid: string; reason: string }>> {
  const result = new Map<DecodedTx, { txid: string; reason: string }>();
  const mempool = await read?.catch(() => undefined);
  if (!mempool || !deps.recordedRefusals) return result;
  const ancestors = new Map(items.map((i) => [i.tx, portalAncestorsOutside(i.tx, items, mempool)]));
  const all = [...new Set([...ancestors.values()].flat())];
  const refusals = all.length === 0 ? new Map<string, string>() : await deps.recordedRefusals(all).catch(() => new Map<string, string>());
  for (const [tx, ids] of ancestors) {
    const txid = ids.find((id) => refusals.has(id) && !PACKAGE_RESCUABLE.test(refusals.get(id)!));
    if (txid !== undefined) result.set(tx, { txid, reason: refusals.get(txid)! });
  }
  return result;
}

/** The policy verdicts from the node's and each transaction's price (parse-tx asks the node beside the pricing). */
export function combinePolicies(items: ReadonlyArray<{ tx: DecodedTx; priced: PricedTx | undefined }>, { node, knots, tipHeight, ancestorRefusals }: NodeVerdicts, shares?: PolicyShares): Map<DecodedTx, PolicyVerdicts> {
  // Which outputs of each transaction the list's other transactions spend.
  const spentByList = new Map<string, Set<number>>();
  for (const { tx } of items) for (const input of tx.inputs) spentByList.set(input.txid, (spentByList.get(input.txid) ?? new Set()).add(input.vout));
  const budget = newVouchBudget();
  const own = new Map(items.map((i) => [i.tx, policyVerdicts({
    tx: i.tx,
    priced: i.priced,
    node: node.get(i.tx) ?? { verdict: 'unknown' },
    knots: knots && (knots.get(i.tx) ?? { verdict: 'unknown' }),
    spentInPackage: spentByList.get(i.tx.txid) ?? new Set(),
    tipHeight,
    budget,
  }, shares)]));
  const byTxid = new Map(items.map((i) => [i.tx.txid, i.tx]));
  const pairedChild = core31Pairs(items);
  const settled = new Map<DecodedTx, PolicyVerdicts>();
  // Core 30's verdict on a transaction holds only with its parents in the list: nodes refuse a child whose parent they refuse.
  const settle = (tx: DecodedTx, path: Set<DecodedTx>): PolicyVerdicts => {
    const done = settled.get(tx);
    if (done) return done;
    const verdicts = own.get(tx)!;
    const core = verdicts.policies[0]!;
    const withShare = (judged: Judged): PolicyVerdict => ({ ...judged, policy: 'core', ...(core.network_share === undefined ? {} : { network_share: core.network_share }) });
    let settledCore = core;
    const child = pairedChild.get(tx);
    if (child && core.relays === false && core.reason !== undefined && bareCode(core.reason) === 'min relay fee not met') {
      settledCore = withShare(refused(core.reason, `${core.explanation ?? core.reason} ${core31Relays(child.txid)}`));
    }
    const mempoolRefusal = ancestorRefusals?.get(tx);
    if (mempoolRefusal && core.relays !== false) settledCore = withShare(refused(mempoolRefusal.reason, ancestorRefusal(mempoolRefusal.txid, rejectReasonEntry(mempoolRefusal.reason)?.plain ?? mempoolRefusal.reason)));
    for (const input of tx.inputs) {
      const parent = byTxid.get(input.txid);
      if (!parent || parent === tx || path.has(parent) || settledCore.relays === false) continue;
      const parentCore = settle(parent, new Set([...path, tx])).policies[0]!;
      if (parentCore.relays === false) settledCore = withShare(refused(parentCore.reason ?? '', ancestorRefusal(parent.txid, parentCore.explanation ?? parentCore.reason ?? '')));
      else if (parentCore.relays === null && settledCore.relays === true) settledCore = withShare(UNKNOWN);
    }
    const result = settledCore === core ? verdicts : { policies: [settledCore, ...verdicts.policies.slice(1)], standard: toStandard(settledCore) };
    settled.set(tx, result);
    return result;
  };
  return new Map(items.map((i) => [i.tx, settle(i.tx, new Set())]));
}
