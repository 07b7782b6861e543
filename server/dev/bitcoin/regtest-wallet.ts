import { createHash } from 'node:crypto';
import { debuglog } from 'node:util';
import { btcToSats, satsToBtc } from '@slipstream/mempool-engine/bitcoin/amounts';
import { WALLET_NAME } from './node-launcher.ts';
import type { RpcClient } from '../../src/bitcoin/rpc-client.ts';
import { encodeTxHex } from '../../src/bitcoin/tx-codec.ts';
import { Semaphore } from '../../src/lib/semaphore.ts';

/**
 * A funded regtest wallet that builds signed, NOT broadcast transactions:
 * the test harness and `npm run demo:tx` both use it. Regtest only; it mines
 * blocks to mature and split coins.
 *
 * Guarantees:
 * - Every builder spends coins no other builder call has spent: `buildTx` and
 *   `buildOversize` take confirmed wallet coins and lock them persistently
 *   (`lockunspent false [...] true`), so neither a later builder nor the
 *   wallet's own coin selection picks them again.
 * - Fees are exact integers: `fee` = sum(inputs) - sum(outputs) in satoshis,
 *   and `fee` = feeAt(feeRate, vsize) = ceil(feeRate × vsize) of the signed
 *   transaction, computed in integers as the node does. (buildTx lets
 *   fundrawtransaction `fee_rate` choose coins and change, then re-settles the
 *   change on the signed size: the wallet's estimate is 1 vB high for taproot.)
 * - All builder transactions signal replaceability (BIP125, sequence 0xfffffffd).
 * - The harness never mines mempool transactions behind your back: coin
 *   splitting and coinbase maturing use `generateblock` with an explicit
 *   transaction list. Only `mine()` (generatetoaddress) takes the mempool.
 *
 * Knots policy to keep in mind (docs/architecture.md#the-real-bitcoin-node-in-dev-and-tests): OP_RETURN data is capped at 83
 * bytes and tapscript OP_IF envelopes are refused, even on regtest.
 */

export type AddressType = 'legacy' | 'bech32' | 'bech32m';

export interface BuiltTx {
  /** Signed raw transaction, not broadcast. */
  hex: string;
  txid: string;
  /** sum(inputs) - sum(outputs), integer satoshis. */
  fee: number;
  vsize: number;
  weight: number;
}

export interface BuildTxOptions {
  /** Fee rate in sat/vB, at most 3 decimals (the node's precision), e.g. 1.5. */
  feeRate: number;
  /** Payment outputs, each to a fresh wallet address of `addressType` (default 1). A change output is added too. */
  outputs?: number;
  /**
   * Type of the inputs spent, the payment outputs and the change (default
   * 'bech32'): 'legacy' gives a transaction without witness data, 'bech32' a
   * segwit v0 one, 'bech32m' a taproot key-path one.
   */
  addressType?: AddressType;
  /** Spend at least this many inputs (default 1). */
  inputs?: number;
  /** OP_RETURN payload, hex. Knots refuses more than 83 bytes of script (80 of data). */
  opReturn?: string;
}

export interface BuildChildOptions {
  /** The parent, signed and typically not broadcast. */
  parentHex: string;
  /** Defaults to the parent's txid computed from `parentHex`. */
  parentTxid?: string;
  /** Which parent output to spend; it must pay a `portal` wallet address (all builder outputs do). */
  vout: number;
  feeRate: number;
}

export interface BuildOversizeOptions {
  /** Fee rate in sat/vB (default 2). */
  feeRate?: number;
  /** Extra 1,000-sat P2WSH(OP_TRUE) outputs (default 3,600, about 620,000 weight units in all). */
  outputs?: number;
}

export interface BuildWithOutputsOptions {
  /** Outputs as they are (any script, any value, dust and OP_RETURN included); a change output to the wallet comes first. */
  outputs: Array<{ value: number; scriptPubKey: string }>;
  /** Fee rate in sat/vB; 0 for a transaction paying nothing (a parent its child pays for). */
  feeRate: number;
  /** Transaction version (default 2; 3 for TRUC, BIP 431). */
  version?: number;
}

