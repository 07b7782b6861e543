import { createHash } from 'node:crypto';
import type { RpcBatchItem, RpcClient } from '../../src/bitcoin/rpc-client.ts';
import { decodeTxHex, encodeTxHex, type EncodableTx } from '../../src/bitcoin/tx-codec.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';

/**
 * Fills a regtest node's mempool with transactions in the shapes of a
 * congested mainnet mempool, fast and without a wallet: every output pays
 * P2WSH of OP_TRUE, spent by its witness script alone, so the transactions
 * are built here (tx-codec.ts) with no signature and sent in JSON-RPC
 * batches. The wallet only funds a few large keyless coins at the start.
 *
 * Shapes (fixed by `seed`):
 * - fee rates spread as a fee spike spreads them: most near the bottom, a
 *   long tail up to 500 sat/vB (log-normal, median 8 sat/vB);
 * - chains: a transaction may spend its parent's first output while it is
 *   unconfirmed, up to `maxChain` deep (below the node's 25-ancestor limit);
 *   only the first output is ever spent unconfirmed, so a family is a line
 *   and no ancestor gathers more than `maxChain` descendants;
 * - child pays for parent: a parent at 1-2 sat/vB whose child pays 40-200;
 * - a few large transactions (100,000-400,000 weight units, many outputs).
 *
 * The node needs `-checkmempool=0` (regtest checks the whole mempool after
 * every acceptance otherwise) and a `-maxmempool` large enough for `txs`
 * (about 1 MB of memory per 1,000 of these transactions).
 */

export interface MainnetMempoolOptions {
  txs: number;
  seed: number;
  /** Deepest unconfirmed chain (default 12). */
  maxChain?: number;
  /** Share of transactions that are large (default 0.0005: 150 in 300,000). */
  largeShare?: number;
  /** Share of transactions that start a child-pays-for-parent pair (default 0.03). */
  cpfpShare?: number;
  /** Built like the rest but not sent: the last this many, for a caller to send later (an incremental update). */
  holdBack?: number;
  /** Independent 1-in 2-out transactions on confirmed coins at `feeRate`, not sent (e.g. submissions that clear any minimum). */
  spare?: { count: number; feeRate: number };
  log?: (message: string) => void;
}

export interface MainnetMempool {
  sent: number;
  large: number;
  cpfp: number;
  /** Transactions that spend an unconfirmed parent. */
  chained: number;
  /** Held back (options.holdBack), in order: parents before children. */
  held: string[];
  /** The spare transactions (options.spare). */
  spare: string[];
  buildSeconds: number;
  sendSeconds: number;
}

/** P2WSH of OP_TRUE (0x51): spent with the script alone as its witness. */
export const OP_TRUE_SCRIPT = '51';
export const OP_TRUE_P2WSH = `0020${createHash('sha256').update(Buffer.from(OP_TRUE_SCRIPT, 'hex')).digest('hex')}`;

interface Coin {
  txid: string;
  vout: number;
  sats: number;
  /** Unconfirmed ancestors including the transaction that made it (0 for a confirmed coin). */
  depth: number;
}

const SEND_BATCH = 500;
/** Outputs per keyless split transaction (about 86 kB: standard). */
const SPLIT_OUTPUTS = 2_000;
const FUNDING_BTC = 40;
/** A coin for one large transaction: up to 2,280 outputs of 1,000 sats and 100 kvB at 30 sat/vB. */
const LARGE_BTC = 0.1;

