import type { RpcBatchItem, RpcCall } from '../rpc-caller.ts';
import type { MempoolMirror } from '../mirror/mempool-mirror.ts';
import { mirrorEntryFromRpc, type RawBlock, type RawEntry } from './node-answers.ts';
import { refreshChunks, takeBlock } from './node-poll.ts';
import { noteContact, noteError } from './sync-health.ts';
import { compactIfSparse, type QueuedEvent, type SyncState } from './sync-state.ts';
import type { SequenceEvent } from './zmq-sequence.ts';

/**
 * ZMQ `sequence` notifications applied to the mirror (mirror-sync.ts
 * describes them), a batch at a time: one JSON-RPC batch fetches what the
 * batch's notifications name (new transactions' entries, connected blocks'
 * txids, disconnected blocks' headers), then the notifications are applied
 * in the node's order; then the chunks of the clusters they changed, from a
 * cluster-mempool node (node-poll.ts refreshChunks()).
 */

/** Notifications applied per round. */
const PUMP_BATCH = 20_000;

type TxEvent = Extract<SequenceEvent, { label: 'A' | 'R' }>;
type BlockHeader = { height: number; previousblockhash?: string };

/** What a batch's notifications need from the node, each list in the order asked. */
interface BatchRequests {
  adds: string[];
  blocks: string[];
  disconnected: string[];
  calls: RpcCall[];
}

/** The node's answers to a batch's requests, by txid or block hash (missing: gone before we asked). */
interface BatchAnswers {
  entryOf: Map<string, RawEntry>;
  blockOf: Map<string, RawBlock>;
  headerOf: Map<string, BlockHeader>;
}

/** Applies the queued notifications; `requestResync` is called when one was lost (a skipped mempool sequence number). */
export async function pump(s: SyncState, requestResync: (why: string) => Promise<void>): Promise<void> {
  while (s.queue.length > 0 && !s.stopped) {
    const target = s.mirror;
    if (!target) return; // the first resync drops what it already reflects
    const batch = s.queue.splice(0, PUMP_BATCH);
    const requests = requestsFor(s, target, batch);
    const replies = requests.calls.length > 0 ? await s.rpc.batch<unknown>(requests.calls) : [];
    if (s.mirror !== target) return; // swapped by a resync meanwhile: what is left was not for it
    if (requests.calls.length > 0) noteContact(s, undefined);
    if (!applyEvents(s, target, batch, answersFrom(requests, replies), requestResync)) return;
    await refreshChunks(s, target, s.now());
    compactIfSparse(s);
    s.changed();
  }
}

function requestsFor(s: SyncState, target: MempoolMirror, batch: readonly QueuedEvent[]): BatchRequests {
  const adds = new Set<string>();
  const blocks = new Set<string>();
  const disconnected = new Set<string>();
  for (const { event } of batch) {
    if (event.label === 'A' && event.mempoolSequence >= target.sequence && !target.has(event.txid)) adds.add(event.txid);
    else if (event.label === 'C' && !s.connectedBlocks.includes(event.blockHash)) blocks.add(event.blockHash);
    else if (event.label === 'D') disconnected.add(event.blockHash);
  }
  const requests = { adds: [...adds], blocks: [...blocks], disconnected: [...disconnected] };
  const calls: RpcCall[] = [
    ...requests.adds.map((txid) => ({ method: 'getmempoolentry', params: [txid] })),
    ...requests.blocks.map((hash) => ({ method: 'getblock', params: [hash, 1] })),
    ...requests.disconnected.map((hash) => ({ method: 'getblockheader', params: [hash] })),
  ];
  return { ...requests, calls };
}

function answersFrom(requests: BatchRequests, replies: readonly RpcBatchItem<unknown>[]): BatchAnswers {
  const answered = <T>(keys: readonly string[], offset: number): Map<string, T> => {
    const byKey = new Map<string, T>();
    keys.forEach((key, i) => {
      const reply = replies[offset + i];
      if (reply?.ok) byKey.set(key, reply.result as T);
    });
    return byKey;
  };
  return {
    entryOf: answered<RawEntry>(requests.adds, 0),
    blockOf: answered<RawBlock>(requests.blocks, requests.adds.length),
    headerOf: answered<BlockHeader>(requests.disconnected, requests.adds.length + requests.blocks.length),
  };
}

/** The batch in the node's order; false when a lost notification stopped it (a resync is requested). */
function applyEvents(s: SyncState, target: MempoolMirror, batch: readonly QueuedEvent[], answers: BatchAnswers, requestResync: (why: string) => Promise<void>): boolean {
  for (const { event, at } of batch) {
    switch (event.label) {
      case 'A':
      case 'R':
        if (!applyTxEvent(s, target, event, at, answers, requestResync)) return false;
        break;
      case 'C':
        applyConnected(s, target, event.blockHash, at, answers);
        break;
      case 'D':
        applyDisconnected(s, target, event.blockHash, answers);
        break;
    }
  }
  return true;
}

function applyTxEvent(s: SyncState, target: MempoolMirror, event: TxEvent, at: number, answers: BatchAnswers, requestResync: (why: string) => Promise<void>): boolean {
  if (event.mempoolSequence < target.sequence) return true; // already in the poll the mirror came from
  if (event.mempoolSequence > target.sequence && !s.blockSinceLastTx) {
    // Every mempool change but a block's takes a number and is announced (CTxMemPool::
    // GetAndIncrementSequence): a number skipped with no block between was a notification lost.
    s.counters.sequenceGaps++;
    s.log.warn({ expected: target.sequence, received: event.mempoolSequence }, 'mempool mirror: a mempool sequence number was skipped; resynchronising');
    s.queue.length = 0;
    requestResync(`mempool sequence ${target.sequence} skipped`).catch((error: unknown) => noteError(s, error, 'resynchronising after a skipped sequence'));
    return false;
  }
  target.sequence = event.mempoolSequence + 1;
  s.blockSinceLastTx = false;
  if (event.label === 'R') {
    target.remove(event.txid, 'removed', at);
    return true;
  }
  // No entry: it left again before we asked; its `R` (or block) follows.
  const entry = answers.entryOf.get(event.txid);
  if (entry) target.add(event.txid, mirrorEntryFromRpc(entry), at);
  return true;
}

function applyConnected(s: SyncState, target: MempoolMirror, blockHash: string, at: number, answers: BatchAnswers): void {
  s.blockSinceLastTx = true;
  const block = answers.blockOf.get(blockHash);
  if (!block) return; // already taken out, or reorganised away before we asked
  takeBlock(s, target, block, at);
  target.tip = { hash: block.hash, height: block.height };
}

function applyDisconnected(s: SyncState, target: MempoolMirror, blockHash: string, answers: BatchAnswers): void {
  s.blockSinceLastTx = true;
  const header = answers.headerOf.get(blockHash);
  if (header?.previousblockhash) target.tip = { hash: header.previousblockhash, height: header.height - 1 };
  const at = s.connectedBlocks.indexOf(blockHash);
  if (at >= 0) s.connectedBlocks.splice(at, 1);
}