export interface RegtestWallet {
  /** Client for the `portal` descriptor wallet. */
  wallet: RpcClient;
  /** Mines `n` blocks (default 1) to a wallet address, taking the mempool; returns the block hashes. */
  mine(n?: number): Promise<string[]>;
  /** A fresh wallet address (default 'bech32'). */
  address(type?: AddressType): Promise<string>;
  /**
   * Makes sure at least `count` confirmed, unlocked wallet coins of `type`
   * (default 'bech32') worth 0.01–1 BTC exist, splitting coinbase money into
   * 0.1–0.5 BTC outputs in one block if needed. Builders call this themselves;
   * call it up front to create many coins in one go.
   */
  ensureUtxos(count: number, type?: AddressType): Promise<void>;
  /** A signed, unbroadcast transaction spending fresh confirmed coins. */
  buildTx(options: BuildTxOptions): Promise<BuiltTx>;
  /** A signed transaction spending `parentHex`'s output `vout` (the node need not know the parent). */
  buildChild(options: BuildChildOptions): Promise<BuiltTx>;
  /** A valid signed transaction over the 400,000 weight-unit standard limit. */
  buildOversize(options?: BuildOversizeOptions): Promise<BuiltTx>;
  /**
   * Spends exactly the inputs of `originalHex` at `feeRate`, keeping its
   * outputs but taking the fee out of its largest one; inputs signal BIP125.
   * The node wants the new fee to exceed the old by its incremental relay fee
   * (getmempoolinfo: 0.1 sat/vB for this Knots) times the new vsize: pass a
   * rate high enough.
   */
  buildReplacement(originalHex: string, feeRate: number): Promise<BuiltTx>;
  /** A signed transaction spending one fresh confirmed coin to exactly `outputs` (and change at index 0). */
  buildWithOutputs(options: BuildWithOutputsOptions): Promise<BuiltTx>;
}

/** Pool coins: big enough for any builder, small enough not to be funding money. */
const POOL_MIN_SATS = 1_000_000;
const POOL_MAX_SATS = 100_000_000;
/** Value of each buildTx payment output. */
const PAYMENT_SATS = 20_000;
/** Outputs per split transaction, well inside the standard weight limit. */
const SPLIT_CHUNK = 1_000;
/** Covers the fee of a split transaction (1,000 outputs at 2 sat/vB is about 90,000 sats). */
const SPLIT_FEE_MARGIN_SATS = 400_000;
const RBF_SEQUENCE = 0xffff_fffd;
/** P2WSH of the script OP_TRUE (0x51): a standard output type no wallet watches. */
const OP_TRUE_P2WSH = `0020${createHash('sha256').update(Buffer.from([0x51])).digest('hex')}`;

const debug = debuglog('regtest');

