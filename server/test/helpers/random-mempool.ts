import { createHash } from 'node:crypto';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { sigopAdjustedVsize } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { decodeTxHex, encodeTxHex } from '../../src/bitcoin/tx-codec.ts';
import type { TestNode } from './regtest.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';

/**
 * Fills a regtest node's mempool with thousands of random transactions, fast:
 * block-assembly oracle tests need a mempool that overfills a block, with
 * chains, CPFP packages, ties, prioritised and sigop-heavy transactions.
 *
 * How it stays fast: one wallet transaction (mined at once) funds hundreds
 * or thousands of anyone-can-spend P2WSH coins; every other transaction spends such
 * anyone-can-spend outputs, so it is built and hashed here, with no
 * signature and no RPC, and its size is known before it is sent. They go to
 * the node in JSON-RPC batches, parents before children (a batch runs in
 * order). Core's default package limits (25 ancestors or descendants,
 * 101 kvB) are kept, with margin.
 *
 * Deterministic for a seed, apart from the funding transaction's wallet
 * coins and signature (and so every txid).
 *
 * Start the node with -checkmempool=0: regtest otherwise checks the whole
 * mempool after every transaction, and sending thousands takes minutes.
 */

export interface RandomMempoolOptions {
  seed: number;
  /** Ordinary transactions: 1–2 inputs, 1–2 outputs, about half spending unconfirmed outputs. */
  payments: number;
  /** Large transactions (17–85 kvB, many outputs): they make a few thousand transactions fill blocks. */
  large: number;
  /** Transactions whose 2 outputs of 34 × OP_CHECKMULTISIG cost 5,440 sigops: priced by sigops, and the block sigop limit binds. */
  sigopHeavy: number;
  /** Transactions given a prioritisetransaction fee delta, up or down. */
  prioritised: number;
}

export interface RandomMempool {
  txids: string[];
  /** Sum of sigop-adjusted vsizes. */
  vsize: number;
  buildMs: number;
  sendMs: number;
}

/**
 * Anyone-can-spend outputs: P2WSH of `<n> OP_DROP OP_TRUE`, spent with the
 * script alone as witness. Every output gets its own n, so its own script,
 * as real payments to fresh addresses do.
 */
function anyoneCanSpend(n: number): { scriptPubKey: string; witnessScript: string } {
  const number = Buffer.alloc(4);
  number.writeUInt32LE(n);
  const witnessScript = `04${number.toString('hex')}7551`;
  return { scriptPubKey: `0020${createHash('sha256').update(Buffer.from(witnessScript, 'hex')).digest('hex')}`, witnessScript };
}
/** 34 × OP_CHECKMULTISIG: within Knots' 34-byte output limit, 34 × 20 × 4 = 2,720 sigop cost. */
const DENSE_SIGOPS_SCRIPT = 'ae'.repeat(34);
const DENSE_SIGOP_COST = 2_720;
const RBF_SEQUENCE = 0xffff_fffd;
const SMALL_OUTPUT_SATS = 1_000;
/** Core's limits are 25 and 101,000 vB; stay inside them. */
const MAX_ANCESTORS = 22;
const MAX_PACKAGE_VSIZE = 95_000;
const SEND_BATCH = 100;

interface Coin {
  txid: string;
  vout: number;
  sats: number;
  witnessScript: string;
  /** Index of the mempool transaction that created it; -1 for confirmed coins. */
  from: number;
}

interface Built {
  hex: string;
  txid: string;
  vsize: number;
  fee: number;
  rate: number;
  ancestors: Set<number>;
  ancestorVsize: number;
  descendants: number;
  descendantVsize: number;
}

