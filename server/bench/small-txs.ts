import { btcToSats, satsToBtc } from '@slipstream/mempool-engine/bitcoin/amounts';
import type { RpcBatchItem, RpcCall, RpcClient } from '../src/bitcoin/rpc-client.ts';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import type { TestNode } from '../test/helpers/regtest.ts';

/**
 * Many small signed, unbroadcast transactions at once. The harness's
 * buildTx costs ~100 ms each (a dozen wallet calls, serialised); the
 * benchmark needs over a thousand, so it batches the same wallet calls:
 * one P2WPKH coin in, a 20,000-sat payment and change out, ~141 vB.
 * Coins are locked persistently like the harness does, so no later
 * builder spends them again.
 */

export interface SmallTx {
  hex: string;
  txid: string;
  vsize: number;
  fee: number;
}

interface UnspentEntry {
  txid: string;
  vout: number;
  amount: number;
  desc: string;
  spendable: boolean;
  solvable: boolean;
}

const PAYMENT_SATS = 20_000;
/** 1-in 2-out P2WPKH is 140 or 141 vB depending on the signature's length. */
const ASSUMED_VSIZE = 141;
const CHUNK = 200;

function unwrap<T>(items: RpcBatchItem<T>[]): T[] {
  return items.map((item) => {
    if (!item.ok) throw item.error;
    return item.result;
  });
}

async function batched<T>(rpc: RpcClient, calls: RpcCall[]): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < calls.length; i += CHUNK) out.push(...unwrap(await rpc.batch<T>(calls.slice(i, i + CHUNK))));
  return out;
}

export async function buildSmallTxs(node: TestNode, count: number, feeRate: number): Promise<SmallTx[]> {
  await node.ensureUtxos(count, 'bech32');
  const wallet = node.wallet;
  const unspent = await wallet.call<UnspentEntry[]>('listunspent', [1]);
  const coins = unspent
    .filter((u) => u.spendable && u.solvable && u.desc.startsWith('wpkh('))
    .map((u) => ({ txid: u.txid, vout: u.vout, sats: btcToSats(u.amount) }))
    .filter((c) => c.sats >= 1_000_000 && c.sats <= 100_000_000)
    .slice(0, count);
  if (coins.length < count) throw new Error(`Only ${coins.length} of ${count} coins available`);
  await wallet.call('lockunspent', [false, coins.map((c) => ({ txid: c.txid, vout: c.vout })), true]);

  const fee = Math.ceil(feeRate * ASSUMED_VSIZE);
  const addresses = await batched<string>(wallet, Array.from({ length: 2 * count }, () => ({ method: 'getnewaddress', params: ['', 'bech32'] })));
  const unsigned = await batched<string>(
    wallet,
    coins.map((c, i) => ({
      method: 'createrawtransaction',
      params: [
        [{ txid: c.txid, vout: c.vout, sequence: 0xffff_fffd }],
        [{ [addresses[2 * i]!]: satsToBtc(PAYMENT_SATS) }, { [addresses[2 * i + 1]!]: satsToBtc(c.sats - PAYMENT_SATS - fee) }],
      ],
    })),
  );
  const signed = await batched<{ hex: string; complete: boolean }>(
    wallet,
    unsigned.map((hex) => ({ method: 'signrawtransactionwithwallet', params: [hex] })),
  );
  return signed.map((s) => {
    if (!s.complete) throw new Error('The wallet could not sign a benchmark transaction');
    const tx = decodeTxHex(s.hex);
    if (tx.vsize > ASSUMED_VSIZE) throw new Error(`Benchmark transaction is ${tx.vsize} vB, more than the ${ASSUMED_VSIZE} vB its fee assumes`);
    return { hex: s.hex, txid: tx.txid, vsize: tx.vsize, fee };
  });
}