/** `rpc` is the node-level client; the wallet is the launcher's `portal` wallet. */
export function createRegtestWallet(rpc: RpcClient): RegtestWallet {
  const node = { rpc };
  const wallet = node.rpc.wallet(WALLET_NAME);
  const serial = new Semaphore(1);
  /** Previous outputs we know about, by "txid:vout". */
  const prevouts = new Map<string, Prevout>();

  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    await serial.acquire();
    try {
      return await work();
    } finally {
      serial.release();
    }
  };

  const address = (type: AddressType = 'bech32') => wallet.call<string>('getnewaddress', ['', type]);

  async function scriptOf(addr: string): Promise<string> {
    return (await wallet.call<{ scriptPubKey: string }>('getaddressinfo', [addr])).scriptPubKey;
  }

  async function listCoins(): Promise<Coin[]> {
    const unspent = await wallet.call<UnspentEntry[]>('listunspent', [1]);
    return unspent
      .filter((u) => u.spendable && u.solvable)
      .map((u) => ({ txid: u.txid, vout: u.vout, sats: btcToSats(u.amount), scriptPubKey: u.scriptPubKey, type: typeOfDescriptor(u.desc) }));
  }

  /**
   * Coins above the pool range (coinbase money, big change) worth `neededSats`,
   * skipping `exclude`; mines empty blocks until enough coinbase money is mature.
   */
  async function fundingCoins(neededSats: number, exclude: Set<string>): Promise<Coin[]> {
    for (;;) {
      const funding = (await listCoins())
        .filter((c) => c.sats > POOL_MAX_SATS && !exclude.has(outpoint(c)))
        .sort((a, b) => b.sats - a.sats);
      const picked: Coin[] = [];
      let total = 0;
      for (const coin of funding) {
        if (total >= neededSats) break;
        picked.push(coin);
        total += coin.sats;
      }
      if (total >= neededSats) return picked;
      // Each block matures one more coinbase; regtest's subsidy halves every 150 blocks.
      const height = await node.rpc.call<number>('getblockcount');
      const subsidy = Math.floor(5_000_000_000 / 2 ** Math.floor((height + 1) / 150));
      if (subsidy < POOL_MAX_SATS) throw new Error(`Regtest subsidy at height ${height} is too small to fund more test coins`);
      const blocks = Math.min(200, Math.ceil((neededSats - total) / subsidy) + 1);
      const to = await address('bech32');
      throwFirstError(await node.rpc.batch(Array.from({ length: blocks }, () => ({ method: 'generateblock', params: [to, []] }))));
      debug(`matured ${blocks} more coinbase outputs`);
    }
  }

  async function ensureUtxosUnlocked(count: number, type: AddressType): Promise<void> {
    const have = (await listCoins()).filter((c) => c.type === type && c.sats >= POOL_MIN_SATS && c.sats <= POOL_MAX_SATS).length;
    const missing = count - have;
    if (missing <= 0) return;
    const amounts = Array.from({ length: missing }, (_, i) => 10_000_000 * (1 + (i % 5))); // 0.1–0.5 BTC
    const addresses = (await wallet.batch<string>(amounts.map(() => ({ method: 'getnewaddress', params: ['', type] })))).map(unwrap);
    const signed: string[] = [];
    const used = new Set<string>();
    for (let start = 0; start < missing; start += SPLIT_CHUNK) {
      const chunk = amounts.slice(start, start + SPLIT_CHUNK).map((sats, j) => ({ address: addresses[start + j]!, sats }));
      // Split transactions are confirmed together, so each needs coins of its own.
      const inputs = await fundingCoins(chunk.reduce((a, o) => a + o.sats, 0) + SPLIT_FEE_MARGIN_SATS, used);
      for (const coin of inputs) used.add(outpoint(coin));
      const raw = await wallet.call<string>('createrawtransaction', [
        inputs.map((c) => ({ txid: c.txid, vout: c.vout })),
        chunk.map((o) => ({ [o.address]: satsToBtc(o.sats) })),
      ]);
      const funded = await wallet.call<{ hex: string }>('fundrawtransaction', [raw, { add_inputs: false, fee_rate: 2, change_type: 'bech32' }]);
      signed.push(await signWithWallet(funded.hex, []));
    }
    await node.rpc.call('generateblock', [await address('bech32'), signed]);
    debug(`split coinbase money into ${missing} ${type} coins`);
  }

  /** Picks confirmed pool coins of `type`: at least `count` and `minSats` in all; locks them persistently. */
  async function takeCoins(type: AddressType, count: number, minSats: number): Promise<Coin[]> {
    for (let attempt = 0; ; attempt++) {
      const pool = (await listCoins())
        .filter((c) => c.type === type && c.sats >= POOL_MIN_SATS && c.sats <= POOL_MAX_SATS)
        .sort((a, b) => b.sats - a.sats);
      const picked: Coin[] = [];
      let total = 0;
      for (const coin of pool) {
        if (picked.length >= count && total >= minSats) break;
        picked.push(coin);
        total += coin.sats;
      }
      if (picked.length >= count && total >= minSats) {
        await wallet.call('lockunspent', [false, picked.map((c) => ({ txid: c.txid, vout: c.vout })), true]);
        for (const coin of picked) prevouts.set(outpoint(coin), { sats: coin.sats, scriptPubKey: coin.scriptPubKey });
        return picked;
      }
      if (attempt === 2) throw new Error(`Cannot gather ${count} ${type} coins worth ${minSats} sats`);
      const coinsForValue = Math.ceil(minSats / 10_000_000);
      await ensureUtxosUnlocked(pool.length + Math.max(25, count - picked.length, coinsForValue), type);
    }
  }

  async function prevout(txid: string, vout: number): Promise<Prevout> {
    const known = prevouts.get(`${txid}:${vout}`);
    if (known) return known;
    const tx = await node.rpc.call<{ vout: Array<{ value: number; scriptPubKey: { hex: string } }> }>('getrawtransaction', [txid, 1]);
    const out = tx.vout[vout];
    if (!out) throw new Error(`Transaction ${txid} has no output ${vout}`);
    const found = { sats: btcToSats(out.value), scriptPubKey: out.scriptPubKey.hex };
    prevouts.set(`${txid}:${vout}`, found);
    return found;
  }

  async function signWithWallet(hex: string, prevtxs: Array<{ txid: string; vout: number; scriptPubKey: string; amount: string }>): Promise<string> {
    const result = await wallet.call<{ hex: string; complete: boolean; errors?: Array<{ error: string }> }>('signrawtransactionwithwallet', [hex, prevtxs]);
    if (!result.complete) throw new Error(`Wallet could not sign: ${result.errors?.map((e) => e.error).join('; ') ?? 'incomplete'}`);
    return result.hex;
  }

  /**
   * The node's reading of a transaction. The harness measures with the node,
   * not with our own codec, so tests comparing the codec with the harness
   * compare it with the node.
   */
  async function decode(hex: string): Promise<NodeDecodedTx> {
    const tx = await node.rpc.call<RawDecodedTx>('decoderawtransaction', [hex]);
    return {
      txid: tx.txid,
      vsize: tx.vsize,
      weight: tx.weight,
      inputs: tx.vin.map((i) => ({ txid: i.txid, vout: i.vout })),
      outputs: tx.vout.map((o) => ({ value: btcToSats(o.value), scriptPubKey: o.scriptPubKey.hex })),
    };
  }

  async function describe(hex: string, inputSats: number): Promise<BuiltTx> {
    const tx = await decode(hex);
    const fee = inputSats - tx.outputs.reduce((a, o) => a + o.value, 0);
    return { hex, txid: tx.txid, fee, vsize: tx.vsize, weight: tx.weight };
  }

  /**
   * Signs inputs → outputs with output `adjust` absorbing whatever the fee
   * leaves, so that fee = ceil(feeRate × signed vsize). Signatures can differ
   * in length between attempts, hence the loop.
   */
  async function signAtFeeRate(
    inputs: Array<{ txid: string; vout: number; prevout: Prevout }>,
    outputs: Array<{ value: number; scriptPubKey: string }>,
    adjust: number,
    feeRate: number,
    firstGuess = 0,
    version = 2,
  ): Promise<BuiltTx> {
    const inputSats = inputs.reduce((a, i) => a + i.prevout.sats, 0);
    const otherSats = outputs.reduce((a, o, i) => (i === adjust ? a : a + o.value), 0);
    const prevtxs = inputs.map((i) => ({ txid: i.txid, vout: i.vout, scriptPubKey: i.prevout.scriptPubKey, amount: satsToBtc(i.prevout.sats) }));
    let fee = firstGuess;
    // ECDSA signatures are occasionally a byte short, and RFC 6979 makes them a
    // function of the transaction: fee A can sign 1 vB smaller, calling for fee
    // B, which signs at full size, calling for A again. On such a cycle the
    // locktime is changed instead (a past height, so still final): same size,
    // new signatures.
    let locktime = 0;
    const tried = new Set<string>();
    for (let attempt = 0; attempt < 40; attempt++) {
      const value = inputSats - otherSats - fee;
      if (value < 546) throw new Error(`Not enough value for a fee of ${fee} sats (adjusted output would be ${value} sats)`);
      if (tried.has(`${fee}/${locktime}`)) locktime++;
      tried.add(`${fee}/${locktime}`);
      const unsigned = encodeTxHex({
        version,
        locktime,
        inputs: inputs.map((i) => ({ txid: i.txid, vout: i.vout, scriptSig: '', sequence: RBF_SEQUENCE })),
        outputs: outputs.map((o, i) => (i === adjust ? { value, scriptPubKey: o.scriptPubKey } : o)),
      });
      const built = await describe(await signWithWallet(unsigned, prevtxs), inputSats);
      const needed = feeAt(feeRate, built.vsize);
      if (built.fee === needed) return built;
      fee = needed;
    }
    throw new Error(`Fee did not settle at ${feeRate} sat/vB`);
  }

  return {
    wallet,

    async mine(n = 1) {
      return wallet.call<string[]>('generatetoaddress', [n, await address('bech32')]);
    },

    address,

    ensureUtxos: (count, type = 'bech32') => exclusive(() => ensureUtxosUnlocked(count, type)),

    buildTx: (options) =>
      exclusive(async () => {
        const type = options.addressType ?? 'bech32';
        const outputCount = options.outputs ?? 1;
        const inputCount = options.inputs ?? 1;
        const roughVsize = 20 + inputCount * 150 + outputCount * 45;
        const coins = await takeCoins(type, inputCount, outputCount * PAYMENT_SATS + Math.ceil(options.feeRate * roughVsize) + 100_000);
        const addresses = (await wallet.batch<string>(Array.from({ length: outputCount }, () => ({ method: 'getnewaddress', params: ['', type] })))).map(unwrap);
        const outputs: Array<Record<string, string>> = addresses.map((addr) => ({ [addr]: satsToBtc(PAYMENT_SATS) }));
        if (options.opReturn !== undefined) outputs.push({ data: options.opReturn });
        const raw = await wallet.call<string>('createrawtransaction', [coins.map((c) => ({ txid: c.txid, vout: c.vout })), outputs, 0, true]);
        const funded = await wallet.call<{ hex: string; fee: number; changepos: number }>('fundrawtransaction', [
          raw,
          { add_inputs: false, fee_rate: feeRateText(options.feeRate), change_type: type, replaceable: true },
        ]);
        if (funded.changepos < 0) return describe(await signWithWallet(funded.hex, []), coins.reduce((a, c) => a + c.sats, 0));
        // The wallet's fee is for its size estimate, which can exceed the signed
        // size (by 1 vB for taproot); settle the change on the real size instead.
        return signAtFeeRate(
          coins.map((c) => ({ txid: c.txid, vout: c.vout, prevout: { sats: c.sats, scriptPubKey: c.scriptPubKey } })),
          (await decode(funded.hex)).outputs,
          funded.changepos,
          options.feeRate,
          btcToSats(funded.fee),
        );
      }),

    buildChild: (options) =>
      exclusive(async () => {
        const parent = await decode(options.parentHex);
        const txid = options.parentTxid ?? parent.txid;
        if (txid !== parent.txid) throw new Error(`parentTxid ${txid} is not the txid of parentHex (${parent.txid})`);
        const spent = parent.outputs[options.vout];
        if (!spent) throw new Error(`Parent ${txid} has no output ${options.vout}`);
        const prev = { sats: spent.value, scriptPubKey: spent.scriptPubKey };
        prevouts.set(`${txid}:${options.vout}`, prev);
        const change = await scriptOf(await address(typeOfScript(spent.scriptPubKey)));
        return signAtFeeRate([{ txid, vout: options.vout, prevout: prev }], [{ value: 0, scriptPubKey: change }], 0, options.feeRate);
      }),

    buildOversize: (options = {}) =>
      exclusive(async () => {
        const feeRate = options.feeRate ?? 2;
        const extra = options.outputs ?? 3_600;
        const extraSats = extra * 1_000;
        const roughVsize = 200 + extra * 31;
        const coins = await takeCoins('bech32', 1, extraSats + Math.ceil(feeRate * roughVsize) + 100_000);
        // One script for all the small outputs: createrawtransaction refuses
        // duplicate addresses, hence assembling the transaction ourselves. It
        // pays P2WSH(OP_TRUE), not the wallet: a wallet watching thousands of
        // its own new outputs makes the node's sendrawtransaction take seconds.
        const payTo = OP_TRUE_P2WSH;
        const change = await scriptOf(await address('bech32'));
        const outputs = [{ value: 0, scriptPubKey: change }, ...Array.from({ length: extra }, () => ({ value: 1_000, scriptPubKey: payTo }))];
        return signAtFeeRate(
          coins.map((c) => ({ txid: c.txid, vout: c.vout, prevout: { sats: c.sats, scriptPubKey: c.scriptPubKey } })),
          outputs,
          0,
          feeRate,
        );
      }),

    buildReplacement: (originalHex, feeRate) =>
      exclusive(async () => {
        const original = await decode(originalHex);
        const inputs = [];
        for (const input of original.inputs) inputs.push({ txid: input.txid, vout: input.vout, prevout: await prevout(input.txid, input.vout) });
        const outputs = original.outputs.map((o) => ({ value: o.value, scriptPubKey: o.scriptPubKey }));
        let largest = -1;
        outputs.forEach((o, i) => {
          if (!o.scriptPubKey.startsWith('6a') && (largest < 0 || o.value > outputs[largest]!.value)) largest = i;
        });
        if (largest < 0) throw new Error('The original has no output to take the higher fee from');
        return signAtFeeRate(inputs, outputs, largest, feeRate);
      }),

    buildWithOutputs: (options) =>
      exclusive(async () => {
        const paid = options.outputs.reduce((a, o) => a + o.value, 0);
        const roughVsize = 200 + options.outputs.reduce((a, o) => a + 9 + o.scriptPubKey.length / 2, 0);
        const [coin] = await takeCoins('bech32', 1, paid + Math.ceil(options.feeRate * roughVsize) + 100_000);
        const change = await scriptOf(await address('bech32'));
        const inputs = [{ txid: coin!.txid, vout: coin!.vout, prevout: { sats: coin!.sats, scriptPubKey: coin!.scriptPubKey } }];
        return signAtFeeRate(inputs, [{ value: 0, scriptPubKey: change }, ...options.outputs], 0, options.feeRate, 0, options.version ?? 2);
      }),
  };
}

