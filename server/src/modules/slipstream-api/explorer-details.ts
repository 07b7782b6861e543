import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { RpcError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';

/**
 * What an explorer (Esplora) says of a transaction's outputs and of the
 * outputs its inputs spend, from the pool's node: each output's type and
 * address (decoderawtransaction: a function of the hex alone), and each
 * input's prevout from the chain only. A mined transaction's prevouts come
 * from its block's undo data; an unconfirmed one's from the chainstate
 * (gettxout without the mempool, which still holds an output the mempool
 * spends). An output of an unconfirmed parent stays null: the pool's
 * mempool is private until mined.
 */

/** Bitcoin Core's scriptPubKey types, in Esplora's names; any other is "unknown". */
const ESPLORA_TYPES: Record<string, string> = {
  pubkey: 'p2pk',
  pubkeyhash: 'p2pkh',
  scripthash: 'p2sh',
  witness_v0_keyhash: 'v0_p2wpkh',
  witness_v0_scripthash: 'v0_p2wsh',
  witness_v1_taproot: 'v1_p2tr',
  nulldata: 'op_return',
  anchor: 'anchor',
};

interface CoreScript {
  hex: string;
  type: string;
  address?: string;
}

export interface ExplorerOutput {
  scriptpubkey: string;
  scriptpubkey_type: string;
  scriptpubkey_address?: string;
  value: number;
}

export interface ExplorerDetails {
  outputs: ExplorerOutput[];
  /** By input; null for a coinbase input or an output the chain does not show. */
  prevouts: Array<ExplorerOutput | null>;
}

export function explorerOutput(script: CoreScript, valueSats: number): ExplorerOutput {
  // Esplora (electrs) calls any script starting with OP_RETURN (0x6a) op_return, even one Core calls
  // nonstandard (pushes that are not minimal or not push-only after it): a provably unspendable output either way.
  const type = script.hex === '' ? 'empty' : script.hex.startsWith('6a') ? 'op_return' : (ESPLORA_TYPES[script.type] ?? 'unknown');
  return { scriptpubkey: script.hex, scriptpubkey_type: type, ...(script.address ? { scriptpubkey_address: script.address } : {}), value: valueSats };
}

const COINBASE = /^0{64}$/;

export async function explorerDetails(rpc: RpcClient, tx: DecodedTx, hex: string, blockHash: string | null): Promise<ExplorerDetails> {
  const [decoded, prevouts] = await Promise.all([
    rpc.call<{ vout: Array<{ scriptPubKey: CoreScript }> }>('decoderawtransaction', [hex]),
    blockHash ? minedPrevouts(rpc, tx, blockHash) : chainPrevouts(rpc, tx),
  ]);
  return { outputs: tx.outputs.map((o, i) => explorerOutput(decoded.vout[i]!.scriptPubKey, o.value)), prevouts };
}

/** From the block's undo data (getrawtransaction verbosity 2); nulls when the node has none (pruned). */
async function minedPrevouts(rpc: RpcClient, tx: DecodedTx, blockHash: string): Promise<Array<ExplorerOutput | null>> {
  let verbose: { vin: Array<{ prevout?: { value: number; scriptPubKey: CoreScript } }> };
  try {
    verbose = await rpc.call('getrawtransaction', [tx.txid, 2, blockHash]);
  } catch (error) {
    if (error instanceof RpcError) return tx.inputs.map(() => null);
    throw error;
  }
  return tx.inputs.map((input, i) => {
    const prevout = verbose.vin[i]?.prevout;
    return prevout && !COINBASE.test(input.txid) ? explorerOutput(prevout.scriptPubKey, btcToSats(prevout.value)) : null;
  });
}

/** Confirmed outputs it spends, from the chainstate: gettxout with include_mempool false ignores the mempool's spends. */
async function chainPrevouts(rpc: RpcClient, tx: DecodedTx): Promise<Array<ExplorerOutput | null>> {
  const spent = tx.inputs.filter((i) => !COINBASE.test(i.txid));
  if (spent.length === 0) return tx.inputs.map(() => null);
  const replies = await rpc.batch<{ value: number; scriptPubKey: CoreScript } | null>(spent.map((i) => ({ method: 'gettxout', params: [i.txid, i.vout, false] })));
  const byInput = new Map(spent.map((input, k) => [input, replies[k]]));
  return tx.inputs.map((input) => {
    const reply = byInput.get(input);
    if (!reply?.ok || reply.result === null) return null;
    return explorerOutput(reply.result.scriptPubKey, btcToSats(reply.result.value));
  });
}
