import type { MempoolMirror } from '../mirror/mempool-mirror.ts';
import { answer, DELTAS_CALL, fetchBlocks, mirrorEntryFromRpc, optionalDeltas, relayRatesOf, type PrioritisedDeltas, type RawBlock, type RawEntry } from './node-answers.ts';
import { chunkOfEntry } from '../mirror/mempool-snapshot.ts';
import { noteContact, NodeRestarted } from './sync-health.ts';
import type { SyncState } from './sync-state.ts';

/**
 * Polling the node (mirror-sync.ts describes when): `getrawmempool false
 * true` (txids and the mempool sequence), then entries only for txids not
 * held, in batches; held txids the node no longer lists are removed. Also
 * what polls and notifications share: a block's transactions taken out as
 * mined, prioritisetransaction deltas applied, and a cluster-mempool node's
 * chunks asked for again where their clusters changed.
 */

/** Blocks walked back from a new tip to the mirror's (more are left to the poll's diff). */
const MAX_BLOCK_WALK = 6;

/**
 * One poll applied to `target` (`fresh`: a new mirror a resync fills): the
 * node's txids and sequence, its tip and relay rates; new entries fetched in
 * batches, departed ones removed.
 */
export async function poll(s: SyncState, target: MempoolMirror, fresh: boolean): Promise<void> {
  const at = s.now();
  s.lastPollStartMs = at;
  const replies = await s.rpc.batch<unknown>([
    { method: 'getrawmempool', params: [false, true] },
    { method: 'getmempoolinfo' },
    { method: 'getblockchaininfo' },
    { method: 'uptime' },
    DELTAS_CALL,
  ]);
  const pool = answer<{ txids: string[]; mempool_sequence: number }>(replies[0]);
  const info = answer<{ minrelaytxfee: number; mempoolminfee: number }>(replies[1]);
  const chain = answer<{ blocks: number; bestblockhash: string }>(replies[2]);
  const uptime = answer<number>(replies[3]);
  const deltas = optionalDeltas(replies[4]);
  noteContact(s, uptime);
  if (!fresh && pool.mempool_sequence < target.sequence) throw new NodeRestarted('The node\'s mempool sequence went back');
  s.counters.polls++;

  if (!fresh) s.applying = true;
  try {
    if (!fresh) await walkToTip(s, target, chain.bestblockhash, at);
    target.tip = { hash: chain.bestblockhash, height: chain.blocks };
    // A fresh mirror's entries are all read after the list: their chunks already count each other (MempoolMirror.chunksFollowLinks).
    target.chunksFollowLinks = !fresh;
    await applyList(s, target, pool.txids, at);
  } finally {
    s.applying = false;
    target.chunksFollowLinks = true;
  }
  target.sequence = pool.mempool_sequence;
  // The poll's sequence is exact: a number skipped after it with no block between is a lost notification.
  s.blockSinceLastTx = false;
  s.relay = relayRatesOf(info);
  await applyDeltas(s, target, deltas, at);
  await refreshChunks(s, target, at, fresh);
  s.lastPollMs = s.now() - at;
}

/**
 * The chunks of the transactions whose clusters changed since the node gave
 * them (MempoolMirror.staleChunkTxids(): a cluster-mempool node's only),
 * asked for again in batches of getmempoolentry. A transaction the node no
 * longer has stays listed until its removal arrives. Meanwhile the mirror is
 * marked as being applied (`fresh`: a new mirror nobody reads yet), so that
 * no snapshot is taken with some chunks missing, which would project by
 * ancestor score for that once. No call at all when nothing is listed.
 */