export async function fillMainnetMempool(rpc: RpcClient, wallet: RpcClient, options: MainnetMempoolOptions): Promise<MainnetMempool> {
  const log = options.log ?? (() => {});
  const random = seededRandom(options.seed);
  const maxChain = options.maxChain ?? 12;
  const largeShare = options.largeShare ?? 0.0005;
  const cpfpShare = options.cpfpShare ?? 0.03;

  // A confirmed coin for at most 55% of them (the rest spend unconfirmed parents), with a margin.
  const coinsNeeded = Math.ceil((options.txs + (options.holdBack ?? 0)) * 0.6) + 100 + (options.spare?.count ?? 0);
  const largeWanted = Math.ceil(options.txs * largeShare);
  const { coins, large: largeCoins } = await fundKeylessCoins(rpc, wallet, coinsNeeded, largeWanted, log);

  const built = Date.now();
  const txs: string[] = [];
  const open: Coin[] = []; // unconfirmed first outputs that may be spent further
  const result: MainnetMempool = { sent: 0, large: 0, cpfp: 0, chained: 0, held: [], spare: [], buildSeconds: 0, sendSeconds: 0 };
  const total = options.txs + (options.holdBack ?? 0);
  const rate = () => Math.min(500, Math.max(1, Math.exp(Math.log(8) + 1.1 * gaussian(random))));
  const pickInput = (): Coin => {
    if (open.length > 0 && random() < 0.45) {
      // An unconfirmed parent's first output: a chain (45% of the time, when one is open).
      const i = Math.floor(random() * open.length);
      const coin = open[i]!;
      open[i] = open[open.length - 1]!;
      open.pop();
      return coin;
    }
    const coin = coins.pop();
    if (!coin) throw new Error('Out of keyless coins');
    return coin;
  };
  const add = (input: Coin, outputs: number, feeRate: number): Coin => {
    const { hex, txid, fee } = keylessTx(input, outputs, feeRate);
    txs.push(hex);
    if (input.depth > 0) result.chained++;
    return { txid, vout: 0, sats: input.sats - fee - (outputs - 1) * PAYMENT_SATS, depth: input.depth + 1 };
  };

  for (let i = 0; i < (options.spare?.count ?? 0); i++) result.spare.push(keylessTx(coins.pop()!, 2, options.spare!.feeRate).hex);
  while (txs.length < total) {
    const input = pickInput();
    const roll = random();
    if (roll < largeShare && largeCoins.length > 0) {
      // 100,000 to 400,000 weight units (about 172 WU an output), on a coin of their own, at a moderate rate.
      open.push(input);
      add(largeCoins.pop()!, 580 + Math.floor(random() * 1_700), Math.min(30, rate()));
      result.large++;
      continue;
    }
    if (roll < largeShare + cpfpShare && input.depth + 2 <= maxChain && txs.length + 2 <= total) {
      const parent = add(input, 2, 1 + random());
      const child = add(parent, 2, 40 + random() * 160);
      result.cpfp++;
      if (child.depth < maxChain) open.push(child);
      continue;
    }
    const out = add(input, 2, rate());
    if (out.depth < maxChain && out.sats > 100_000) open.push(out);
  }
  result.buildSeconds = (Date.now() - built) / 1000;
  result.held = txs.splice(options.txs);

  const sending = Date.now();
  for (let i = 0; i < txs.length; i += SEND_BATCH) {
    const answers: RpcBatchItem<string>[] = await rpc.batch<string>(txs.slice(i, i + SEND_BATCH).map((hex) => ({ method: 'sendrawtransaction', params: [hex, 0] })));
    const refused = answers.find((a) => !a.ok);
    if (refused && !refused.ok) throw new Error(`The node refused a generated transaction (${i}+): ${refused.error.message}`);
    result.sent += answers.length;
    if ((i / SEND_BATCH) % 40 === 0) log(`sent ${result.sent} of ${txs.length}`);
  }
  result.sendSeconds = (Date.now() - sending) / 1000;
  return result;
}

/** Each payment output's value; the first output carries the rest (less the fee) along the chain. */
const PAYMENT_SATS = 1_000;