export async function fillRandomMempool(node: TestNode, options: RandomMempoolOptions): Promise<RandomMempool> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const started = performance.now();

  // ---- funding: confirmed anyone-can-spend coins, mined at once
  const smallCoinSats = 500_000;
  const sigopCoinSats = 3_000_000;
  const largeCoinSats = 25_000_000;
  const plan = [
    ...Array.from({ length: options.payments }, () => smallCoinSats),
    ...Array.from({ length: options.sigopHeavy }, () => sigopCoinSats),
    ...Array.from({ length: options.large }, () => largeCoinSats),
  ];
  let scripts = 0;
  const anyone = () => anyoneCanSpend(scripts++);
  const confirmed = await fund(node, plan, anyone);
  const coinsOf = (sats: number) => confirmed.filter((c) => c.sats === sats);
  const [smallCoins, sigopCoins, largeCoins] = [coinsOf(smallCoinSats), coinsOf(sigopCoinSats), coinsOf(largeCoinSats)];

  // ---- building
  const built: Built[] = [];
  /** Unspent outputs of mempool transactions that may be spent further. */
  const open: Coin[] = [];

  /** A fee rate (sat/vB): a third at round rates (exact ties), the rest spread from 1 to 60. */
  const drawRate = () => (random() < 0.35 ? 1 + Math.floor(random() * 25) : 1 + Math.floor(random() * 59_000) / 1_000);

  /** Ancestors of a transaction spending `inputs`: its parents and theirs. */
  function ancestorsOf(inputs: Coin[]): Set<number> {
    const ancestors = new Set<number>();
    for (const coin of inputs) {
      if (coin.from < 0) continue;
      ancestors.add(coin.from);
      for (const a of built[coin.from]!.ancestors) ancestors.add(a);
    }
    return ancestors;
  }

  /**
   * Builds a transaction spending `inputs` to `outputs` at `rate`: outputs
   * with `sats` get that much, the others share what the fee leaves; only
   * those may be spent further.
   */
  function add(inputs: Coin[], outputs: Array<{ scriptPubKey: string; witnessScript?: string; sats?: number }>, rate: number, sigopCost: number): Built {
    const ancestors = ancestorsOf(inputs);
    const draft = (values: number[]) =>
      encodeTxHex({
        version: 2,
        locktime: 0,
        inputs: inputs.map((c) => ({ txid: c.txid, vout: c.vout, scriptSig: '', sequence: RBF_SEQUENCE, witness: [c.witnessScript] })),
        outputs: outputs.map((o, i) => ({ value: values[i]!, scriptPubKey: o.scriptPubKey })),
      });
    // Values do not change the size: measure with zeros, then settle them.
    const shape = decodeTxHex(draft(outputs.map(() => 0)));
    const vsize = sigopAdjustedVsize(shape.weight, sigopCost);
    // The node's fee for a rate is rounded up, as feeAt() does: ceil(rate in sat/kvB × vsize / 1000).
    const fee = Math.ceil((Math.round(rate * 1000) * vsize) / 1000);
    const fixed = outputs.reduce((a, o) => a + (o.sats ?? 0), 0);
    const sharing = outputs.filter((o) => o.sats === undefined).length;
    const shared = inputs.reduce((a, c) => a + c.sats, 0) - fee - fixed;
    const share = Math.floor(shared / sharing);
    if (share < SMALL_OUTPUT_SATS) throw new Error(`Not enough value for a ${rate} sat/vB transaction of ${vsize} vB`);
    let sharers = 0;
    const values = outputs.map((o) => o.sats ?? (++sharers === sharing ? shared - share * (sharing - 1) : share));
    const hex = draft(values);
    const tx = decodeTxHex(hex);
    const ancestorVsize = [...ancestors].reduce((a, i) => a + built[i]!.vsize, vsize);
    const entry: Built = { hex, txid: tx.txid, vsize, fee, rate, ancestors, ancestorVsize, descendants: 1, descendantVsize: vsize };
    const index = built.push(entry) - 1;
    for (const a of ancestors) {
      built[a]!.descendants++;
      built[a]!.descendantVsize += vsize;
    }
    values.forEach((sats, vout) => {
      const { witnessScript } = outputs[vout]!;
      if (witnessScript !== undefined && outputs[vout]!.sats === undefined && sats >= 20_000) open.push({ txid: tx.txid, vout, sats, witnessScript, from: index });
    });
    return entry;
  }

  /** Whether spending an output of `from` keeps every package within Core's limits for a child of `vsize`. */
  function canExtend(from: number, vsize: number): boolean {
    const parent = built[from]!;
    if (parent.ancestors.size + 2 > MAX_ANCESTORS || parent.ancestorVsize + vsize > MAX_PACKAGE_VSIZE) return false;
    for (const a of [from, ...parent.ancestors]) {
      if (built[a]!.descendants + 1 > MAX_ANCESTORS || built[a]!.descendantVsize + vsize > MAX_PACKAGE_VSIZE) return false;
    }
    return true;
  }

  function takeOpen(vsize: number): Coin | undefined {
    // Recent outputs first: chains grow where money just moved.
    for (let attempt = 0; attempt < 6 && open.length > 0; attempt++) {
      const at = Math.max(0, open.length - 1 - Math.floor(random() * Math.min(open.length, 60)));
      const coin = open[at]!;
      if (!canExtend(coin.from, vsize)) continue;
      open.splice(at, 1);
      return coin;
    }
    return undefined;
  }

  const kinds = [
    ...Array.from({ length: options.payments }, () => 'payment' as const),
    ...Array.from({ length: options.large }, () => 'large' as const),
    ...Array.from({ length: options.sigopHeavy }, () => 'sigopHeavy' as const),
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  for (const kind of kinds) {
    if (kind === 'large') {
      const small = 400 + Math.floor(random() * 1_600);
      // Often cheap, so that a child has a parent to pay for.
      const rate = random() < 0.4 ? 1 + Math.floor(random() * 1_000) / 1_000 : drawRate();
      add([largeCoins.pop()!], [anyone(), ...Array.from({ length: small }, () => ({ scriptPubKey: anyone().scriptPubKey, sats: SMALL_OUTPUT_SATS }))], rate, 0);
      continue;
    }
    if (kind === 'sigopHeavy') {
      const dense = { scriptPubKey: DENSE_SIGOPS_SCRIPT, sats: SMALL_OUTPUT_SATS };
      // Well paid, so that more of them compete for block 0 than its sigop limit admits.
      add([sigopCoins.pop()!], [anyone(), dense, dense], 25 + Math.floor(random() * 35_000) / 1_000, 2 * DENSE_SIGOP_COST);
      continue;
    }
    const inputs: Coin[] = [];
    const chained = random() < 0.5 ? takeOpen(300) : undefined;
    if (chained) inputs.push(chained);
    if (chained && random() < 0.15) {
      const second = takeOpen(300);
      // Two parents' ancestors together must still keep within the limits.
      const together = second ? ancestorsOf([chained, second]) : new Set<number>();
      const togetherVsize = [...together].reduce((a, i) => a + built[i]!.vsize, 300);
      if (second && together.size + 1 <= MAX_ANCESTORS && togetherVsize <= MAX_PACKAGE_VSIZE) inputs.push(second);
      else if (second) open.push(second);
    }
    if (inputs.length === 0) inputs.push(smallCoins.pop()!);
    // Child pays for parent: a cheap parent's child often pays a lot.
    const cheapParent = inputs.some((c) => c.from >= 0 && built[c.from]!.rate < 3);
    const rate = cheapParent && random() < 0.6 ? 20 + Math.floor(random() * 130) : drawRate();
    add(inputs, random() < 0.4 ? [anyone(), anyone()] : [anyone()], rate, 0);
  }
  const buildMs = performance.now() - started;

  // ---- sending, parents first
  const sendStarted = performance.now();
  for (let start = 0; start < built.length; start += SEND_BATCH) {
    const chunk = built.slice(start, start + SEND_BATCH);
    // maxfeerate 0: no fee-rate cap; maxburnamount 0.01 BTC: the sigop-dense outputs look like burns to this Knots.
    const replies = await node.rpc.batch<string>(chunk.map((t) => ({ method: 'sendrawtransaction', params: [t.hex, 0, 0.01] })));
    replies.forEach((reply, k) => {
      if (!reply.ok) throw new Error(`sendrawtransaction ${chunk[k]!.txid} (${chunk[k]!.vsize} vB): ${reply.error.message}`);
    });
  }
  for (let k = 0; k < options.prioritised; k++) {
    const target = pick(built);
    const delta = random() < 0.6 ? 5_000 + Math.floor(random() * 100_000) : -Math.floor(target.fee / 2);
    await node.rpc.call('prioritisetransaction', [target.txid, 0, delta]);
  }
  const sendMs = performance.now() - sendStarted;
  return { txids: built.map((t) => t.txid), vsize: built.reduce((a, t) => a + t.vsize, 0), buildMs, sendMs };
}