export async function refreshChunks(s: SyncState, target: MempoolMirror, at: number, fresh = false): Promise<void> {
  const stale = target.staleChunkTxids();
  if (stale.length === 0) return;
  if (!fresh) s.applying = true;
  try {
    for (let start = 0; start < stale.length; start += s.entryBatchSize) {
      const batch = stale.slice(start, start + s.entryBatchSize);
      const entries = await s.rpc.batch<RawEntry>(batch.map((txid) => ({ method: 'getmempoolentry', params: [txid] })));
      entries.forEach((entry, i) => {
        const chunk = entry.ok ? chunkOfEntry(entry.result) : undefined;
        if (entry.ok && chunk) target.setChunk(batch[i]!, chunk.chunkFee, chunk.chunkWeight, entry.result.depends.length + entry.result.spentby.length, at);
      });
    }
  } finally {
    if (!fresh) s.applying = false;
  }
}

/** The node's txid list applied: held ones it no longer lists removed, the others' entries fetched in batches. */
async function applyList(s: SyncState, target: MempoolMirror, txids: readonly string[], at: number): Promise<void> {
  // Which held transactions the node still lists, by slot, without a 300,000-entry Set.
  const listed = new Uint8Array(target.slotsInUse);
  const missing: string[] = [];
  for (const txid of txids) {
    const slot = target.slotOf(txid);
    if (slot === undefined) missing.push(txid);
    else listed[slot] = 1;
  }
  target.forEachTxid((txid, slot) => {
    if (slot >= listed.length || listed[slot] === 0) target.remove(txid, 'removed', at);
  });
  for (let start = 0; start < missing.length; start += s.entryBatchSize) {
    const chunk = missing.slice(start, start + s.entryBatchSize);
    const entries = await s.rpc.batch<RawEntry>(chunk.map((txid) => ({ method: 'getmempoolentry', params: [txid] })));
    // Gone since the list was taken: its removal is in the notifications after S, or the next poll.
    entries.forEach((entry, i) => {
      if (entry.ok) target.add(chunk[i]!, mirrorEntryFromRpc(entry.result), at);
    });
  }
}

/**
 * A new tip seen by a poll: the blocks since the mirror's tip (up to
 * MAX_BLOCK_WALK) take their transactions out as mined, before the diff
 * would count them as merely gone.
 */
async function walkToTip(s: SyncState, target: MempoolMirror, tipHash: string, at: number): Promise<void> {
  const from = target.tip;
  if (!from || from.hash === tipHash) return;
  const path: RawBlock[] = [];
  let hash: string | undefined = tipHash;
  while (hash && hash !== from.hash && path.length < MAX_BLOCK_WALK && !s.connectedBlocks.includes(hash)) {
    const block: RawBlock | undefined = (await fetchBlocks(s.rpc, [hash])).get(hash);
    if (!block || block.height <= from.height - MAX_BLOCK_WALK) break;
    path.push(block);
    hash = block.previousblockhash;
  }
  for (const block of path.reverse()) takeBlock(s, target, block, at);
}

/** A block's transactions out of the mirror as mined; the block remembered as taken. */
export function takeBlock(s: SyncState, target: MempoolMirror, block: RawBlock, at: number): void {
  for (const txid of block.tx) target.remove(txid, 'mined', at, block.hash);
  s.connectedBlocks.push(block.hash);
  if (s.connectedBlocks.length > 32) s.connectedBlocks.shift();
}

/** prioritisetransaction deltas: each transaction's modified fee is its base fee plus its delta now. */
export async function applyDeltas(s: SyncState, target: MempoolMirror, deltas: PrioritisedDeltas | undefined, at: number): Promise<void> {
  if (!deltas) return;
  const next = new Map<string, number>();
  for (const [txid, { fee_delta: delta, in_mempool: inMempool }] of Object.entries(deltas)) if (inMempool) next.set(txid, delta);
  for (const txid of s.knownDeltas.keys()) {
    if (next.has(txid)) continue;
    const base = target.baseFee(txid);
    if (base !== undefined) target.setModifiedFee(txid, base, at);
  }
  for (const [txid, delta] of next) {
    const base = target.baseFee(txid);
    if (base !== undefined) target.setModifiedFee(txid, base + delta, at);
  }
  s.knownDeltas = next;
}
