import { btcToSats } from '../../bitcoin/amounts.ts';
import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { MempoolTxView, MempoolView } from '../../mempool/mempool-engine.ts';
import { minimumFee } from '../../mempool/projection/block-packages.ts';
import type { BumpAdvice } from './status.schemas.ts';

/**
 * How to lift a transaction that is not competitive (projected beyond the
 * next block, or selected below the rate to beat) into the next block: the
 * fee a child must pay (CPFP) and, for a BIP125-signalling transaction, the
 * fee its replacement must pay (RBF). Numbers only: the portal builds no
 * transaction for the user.
 *
 * The package is counted as the projection counts it (node/miner.cpp): the
 * transaction and its unconfirmed ancestors, less those already selected in
 * the projected next block (once selected, Core takes their fees and size
 * out of their descendants' package), at modified fees and the node's
 * sigop-adjusted vsize.
 */

/**
 * The child assumed for the CPFP figure: one P2WPKH input, one P2WPKH output
 * (10.5 + 68 + 31 vbytes, rounded up). A bigger child needs proportionally more.
 */
export const ASSUMED_CHILD_VSIZE = 110;
/** An output worth less than the child's fee plus a spendable change (P2WPKH dust, 294 sats) cannot pay for it. */
const CHILD_CHANGE_FLOOR_SATS = 294;
/** BIP125: an input with nSequence below this signals replaceability. */
const RBF_SEQUENCE_BELOW = 0xffff_fffe;
const TX_FACTS_ENTRIES = 10_000;
/** The node's incremental relay fee changes only with its configuration; re-read it now and then. */
const INCREMENTAL_FEE_TTL_MS = 60_000;

interface RawTx {
  vin: Array<{ sequence: number }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { hex: string } }>;
}
interface AncestorEntry {
  vsize: number;
  fees: { modified: number };
}
interface NodeEntry {
  'bip125-replaceable'?: boolean;
  descendantsize: number;
  fees: { modified: number; descendant: number };
}
interface TxFacts {
  signals: boolean;
  outputs: Array<{ vout: number; sats: number }>;
}

/** Not competitive: in no projected block, beyond the next one, or selected below the rate to beat. */
export function isCompetitive(tx: MempoolTxView, view: MempoolView): boolean {
  return tx.position?.block === 0 && (tx.functionalRate ?? 0) >= view.marketRate;
}

/** consensus MAX_BLOCK_WEIGHT less the coinbase's reserve (-blockreservedweight, 8,000 WU by default, as the projection assumes), in vbytes. */
const BLOCK_VSIZE = (4_000_000 - 8_000) / 4;

/**
 * The rate a package of `vsize` vbytes must beat to enter the next block:
 * the rate to beat, unless the cheapest packages of the projected next
 * block (and its free room) are too small to make way for it, in which case
 * the rate of the last one it must push out. A package just above the rate
 * to beat but larger than the room it frees lands in the block after.
 */
export function rateToEnter(view: MempoolView, vsize: number): number {
  // TestPackage refuses a package reaching the limit, hence the strict margin of one vbyte.
  let room = Math.max(0, BLOCK_VSIZE - (view.blocks[0]?.vsize ?? 0) - 1);
  if (room >= vsize) return view.marketRate;
  const members = view.nextBlockTxids().map((txid) => view.transaction(txid)).filter((tx) => tx?.functionalRate != null) as Array<MempoolTxView & { functionalRate: number }>;
  members.sort((a, b) => a.functionalRate - b.functionalRate);
  let rate = view.marketRate;
  for (const tx of members) {
    rate = Math.max(rate, tx.functionalRate);
    room += tx.vsize;
    if (room >= vsize) break;
  }
  return rate;
}

/** The lowest integer fee paying strictly more than `rate` over `vsize` vbytes, beating the rate rather than tying it. */
export const feeAbove = (rate: number, vsize: number) => Math.floor(rate * vsize + 1e-9) + 1;

const sats = (n: number) => `${n.toLocaleString('en-US')} sats`;
const vbytes = (n: number) => `${n.toLocaleString('en-US')} vB`;

