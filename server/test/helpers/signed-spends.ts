import { btcToSats, satsToBtc } from '@slipstream/mempool-engine/bitcoin/amounts';
import type { SpentOutput } from '../../src/bitcoin/sighash.ts';
import type { TestNode } from './regtest.ts';
import { decodeTxHex } from '../../src/bitcoin/tx-codec.ts';

/**
 * Transactions the regtest node's wallet signs, of each input type the
 * portal's signature check reads (P2PKH, P2WPKH, P2SH-wrapped P2WPKH,
 * taproot key path), with a locktime of the caller's choosing: a future one
 * makes the node refuse them as "non-final" before it looks at any script.
 * The spent outputs come back too, as the node reports them.
 */

export type WalletInputType = 'legacy' | 'bech32' | 'p2sh-segwit' | 'bech32m';

export interface WalletCoin {
  txid: string;
  vout: number;
  sats: number;
  scriptPubKey: string;
  type: WalletInputType;
}

export interface SignedSpend {
  hex: string;
  txid: string;
  locktime: number;
  coins: WalletCoin[];
  spent: SpentOutput[];
  /** The same transaction before the wallet signed it. */
  unsignedHex: string;
}

const SEQUENCE_LOCKTIME_ENABLED = 0xffff_fffe;

/** Confirmed wallet coins, one per entry of `types` (0.01 BTC each), made in one funding transaction and one block. */
export async function fundCoins(node: TestNode, types: readonly WalletInputType[]): Promise<WalletCoin[]> {
  const addresses = await Promise.all(types.map((type) => node.wallet.call<string>('getnewaddress', ['', type])));
  const raw = await node.wallet.call<string>('createrawtransaction', [[], addresses.map((address) => ({ [address]: 0.01 }))]);
  const funded = await node.wallet.call<{ hex: string }>('fundrawtransaction', [raw, { fee_rate: 2, change_type: 'bech32' }]);
  const signed = await node.wallet.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [funded.hex]);
  if (!signed.complete) throw new Error('The wallet could not sign the funding transaction');
  const txid = await node.rpc.call<string>('sendrawtransaction', [signed.hex]);
  await node.mine();
  const decoded = await node.rpc.call<{ vout: Array<{ n: number; value: number; scriptPubKey: { hex: string; address?: string } }> }>('decoderawtransaction', [signed.hex]);
  return types.map((type, i) => {
    const out = decoded.vout.find((o) => o.scriptPubKey.address === addresses[i])!;
    return { txid, vout: out.n, sats: btcToSats(out.value), scriptPubKey: out.scriptPubKey.hex, type };
  });
}

/**
 * Spends `coins` to `outputs` fresh wallet addresses (default 1), paying `feeSats`, with
 * `locktime` (a block height) and every input's sequence enabling it;
 * signed by the wallet with `sighashType` (default: the wallet's own).
 */
export async function signedSpend(node: TestNode, coins: readonly WalletCoin[], options: { locktime: number; feeSats?: number; sighashType?: string; outputs?: number }): Promise<SignedSpend> {
  const count = options.outputs ?? 1;
  const to = await Promise.all(Array.from({ length: count }, () => node.wallet.call<string>('getnewaddress', ['', 'bech32'])));
  const total = coins.reduce((sum, c) => sum + c.sats, 0);
  const each = Math.floor((total - (options.feeSats ?? 20_000)) / count);
  const unsignedHex = await node.wallet.call<string>('createrawtransaction', [
    coins.map((c) => ({ txid: c.txid, vout: c.vout, sequence: SEQUENCE_LOCKTIME_ENABLED })),
    to.map((address) => ({ [address]: satsToBtc(each) })),
    options.locktime,
  ]);
  const params: unknown[] = [unsignedHex, []];
  if (options.sighashType) params.push(options.sighashType);
  const signed = await node.wallet.call<{ hex: string; complete: boolean; errors?: Array<{ error: string }> }>('signrawtransactionwithwallet', params);
  if (!signed.complete) throw new Error(`The wallet could not sign: ${signed.errors?.map((e) => e.error).join('; ')}`);
  const { txid } = await node.rpc.call<{ txid: string }>('decoderawtransaction', [signed.hex]);
  return { hex: signed.hex, txid, locktime: options.locktime, coins: [...coins], spent: coins.map((c) => ({ value: c.sats, script: c.scriptPubKey })), unsignedHex };
}

/**
 * A child of `parentHex`'s output `vout` with one P2WPKH output, paying
 * exactly `fee` sats, signed by the wallet (it holds the parent's keys; the
 * node need not know the parent). A `locktime` ahead of the tip makes it
 * valid but not yet final.
 */
export async function walletChild(node: TestNode, parentHex: string, vout: number, fee: number, locktime = 0): Promise<{ hex: string; txid: string; vsize: number; weight: number }> {
  const parent = decodeTxHex(parentHex);
  const spent = parent.outputs[vout]!;
  const raw = await node.rpc.call<string>('createrawtransaction', [[{ txid: parent.txid, vout, sequence: 0xffff_fffd }], [{ [await node.address('bech32')]: satsToBtc(spent.value - fee) }], locktime]);
  const signed = await node.wallet.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [raw, [{ txid: parent.txid, vout, scriptPubKey: spent.scriptPubKey, amount: satsToBtc(spent.value) }]]);
  if (!signed.complete) throw new Error('The wallet could not sign the child');
  const decoded = decodeTxHex(signed.hex);
  return { hex: signed.hex, txid: decoded.txid, vsize: decoded.vsize, weight: decoded.weight };
}

/**
 * A child of `parentHex`'s output 0, signed by the wallet, but locked until
 * `lockedFor` blocks past the tip: valid, and refused by the node as
 * non-final (after it took the parent, in a package).
 */
export async function lockedChildOf(node: TestNode, parentHex: string, lockedFor = 100): Promise<{ hex: string; txid: string }> {
  const height = await node.rpc.call<number>('getblockcount');
  return walletChild(node, parentHex, 0, 20_000, height + lockedFor);
}
