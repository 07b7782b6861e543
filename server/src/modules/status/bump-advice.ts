import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { type MempoolTxView, type MempoolView, minimumFee } from '@slipstream/mempool-engine';
import type { PortalFamily } from './portal-family.ts';
import { countedPackage, feeAbove, rateToEnter } from './rate-to-enter.ts';
import type { BumpAdvice } from './status.schemas.ts';
import { ANCESTOR_LIMITS, CLUSTER_LIMITS, createClusterMempoolCheck } from '../../bitcoin/cluster/cluster-limits.ts';
import { leastImprovingFee } from '../../bitcoin/cluster/replacement-fee.ts';

/**
 * How to lift a transaction that is not competitive (projected beyond the
 * next block, or selected below the rate to beat) into the next block: the
 * fee a child must pay (CPFP) and, for a transaction the pool node would let
 * a replacement evict, the fee that replacement must pay (RBF). Numbers
 * only: the portal builds no transaction for the user.
 *
 * The package is counted as the projection counts it (rate-to-enter.ts
 * countedPackage): the transaction and its unconfirmed ancestors not
 * already selected in the projected next block. Its rate to beat is the
 * status answer's own `rate_to_beat`, the rate to beat for its size.
 * A replacement spends the same inputs, so it has the same parents and is
 * selected with the same ancestors: its fee is counted over that package too.
 *
 * Every figure is the portal's own view (portal-family.ts): the ancestors
 * counted, the descendants a replacement evicts and the children that
 * already spend an output are those the node accepted from the portal, at
 * base fees, never the pool's prioritisetransaction deltas. A relative sent
 * straight to the node changes no figure here, or its fee and size could be
 * read off them; advice it makes wrong (a replacement that must also outbid
 * a private child, an advised output a private child already spends) is
 * refused by the node with the portal's "conflicts with a transaction
 * already in the pool's mempool" answer, which names nothing. Whether there
 * is advice at all follows the projected block number, the one thing such a
 * relative can change in a public answer.
 */

/**
 * The child assumed for the CPFP figure when the spent output's script says
 * nothing of its spend (P2WSH, bare scripts, anything unrecognised): one
 * P2WPKH-sized input, one P2WPKH output (10.5 + 68 + 31 vbytes, rounded up).
 * A script spent with a bigger witness needs proportionally more.
 */
export const ASSUMED_CHILD_VSIZE = 110;
/** A child's version, locktime, input and output counts, and segwit marker and flag (a quarter vbyte each). */
const CHILD_OVERHEAD_VSIZE = 10.5;
/** The child's one output: a P2WPKH change (8 value + 1 length + 22 script). */
const CHILD_OUTPUT_VSIZE = 31;
/**
 * The vsize of an input spending each output type (Core's scriptPubKey type
 * names), with a 72-byte ECDSA signature where there is one. P2SH is taken to
 * wrap P2WPKH, the one P2SH a single-key wallet spends; a P2SH multisig
 * spends far more, as the explanation's "a bigger child needs more" warns.
 */
const INPUT_VSIZE: Readonly<Record<string, number>> = {
  witness_v0_keyhash: 68, // 41 + (1 + 73 + 34) / 4
  witness_v1_taproot: 57.5, // key path: 41 + (1 + 65) / 4
  pubkeyhash: 148, // 41 + 1 + 73 + 34
  scripthash: 91, // P2SH-P2WPKH: 41 + 23 + 27
};
const SCRIPT_NAMES: Readonly<Record<string, string>> = {
  witness_v0_keyhash: 'P2WPKH',
  witness_v1_taproot: 'P2TR key-path',
  pubkeyhash: 'P2PKH',
  scripthash: 'P2SH-P2WPKH',
};

/** The child of one input spending an output of `scriptType` and one P2WPKH output, in whole vbytes (rounded up). */
export function childVsizeFor(scriptType: string): number {
  const input = INPUT_VSIZE[scriptType];
  return input === undefined ? ASSUMED_CHILD_VSIZE : Math.ceil(CHILD_OVERHEAD_VSIZE + input + CHILD_OUTPUT_VSIZE);
}