export function createBumpAdvisor(rpc: RpcClient) {
  // A transaction's inputs and outputs never change: read once per txid.
  const facts = new Map<string, TxFacts>();
  let incremental: { perKvB: number; at: number } | undefined;

  async function incrementalPerKvB(): Promise<number> {
    if (incremental && Date.now() - incremental.at < INCREMENTAL_FEE_TTL_MS) return incremental.perKvB;
    const info = await rpc.call<{ incrementalfee: number }>('getnetworkinfo');
    incremental = { perKvB: btcToSats(info.incrementalfee), at: Date.now() };
    return incremental.perKvB;
  }

  async function txFacts(txid: string): Promise<TxFacts> {
    const known = facts.get(txid);
    if (known) return known;
    const raw = await rpc.call<RawTx>('getrawtransaction', [txid, 1]);
    const found = {
      signals: raw.vin.some((i) => i.sequence < RBF_SEQUENCE_BELOW),
      // OP_RETURN outputs hold nothing to spend.
      outputs: raw.vout.filter((o) => !o.scriptPubKey.hex.startsWith('6a')).map((o) => ({ vout: o.n, sats: btcToSats(o.value) })),
    };
    facts.set(txid, found);
    // A Map iterates in insertion order: its first key is the oldest.
    if (facts.size > TX_FACTS_ENTRIES) facts.delete(facts.keys().next().value!);
    return found;
  }

  /** The advice for `tx`, or null when it is competitive or has left the mempool meanwhile. */
  async function advise(tx: MempoolTxView, view: MempoolView): Promise<BumpAdvice | null> {
    if (!tx.projected || isCompetitive(tx, view)) return null;
    let ancestors: Record<string, AncestorEntry>;
    let entry: NodeEntry;
    let own: TxFacts;
    try {
      [ancestors, entry, own] = await Promise.all([
        rpc.call<Record<string, AncestorEntry>>('getmempoolancestors', [tx.txid, true]),
        rpc.call<NodeEntry>('getmempoolentry', [tx.txid]),
        txFacts(tx.txid),
      ]);
    } catch (error) {
      if (error instanceof RpcError) return null; // mined or gone between the view and these calls
      throw error;
    }

    let packageFee = tx.modifiedFee;
    let packageVsize = tx.vsize;
    let counted = 0;
    for (const [txid, a] of Object.entries(ancestors)) {
      if (view.transaction(txid)?.position?.block === 0) continue; // already paid for in the next block
      packageFee += btcToSats(a.fees.modified);
      packageVsize += a.vsize;
      counted++;
    }

    const rate = rateToEnter(view, packageVsize + ASSUMED_CHILD_VSIZE);
    const childMinimum = minimumFee(Math.round(view.minRelayRate * 1000), ASSUMED_CHILD_VSIZE);
    const childFee = Math.max(feeAbove(rate, packageVsize + ASSUMED_CHILD_VSIZE) - packageFee, childMinimum);
    const output = [...own.outputs].sort((a, b) => b.sats - a.sats)[0];
    const cpfp = output && output.sats >= childFee + CHILD_CHANGE_FLOOR_SATS
      ? {
          output: `${tx.txid}:${output.vout}`,
          output_value: output.sats,
          child_vsize: ASSUMED_CHILD_VSIZE,
          child_fee: childFee,
          child_rate: childFee / ASSUMED_CHILD_VSIZE,
          package_rate: (packageFee + childFee) / (packageVsize + ASSUMED_CHILD_VSIZE),
          explanation:
            `Spend output ${output.vout} (${sats(output.sats)}) in a child of about ${vbytes(ASSUMED_CHILD_VSIZE)} (one input, one output) paying ${sats(childFee)}: ` +
            `with ${counted === 0 ? 'this transaction' : `this transaction and ${counted} unconfirmed ancestor${counted === 1 ? '' : 's'}`} ` +
            `(${vbytes(packageVsize)}, ${sats(packageFee)}) the package then pays more than ${rate.toFixed(2)} sat/vB, enough to enter the next block. A bigger child needs more.`,
        }
      : null;

    const signals = entry['bip125-replaceable'] ?? own.signals;
    let rbf: BumpAdvice['rbf'] = null;
    if (signals) {
      // BIP125 rules 3 and 4: pay at least what every replaced transaction paid (it and its descendants),
      // plus the incremental relay fee for the replacement's own size; here the same size as the original.
      const vsize = tx.vsize;
      const replaced = btcToSats(entry.fees.descendant);
      const bip125 = replaced + minimumFee(await incrementalPerKvB(), vsize);
      const competitive = feeAbove(rateToEnter(view, vsize), vsize);
      const fee = Math.max(bip125, competitive);
      rbf = {
        fee,
        rate: fee / vsize,
        vsize,
        replaced_fees: replaced,
        bip125_minimum: bip125,
        binding: bip125 >= competitive ? 'bip125' : 'rate_to_beat',
        explanation:
          `A replacement of the same size (${vbytes(vsize)}) spending the same inputs must pay at least ${sats(fee)}: ` +
          (bip125 >= competitive
            ? `BIP125 asks for the ${sats(replaced)} it replaces plus the node's incremental relay fee for ${vbytes(vsize)}.`
            : `more than the rate that enters the next block; BIP125 alone would ask ${sats(bip125)}.`),
      };
    }

    return {
      rate_to_beat: rate,
      package: { vsize: packageVsize, fee: packageFee, ancestors: counted, rate: packageFee / packageVsize },
      cpfp,
      rbf,
      explanation: cpfp || rbf
        ? 'Not competitive for the next block. The figures below would lift it at the current rate to beat, which moves as the mempool does.'
        : 'Not competitive for the next block, and none of its outputs is large enough to pay for a child; it does not signal replacement.',
    };
  }

  return { advise };
}

export type BumpAdvisor = ReturnType<typeof createBumpAdvisor>;
