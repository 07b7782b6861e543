import { btcPerKvbToSatPerVb, btcToSats } from '../bitcoin/amounts.ts';
import { RPC_METHOD_NOT_FOUND, type RpcCall, type RpcCaller, type RpcFailure } from '../rpc-caller.ts';
import type { MirrorEntry } from '../mirror/mempool-mirror.ts';
import { chunkOfEntry } from '../mirror/mempool-snapshot.ts';
import type { RelayRates } from './sync-state.ts';

/** The node's answers the synchronisation reads, and how it reads them. */

/** getmempoolentry, as far as the mirror keeps it; `chunkweight` and `fees.chunk` from Bitcoin Core 31 on (cluster mempool). */
export interface RawEntry {
  vsize: number;
  weight: number;
  time: number;
  fees: { base: number; modified: number; chunk?: number };
  chunkweight?: number;
  depends: string[];
  spentby: string[];
}

/** getblock at verbosity 1, as far as the mirror needs it. */
export interface RawBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: string[];
}

/** getprioritisedtransactions: fee deltas by txid. */
export type PrioritisedDeltas = Record<string, { fee_delta: number; in_mempool: boolean }>;

type BatchItem = { ok: true; result: unknown } | { ok: false; error: RpcFailure } | undefined;

export function mirrorEntryFromRpc(raw: RawEntry): MirrorEntry {
  return {
    fee: btcToSats(raw.fees.base),
    modifiedFee: btcToSats(raw.fees.modified),
    vsize: raw.vsize,
    weight: raw.weight,
    time: raw.time,
    depends: raw.depends,
    spentby: raw.spentby,
    ...chunkOfEntry(raw),
  };
}

/** getmempoolinfo's relay minimums in sat/vB. */
export function relayRatesOf(info: { minrelaytxfee: number; mempoolminfee: number }): RelayRates {
  return { minRelayRate: btcPerKvbToSatPerVb(info.minrelaytxfee), mempoolMinRate: btcPerKvbToSatPerVb(info.mempoolminfee) };
}

/** The node's answer to one call of a batch, or its error thrown. */
export function answer<T>(item: BatchItem): T {
  if (!item) throw new Error('Missing answer in an RPC batch');
  if (!item.ok) throw item.error;
  return item.result as T;
}

/** getprioritisedtransactions (Core 27+), or undefined from a node without it. */
export const DELTAS_CALL: RpcCall = { method: 'getprioritisedtransactions' };

export function optionalDeltas(item: BatchItem): PrioritisedDeltas | undefined {
  if (item && !item.ok && item.error.code === RPC_METHOD_NOT_FOUND) return undefined;
  return answer(item);
}

/** The blocks the node still has, by hash (one batch). */
export async function fetchBlocks(rpc: RpcCaller, hashes: string[]): Promise<Map<string, RawBlock>> {
  const blocks = new Map<string, RawBlock>();
  if (hashes.length === 0) return blocks;
  const replies = await rpc.batch<RawBlock>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 1] })));
  replies.forEach((reply, i) => {
    if (reply.ok) blocks.set(hashes[i]!, reply.result);
  });
  return blocks;
}