/** An output worth less than the child's fee plus a spendable change (P2WPKH dust, 294 sats) cannot pay for it. */
const CHILD_CHANGE_FLOOR_SATS = 294;
/**
 * Outputs considered for the child, largest first, and asked about in one
 * gettxspendingprevout when a child submitted here spends some of the
 * transaction's outputs: one with thousands of outputs must not make the
 * node look up thousands of outpoints.
 */
export const MAX_OUTPUT_LOOKUPS = 16;
/** BIP125: an input with nSequence below this signals replaceability. */
const RBF_SEQUENCE_BELOW = 0xffff_fffe;
/** BIP431: a version 3 (TRUC) transaction is always replaceable. */
const TRUC_VERSION = 3;
const TX_FACTS_ENTRIES = 10_000;
/** The node's replacement policy and incremental relay fee change only with its configuration; re-read them now and then. */
const POLICY_TTL_MS = 60_000;

interface RawTx {
  version: number;
  vin: Array<{ txid: string; sequence: number }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { hex: string; type: string } }>;
}
interface TxFacts {
  /** BIP125 opt-in: an input with nSequence below 0xfffffffe (its own inputs; Core never honoured inherited signalling). */
  signals: boolean;
  truc: boolean;
  /** The transactions it spends (its unconfirmed parents among them). */
  parents: string[];
  outputs: Array<{ vout: number; sats: number; scriptType: string }>;
}
/** getmempoolinfo: `fullrbf` from Core 24 (Knots too), `rbf_policy` Knots' own ("never", "optin", "always"). */
interface MempoolInfo {
  incrementalrelayfee: number;
  fullrbf?: boolean;
  rbf_policy?: string;
}
interface ReplacementPolicy {
  incrementalPerKvB: number;
  /** The node replaces any transaction, signalling or not (full RBF). */
  any: boolean;
  /** The node replaces nothing at all (Knots -mempoolreplacement=0). */
  none: boolean;
  /** Bitcoin Core 31 or later (getnetworkinfo version): clusters, and replacements judged by the feerate diagram. */
  clusterMempool: boolean;
}

/**
 * Competitive: in the projected next block, at a functional rate (the
 * portal's own, `rate`) that beats the rate to beat. Not the engine's rate:
 * a parent a private child lifts into the next block is still advised as
 * its own package needs.
 */
export function isCompetitive(tx: MempoolTxView, view: MempoolView, rate: number): boolean {
  return tx.position?.block === 0 && rate >= view.marketRate;
}

const sats = (n: number) => `${n.toLocaleString('en-US')} sats`;
const vbytes = (n: number) => `${n.toLocaleString('en-US')} vB`;