/** One input (a keyless coin) to `outputs` keyless outputs at `feeRate`. */
function keylessTx(input: Coin, outputs: number, feeRate: number): { hex: string; txid: string; fee: number } {
  const shape = (fee: number): EncodableTx => ({
    version: 2,
    locktime: 0,
    inputs: [{ txid: input.txid, vout: input.vout, scriptSig: '', sequence: 0xffff_fffd, witness: [OP_TRUE_SCRIPT] }],
    outputs: [
      { value: input.sats - fee - (outputs - 1) * PAYMENT_SATS, scriptPubKey: OP_TRUE_P2WSH },
      ...Array.from({ length: outputs - 1 }, () => ({ value: PAYMENT_SATS, scriptPubKey: OP_TRUE_P2WSH })),
    ],
  });
  // The fee does not change the size (values are 8 bytes whatever they hold): size once, then set it.
  const { vsize } = decodeTxHex(encodeTxHex(shape(0)));
  const fee = Math.ceil(feeRate * vsize);
  if (input.sats - fee - (outputs - 1) * PAYMENT_SATS < 1_000) throw new Error(`A keyless coin of ${input.sats} sats cannot pay for ${outputs} outputs at ${feeRate} sat/vB`);
  const hex = encodeTxHex(shape(fee));
  return { hex, txid: decodeTxHex(hex).txid, fee };
}

/**
 * `count` confirmed keyless coins: the wallet sends a few 40 BTC outputs to
 * P2WSH(OP_TRUE), keyless transactions split those into 2,000 outputs each,
 * and blocks confirm them (mining more first if the wallet is short).
 */
async function fundKeylessCoins(rpc: RpcClient, wallet: RpcClient, count: number, largeCount: number, log: (message: string) => void): Promise<{ coins: Coin[]; large: Coin[] }> {
  const splits = Math.ceil(count / SPLIT_OUTPUTS);
  const address = (await rpc.call<{ segwit: { address: string } }>('decodescript', [OP_TRUE_SCRIPT])).segwit.address;
  const mineTo = await wallet.call<string>('getnewaddress', ['', 'bech32']);
  while ((await wallet.call<number>('getbalance')) < splits * FUNDING_BTC + largeCount * LARGE_BTC + 10) await rpc.call('generatetoaddress', [100, mineTo]);
  const keyless = async (btc: number): Promise<Coin> => {
    const txid = await wallet.call<string>('sendtoaddress', [address, btc]);
    const tx = await rpc.call<{ vout: Array<{ n: number; value: number; scriptPubKey: { hex: string } }> }>('getrawtransaction', [txid, true]);
    const out = tx.vout.find((o) => o.scriptPubKey.hex === OP_TRUE_P2WSH)!;
    return { txid, vout: out.n, sats: Math.round(out.value * 1e8), depth: 0 };
  };
  const funding: Coin[] = [];
  for (let i = 0; i < splits; i++) funding.push(await keyless(FUNDING_BTC));
  const large: Coin[] = [];
  for (let i = 0; i < largeCount; i++) large.push(await keyless(LARGE_BTC));
  await rpc.call('generatetoaddress', [1, mineTo]);
  const coins: Coin[] = [];
  const splitTxs: string[] = [];
  for (const source of funding) {
    const value = Math.floor((source.sats - 2_000_000) / SPLIT_OUTPUTS);
    const shape: EncodableTx = {
      version: 2,
      locktime: 0,
      inputs: [{ txid: source.txid, vout: source.vout, scriptSig: '', sequence: 0xffff_fffd, witness: [OP_TRUE_SCRIPT] }],
      outputs: Array.from({ length: SPLIT_OUTPUTS }, () => ({ value, scriptPubKey: OP_TRUE_P2WSH })),
    };
    const hex = encodeTxHex(shape);
    const txid = decodeTxHex(hex).txid;
    splitTxs.push(hex);
    for (let vout = 0; vout < SPLIT_OUTPUTS; vout++) coins.push({ txid, vout, sats: value, depth: 0 });
  }
  // Nine splits (about 344,000 WU each) to a block.
  for (let i = 0; i < splitTxs.length; i += 9) {
    for (const hex of splitTxs.slice(i, i + 9)) await rpc.call('sendrawtransaction', [hex, 0]);
    await rpc.call('generatetoaddress', [1, mineTo]);
  }
  log(`${coins.length} keyless coins confirmed in ${splits} splits, and ${large.length} for large transactions`);
  return { coins: coins.slice(0, count), large };
}

/** A standard normal draw (Box-Muller). */
function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
