import { RpcCode, RpcError, type RpcClient } from './rpc-client.ts';

interface Spending {
  txid: string;
  vout: number;
  spendingtxid?: string;
}

/**
 * The mempool transaction, other than `txid` itself, that spends one of
 * `outpoints` (gettxspendingprevout, Core 24+): the replacement of a
 * transaction that left the mempool (BIP 125 replace-by-fee, or full RBF).
 * Undefined when none does, or when the node is too old to say.
 */
export async function mempoolSpender(rpc: RpcClient, txid: string, outpoints: Array<{ txid: string; vout: number }>): Promise<string | undefined> {
  let spenders: Spending[] = [];
  try {
    spenders = await rpc.call<Spending[]>('gettxspendingprevout', [outpoints]);
  } catch (error) {
    if (!(error instanceof RpcError && error.code === RpcCode.METHOD_NOT_FOUND)) throw error;
  }
  return spenders.find((s) => s.spendingtxid !== undefined && s.spendingtxid !== txid)?.spendingtxid;
}