export function createBumpAdvisor(rpc: RpcClient, clusterMempool: () => Promise<boolean> = createClusterMempoolCheck(rpc)) {
  // A transaction's inputs and outputs never change: read once per txid.
  const facts = new Map<string, TxFacts>();
  let policy: { value: ReplacementPolicy; at: number } | undefined;

  /**
   * Which transactions the node lets a replacement evict, and its incremental
   * relay fee (BIP125 rule 4), from one getmempoolinfo. Full RBF has been
   * Core's default since 28 and its only behaviour since 29 (Knots defaults
   * to it too): a node that no longer reports `fullrbf` (Core after 29, the
   * field deprecated with the option gone) replaces anything.
   */
  async function replacementPolicy(): Promise<ReplacementPolicy> {
    if (policy && Date.now() - policy.at < POLICY_TTL_MS) return policy.value;
    const [info, clustered] = await Promise.all([rpc.call<MempoolInfo>('getmempoolinfo'), clusterMempool()]);
    const value = {
      incrementalPerKvB: btcToSats(info.incrementalrelayfee),
      any: info.rbf_policy === 'always' || (info.rbf_policy === undefined && info.fullrbf !== false),
      none: info.rbf_policy === 'never',
      clusterMempool: clustered,
    };
    policy = { value, at: Date.now() };
    return value;
  }

  async function txFacts(txid: string): Promise<TxFacts> {
    const known = facts.get(txid);
    if (known) return known;
    const raw = await rpc.call<RawTx>('getrawtransaction', [txid, 1]);
    const found = {
      signals: raw.vin.some((i) => i.sequence < RBF_SEQUENCE_BELOW),
      truc: raw.version === TRUC_VERSION,
      parents: raw.vin.map((i) => i.txid),
      // OP_RETURN outputs hold nothing to spend.
      outputs: raw.vout.filter((o) => !o.scriptPubKey.hex.startsWith('6a')).map((o) => ({ vout: o.n, sats: btcToSats(o.value), scriptType: o.scriptPubKey.type })),
    };
    facts.set(txid, found);
    // A Map iterates in insertion order: its first key is the oldest.
    if (facts.size > TX_FACTS_ENTRIES) facts.delete(facts.keys().next().value!);
    return found;
  }

  /**
   * Of `vouts` of `txid`, those a child submitted here already spends (a
   * child of such an output would conflict with it, not pay for its
   * parent): one gettxspendingprevout, and none when no child of it is the
   * portal's. A spend by a transaction the portal did not record is not
   * counted, or the advised output would say which output a private child
   * spends.
   */
  async function spentByPortal(txid: string, vouts: number[], own: PortalFamily): Promise<Set<number>> {
    const children = new Set(own.descendants.filter((d) => d.parents.includes(txid)).map((d) => d.txid));
    if (children.size === 0 || vouts.length === 0) return new Set();
    const spends = await rpc.call<Array<{ vout: number; spendingtxid?: string }>>('gettxspendingprevout', [vouts.map((vout) => ({ txid, vout }))]);
    return new Set(spends.filter((s) => s.spendingtxid !== undefined && children.has(s.spendingtxid)).map((s) => s.vout));
  }

  /** The advice for `tx`, or null when it is competitive or has left the mempool meanwhile; `own` is its family as the portal may describe it. */
  async function advise(tx: MempoolTxView, view: MempoolView, own: PortalFamily): Promise<BumpAdvice | null> {
    if (!tx.projected || isCompetitive(tx, view, own.rate)) return null;
    try {
      return await adviseOn(tx, view, own);
    } catch (error) {
      if (error instanceof RpcError) return null; // mined or gone between the view and these calls
      throw error;
    }
  }

  async function adviseOn(tx: MempoolTxView, view: MempoolView, family: PortalFamily): Promise<BumpAdvice> {
    const [own, node] = await Promise.all([txFacts(tx.txid), replacementPolicy()]);

    // Its unconfirmed ancestors submitted here that the projection counts with it: those not already paid for in the next block.
    const { fee: packageFee, vsize: packageVsize, ancestors: counted, ancestorFee, ancestorVsize } = countedPackage(tx, view, family);
    // The rate to beat for its size (rate-to-enter.ts): what the status answer shows, and what a replacement's package must beat.
    const rateToBeat = rateToEnter(view, packageVsize);
    const withAncestors = counted === 0 ? 'this transaction' : `this transaction and ${counted} unconfirmed ancestor${counted === 1 ? '' : 's'}`;

    // The fee a child of `childVsize` must pay, by the rate that lets the whole package in.
    const childTerms = new Map<number, { rate: number; fee: number }>();
    const termsFor = (childVsize: number) => {
      let terms = childTerms.get(childVsize);
      if (!terms) {
        const rate = rateToEnter(view, packageVsize + childVsize);
        const minimum = minimumFee(Math.round(view.minRelayRate * 1000), childVsize);
        terms = { rate, fee: Math.max(feeAbove(rate, packageVsize + childVsize) - packageFee, minimum) };
        childTerms.set(childVsize, terms);
      }
      return terms;
    };
    // A child must fit the node's limits (counted over the relatives submitted here; others the node counts too).
    const limited = childLimit(tx, family, node.clusterMempool);
    // The largest output that can pay for its child and that no child submitted here spends yet.
    const candidates = limited ? [] : [...own.outputs]
      .sort((a, b) => b.sats - a.sats)
      .map((output) => ({ ...output, childVsize: childVsizeFor(output.scriptType) }))
      .filter((output) => output.sats >= termsFor(output.childVsize).fee + CHILD_CHANGE_FLOOR_SATS)
      .slice(0, MAX_OUTPUT_LOOKUPS);
    const spent = await spentByPortal(tx.txid, candidates.map((c) => c.vout), family);
    const chosen = candidates.find((c) => !spent.has(c.vout));
    let cpfp: BumpAdvice['cpfp'] = null;
    if (chosen) {
      // With its child the package is bigger, so the rate it must beat can be higher than the transaction's own.
      const { rate, fee: childFee } = termsFor(chosen.childVsize);
      const script = SCRIPT_NAMES[chosen.scriptType];
      const childShape = script
        ? `one ${script} input, one P2WPKH output`
        : 'one input, one P2WPKH output; the size of a spend of this output\'s script is not known, so a P2WPKH-sized input is assumed';
      cpfp = {
        output: `${tx.txid}:${chosen.vout}`,
        output_value: chosen.sats,
        child_vsize: chosen.childVsize,
        child_fee: childFee,
        child_rate: childFee / chosen.childVsize,
        package_rate: (packageFee + childFee) / (packageVsize + chosen.childVsize),
        rate_to_enter: rate,
        explanation:
          `Spend output ${chosen.vout} (${sats(chosen.sats)}) in a child of about ${vbytes(chosen.childVsize)} (${childShape}) paying ${sats(childFee)}: ` +
          `with ${withAncestors} (${vbytes(packageVsize)}, ${sats(packageFee)}) the package then pays more than ${rate.toFixed(2)} sat/vB, enough to enter the next block. A bigger child needs more.`,
      };
    }

    // Replaceable on this node: it opts in (BIP125), is TRUC (BIP431), or the node replaces anything (full RBF).
    // Not getmempoolentry's bip125-replaceable: it counts signalling inherited from ancestors, which Core never honoured.
    const why = node.none ? null : own.signals ? 'it signals BIP125' : own.truc ? 'it is a version 3 (TRUC) transaction' : node.any ? 'the pool node replaces any transaction (full RBF)' : null;
    let rbf: BumpAdvice['rbf'] = null;
    if (why) {
      // BIP125 rules 3 and 4: pay at least what every replaced transaction paid (it and its descendants submitted here),
      // plus the incremental relay fee for the replacement's own size; here the same size as the original.
      const vsize = tx.vsize;
      const replaced = tx.fee + family.descendants.reduce((sum, d) => sum + d.fee, 0);
      const bip125 = replaced + minimumFee(node.incrementalPerKvB, vsize);
      // Spending the same inputs, the replacement keeps the same parents: it enters the next block with the
      // ancestors the projection counts, so the package, not the replacement alone, must beat the rate.
      const competitive = feeAbove(rateToBeat, packageVsize) - ancestorFee;
      // Core 31 also asks that the replacement improve the feerate diagram of its cluster (the relatives submitted here).
      const diagram = node.clusterMempool ? diagramMinimum(tx, family, own.parents) : 0;
      const fee = Math.max(bip125, competitive, diagram);
      const binding = diagram > Math.max(bip125, competitive) ? 'feerate_diagram' : bip125 >= competitive ? 'bip125' : 'rate_to_beat';
      rbf = {
        fee,
        rate: fee / vsize,
        vsize,
        replaced_fees: replaced,
        bip125_minimum: bip125,
        ...(node.clusterMempool ? { feerate_diagram_minimum: diagram } : {}),
        binding,
        explanation:
          `Replaceable: ${why}. A replacement of the same size (${vbytes(vsize)}) spending the same inputs must pay at least ${sats(fee)}: ` +
          (binding === 'feerate_diagram'
            ? `the pool node (Bitcoin Core 31 or later) takes a replacement only when its cluster's feerate diagram improves, which asks for ${sats(diagram)} here; BIP125 alone would ask ${sats(bip125)}.`
            : bip125 >= competitive
            ? `BIP125 asks for the ${sats(replaced)} it replaces plus the node's incremental relay fee for ${vbytes(vsize)}.`
            : counted === 0
              ? `more than the rate that enters the next block; BIP125 alone would ask ${sats(bip125)}.`
              : `with its ${counted} unconfirmed ancestor${counted === 1 ? '' : 's'} (${vbytes(ancestorVsize)}, ${sats(ancestorFee)}) it must pay more than ${rateToBeat.toFixed(2)} sat/vB, ` +
                `the rate that enters the next block; BIP125 alone would ask ${sats(bip125)}.`),
      };
    }

    return {
      rate_to_beat: rateToBeat,
      package: { vsize: packageVsize, fee: packageFee, ancestors: counted, rate: packageFee / packageVsize },
      cpfp,
      rbf,
      explanation: cpfp || rbf
        ? `Not competitive for the next block. The figures below would lift it at the current rate to beat, which moves as the mempool does.${limited ? ` ${limited}` : ''}`
        : `Not competitive for the next block: ${limited ?? 'none of its unspent outputs is large enough to pay for a child'}, and the pool node would not replace it ` +
          (node.none ? '(it replaces no transaction).' : '(it does not signal BIP125 and the node does not replace transactions that do not).'),
    };
  }

  return { advise };
}