/**
 * One wallet transaction paying `amounts` (sats) to anyone-can-spend outputs, mined in
 * a block of its own at once; returns the coins.
 */
async function fund(node: TestNode, amounts: number[], anyone: () => { scriptPubKey: string; witnessScript: string }): Promise<Coin[]> {
  const fee = 1_000_000;
  const paid = amounts.reduce((a, v) => a + v, 0);
  const needed = paid + fee + 1_000_000;
  const inputs: Array<{ txid: string; vout: number }> = [];
  let total = 0;
  for (let attempt = 0; total < needed; attempt++) {
    if (attempt === 20) throw new Error(`The wallet holds ${total} sats in mature coins, ${needed} needed`);
    // Each block matures one more coinbase.
    if (attempt > 0) await node.rpc.call('generateblock', [await node.address('bech32'), []]);
    const unspent = await node.wallet.call<Array<{ txid: string; vout: number; amount: number; spendable: boolean }>>('listunspent', [1]);
    inputs.length = 0;
    total = 0;
    for (const coin of unspent.filter((u) => u.spendable).sort((a, b) => b.amount - a.amount)) {
      if (total >= needed) break;
      inputs.push({ txid: coin.txid, vout: coin.vout });
      total += btcToSats(coin.amount);
    }
  }
  const change = await node.wallet.call<{ scriptPubKey: string }>('getaddressinfo', [await node.address('bech32')]);
  const scripts = amounts.map(() => anyone());
  const outputs = [...amounts.map((value, i) => ({ value, scriptPubKey: scripts[i]!.scriptPubKey })), { value: total - paid - fee, scriptPubKey: change.scriptPubKey }];
  const unsigned = encodeTxHex({ version: 2, locktime: 0, inputs: inputs.map((c) => ({ ...c, scriptSig: '', sequence: RBF_SEQUENCE })), outputs });
  const signed = await node.wallet.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [unsigned]);
  if (!signed.complete) throw new Error('The wallet could not sign the funding transaction');
  await node.rpc.call('generateblock', [await node.address('bech32'), [signed.hex]]);
  const txid = decodeTxHex(signed.hex).txid;
  return amounts.map((sats, vout) => ({ txid, vout, sats, witnessScript: scripts[vout]!.witnessScript, from: -1 }));
}
