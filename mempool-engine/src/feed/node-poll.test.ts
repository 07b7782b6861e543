import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMirrorSync } from './mirror-sync.ts';
import { txidAt } from '../mirror/mempool-snapshot.ts';
import type { RpcBatchItem, RpcCall, RpcCaller, RpcFailure } from '../rpc-caller.ts';

/**
 * Polling a cluster-mempool node (Bitcoin Core 31): a child that joins a
 * cluster changes the chunks of transactions the mirror already holds, whose
 * entries it would not read again; the poll asks for them. Against a node
 * double that answers what the poll asks, as Core's RPC shapes them.
 */

const txid = (n: number) => n.toString(16).padStart(64, '0');

interface FakeTx {
  vsize: number;
  base: number;
  depends: string[];
  /** BTC and WU, as a Core 31 node reports them; undefined for a node without cluster mempool. */
  chunk: { fee: number; weight: number } | undefined;
}

/** A node double: a mempool, and the calls made of it. */
function fakeNode(mempool: Map<string, FakeTx>) {
  const entryCalls: string[] = [];
  const answer = (call: RpcCall): unknown => {
    switch (call.method) {
      case 'getrawmempool':
        return { txids: [...mempool.keys()], mempool_sequence: 10 };
      case 'getmempoolinfo':
        return { size: mempool.size, minrelaytxfee: 0.000001, mempoolminfee: 0.000001 };
      case 'getblockchaininfo':
        return { blocks: 100, bestblockhash: 'aa'.repeat(32) };
      case 'uptime':
        return 1_000;
      case 'getprioritisedtransactions':
        return {};
      case 'getmempoolentry': {
        const id = call.params![0] as string;
        entryCalls.push(id);
        const tx = mempool.get(id);
        if (!tx) throw Object.assign(new Error('Transaction not in mempool'), { code: -5 });
        const spentby = [...mempool].filter(([, t]) => t.depends.includes(id)).map(([child]) => child);
        return {
          vsize: tx.vsize,
          weight: 4 * tx.vsize,
          time: 1_750_000_000,
          height: 100,
          fees: { base: tx.base, modified: tx.base, ancestor: tx.base, descendant: tx.base, ...(tx.chunk ? { chunk: tx.chunk.fee } : {}) },
          ...(tx.chunk ? { chunkweight: tx.chunk.weight } : {}),
          depends: tx.depends,
          spentby,
        };
      }
      default:
        throw Object.assign(new Error(`Method not found: ${call.method}`), { code: -32601 });
    }
  };
  const rpc: RpcCaller = {
    call: <T>(method: string, params?: unknown[]) => Promise.resolve(answer({ method, ...(params ? { params } : {}) }) as T),
    batch: <T>(calls: RpcCall[]) =>
      Promise.resolve(calls.map((call): RpcBatchItem<T> => {
        try {
          return { ok: true, result: answer(call) as T };
        } catch (error) {
          return { ok: false, error: error as RpcFailure };
        }
      })),
  };
  return { rpc, entryCalls };
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

function chunksOfMirror(sync: ReturnType<typeof createMirrorSync>): Map<string, [number, number]> | undefined {
  const { snapshot } = sync.mirror!.snapshot();
  if (!snapshot.chunkFee || !snapshot.chunkWeight) return undefined;
  return new Map(Array.from({ length: snapshot.count }, (_, i) => [txidAt(snapshot, i), [snapshot.chunkFee![i]!, snapshot.chunkWeight![i]!]]));
}

test('a child joining a cluster: the poll reads the new entry, then asks again for the chunks of the cluster it joined', async () => {
  const mempool = new Map<string, FakeTx>([
    [txid(1), { vsize: 100, base: 0.000001, depends: [], chunk: { fee: 0.000001, weight: 400 } }],
    [txid(9), { vsize: 100, base: 0.00002, depends: [], chunk: { fee: 0.00002, weight: 400 } }],
  ]);
  const node = fakeNode(mempool);
  const sync = createMirrorSync({ rpc: node.rpc, log: quiet, now: () => 5_000_000 });
  await sync.sync();
  assert.deepEqual(node.entryCalls.sort(), [txid(1), txid(9)], 'a fresh mirror reads each entry once');
  assert.deepEqual(chunksOfMirror(sync), new Map([[txid(1), [100, 400]], [txid(9), [2_000, 400]]]));

  // C pays for its parent: the node's chunk is now P + C, P's entry included.
  mempool.set(txid(2), { vsize: 100, base: 0.00003, depends: [txid(1)], chunk: { fee: 0.000031, weight: 800 } });
  mempool.get(txid(1))!.chunk = { fee: 0.000031, weight: 800 };
  node.entryCalls.length = 0;
  await sync.sync();
  assert.equal(node.entryCalls[0], txid(2), 'the new entry first');
  assert.deepEqual(node.entryCalls.slice(1).sort(), [txid(1), txid(2)], 'then the cluster it joined');
  assert.deepEqual(chunksOfMirror(sync), new Map([[txid(1), [3_100, 800]], [txid(9), [2_000, 400]], [txid(2), [3_100, 800]]]));
  assert.ok(sync.settled);
});

test('a node without cluster mempool is never asked for an entry twice', async () => {
  const mempool = new Map<string, FakeTx>([[txid(1), { vsize: 100, base: 0.000001, depends: [], chunk: undefined }]]);
  const node = fakeNode(mempool);
  const sync = createMirrorSync({ rpc: node.rpc, log: quiet, now: () => 5_000_000 });
  await sync.sync();
  mempool.set(txid(2), { vsize: 100, base: 0.00003, depends: [txid(1)], chunk: undefined });
  await sync.sync();
  mempool.delete(txid(1));
  await sync.sync();
  assert.deepEqual(node.entryCalls, [txid(1), txid(2)]);
  assert.equal(chunksOfMirror(sync), undefined);
});