export type BumpAdvisor = ReturnType<typeof createBumpAdvisor>;

/**
 * Why no child can be added, or undefined when one can: Core 31 keeps a
 * cluster to 64 transactions and 101 kvB; earlier Core, a transaction's
 * unconfirmed ancestors (itself included) to 25 and 101 kvB. Counted over
 * the relatives submitted here, a lower bound of the node's count.
 */
export function childLimit(tx: Pick<MempoolTxView, 'vsize'>, family: Pick<PortalFamily, 'ancestors' | 'descendants'>, clusterMempool: boolean): string | undefined {
  const child = ASSUMED_CHILD_VSIZE;
  if (clusterMempool) {
    const members = [...family.ancestors, ...family.descendants];
    const count = members.length + 2;
    const vsize = members.reduce((sum, m) => sum + m.vsize, tx.vsize) + child;
    if (count > CLUSTER_LIMITS.count || vsize > CLUSTER_LIMITS.vsize) {
      return `a child would take its cluster of unconfirmed relatives past the pool node's limit (${CLUSTER_LIMITS.count} transactions, ${CLUSTER_LIMITS.vsize.toLocaleString('en-US')} vB; Bitcoin Core 31)`;
    }
    return undefined;
  }
  const count = family.ancestors.length + 2;
  const vsize = family.ancestors.reduce((sum, m) => sum + m.vsize, tx.vsize) + child;
  if (count > ANCESTOR_LIMITS.count || vsize > ANCESTOR_LIMITS.vsize) {
    return `a child would have more unconfirmed ancestors than the pool node allows (${ANCESTOR_LIMITS.count} transactions, ${ANCESTOR_LIMITS.vsize.toLocaleString('en-US')} vB with the child)`;
  }
  return undefined;
}

/**
 * The least fee by Core 31's feerate-diagram rule for a replacement of `tx`
 * of its own size, spending its inputs: over its cluster as submitted here
 * (its ancestors and descendants), the replacement evicting it and its
 * descendants.
 */
export function diagramMinimum(tx: Pick<MempoolTxView, 'txid' | 'fee' | 'vsize'>, family: Pick<PortalFamily, 'ancestors' | 'descendants'>, parents: readonly string[]): number {
  const cluster = [...family.ancestors, { txid: tx.txid, fee: tx.fee, vsize: tx.vsize, parents }, ...family.descendants];
  const evicted = new Set([tx.txid, ...family.descendants.map((d) => d.txid)]);
  return leastImprovingFee(cluster, evicted, { vsize: tx.vsize, parents }) ?? Number.MAX_SAFE_INTEGER;
}