interface NodeDecodedTx {
  txid: string;
  vsize: number;
  weight: number;
  inputs: Array<{ txid: string; vout: number }>;
  outputs: Array<{ value: number; scriptPubKey: string }>;
}

interface RawDecodedTx {
  txid: string;
  vsize: number;
  weight: number;
  vin: Array<{ txid: string; vout: number }>;
  vout: Array<{ value: number; scriptPubKey: { hex: string } }>;
}

interface Prevout {
  sats: number;
  scriptPubKey: string;
}

interface Coin extends Prevout {
  txid: string;
  vout: number;
  type: AddressType | 'other';
}

interface UnspentEntry {
  txid: string;
  vout: number;
  amount: number;
  scriptPubKey: string;
  desc: string;
  spendable: boolean;
  solvable: boolean;
}

/**
 * The fee the node charges for `vsize` at `feeRate` sat/vB: Core's CFeeRate
 * keeps sat/kvB as an integer and rounds the fee up (policy/feerate.cpp), so
 * this is ceil(rate_sat_per_kvB × vsize / 1000) in integers; a float
 * Math.ceil(1.1 × 100) would say 111 instead of 110.
 */
export function feeAt(feeRate: number, vsize: number): number {
  const perKvB = satPerKvB(feeRate);
  return Math.floor((perKvB * vsize + 999) / 1000);
}

function satPerKvB(feeRate: number): number {
  const perKvB = Math.round(feeRate * 1000);
  if (!Number.isFinite(feeRate) || feeRate < 0 || Math.abs(perKvB - feeRate * 1000) > 1e-6) {
    throw new RangeError(`feeRate must be a non-negative sat/vB amount with at most 3 decimals, got ${feeRate}`);
  }
  return perKvB;
}

/** fee_rate for fundrawtransaction as an exact decimal string (floats like 4.499999999 are refused). */
function feeRateText(feeRate: number): string {
  return (satPerKvB(feeRate) / 1000).toFixed(3);
}

const outpoint = (c: { txid: string; vout: number }) => `${c.txid}:${c.vout}`;

function typeOfDescriptor(desc: string): AddressType | 'other' {
  if (desc.startsWith('pkh(')) return 'legacy';
  if (desc.startsWith('wpkh(')) return 'bech32';
  if (desc.startsWith('tr(')) return 'bech32m';
  return 'other';
}

function typeOfScript(scriptPubKey: string): AddressType {
  if (/^76a914[0-9a-f]{40}88ac$/.test(scriptPubKey)) return 'legacy';
  if (/^5120[0-9a-f]{64}$/.test(scriptPubKey)) return 'bech32m';
  return 'bech32';
}

function unwrap<T>(item: { ok: true; result: T } | { ok: false; error: Error }): T {
  if (!item.ok) throw item.error;
  return item.result;
}

function throwFirstError(items: Array<{ ok: true; result: unknown } | { ok: false; error: Error }>): void {
  for (const item of items) unwrap(item);
}
