import { btcPerKvbToSatPerVb, btcToSats } from '../../bitcoin/amounts.ts';
import { RpcCode, RpcError, type RpcCall, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Logger } from '../../lib/logger.ts';
import { MempoolMirror, type MirrorEntry } from '../mirror/mempool-mirror.ts';
import { openSequenceStream, type SequenceEvent, type SequenceStream, type SequenceStreamOptions } from './zmq-sequence.ts';

/**
 * Keeps a MempoolMirror equal to the node's mempool, incrementally.
 *
 * Two ways to learn of changes:
 * - ZMQ `sequence` notifications (zmq-sequence.ts), where the node publishes
 *   them: an `A` names a new transaction, whose entry is then fetched (one
 *   JSON-RPC batch for all the notifications that queued meanwhile); `R`
 *   removes one; `C` fetches the block's txids and removes those (a block
 *   takes transactions without `R` notifications); `D` moves the tip back
 *   (the transactions the node puts back arrive as `A`).
 * - Polling: `getrawmempool false true` (txids and the mempool sequence),
 *   then entries only for txids not held, in batches; held txids the node no
 *   longer lists are removed. Used when no ZMQ endpoint is configured, while
 *   the ZMQ connection is down, and as the repair when ZMQ drifted. At 300,000
 *   transactions one poll carries some 20 MB of txids, so the interval
 *   stretches to five times the last poll's duration.
 *
 * The two agree through the mempool sequence (Core's
 * CTxMemPool::GetAndIncrementSequence): getrawmempool answers the next
 * sequence number S, so `A`/`R` notifications numbered below S are already in
 * its list, and those from S on are newer; a poll's result is applied, then
 * the notifications queued while it ran, dropping those below S.
 *
 * Resynchronisation from scratch (a fresh mirror filled by one poll, swapped
 * in when complete, the old one serving until then): at start, on every ZMQ
 * (re)connection (what happened while disconnected is unknown), on a skipped
 * ZMQ message sequence (notifications were lost), and when the node
 * restarted (its uptime went back, or its mempool sequence did).
 *
 * Checks while ZMQ is connected (every `checkIntervalMs`): the node's
 * mempool size and tip against the mirror's; a difference seen twice with no
 * notification in between means ZMQ missed something: one poll repairs it,
 * and three repairs in a row restart the ZMQ connection (polling meanwhile).
 * The same check applies prioritisetransaction deltas
 * (getprioritisedtransactions), which no notification announces.
 *
 * One task at a time runs against the mirror (a poll, a batch of
 * notifications, a check), so changes are applied in the node's order.
 */

export interface MirrorSyncOptions {
  rpc: RpcClient;
  /** The node's -zmqpubsequence endpoint; without it, polling only. */
  zmqUrl?: string | undefined;
  /** Polling interval (default 1,000 ms); also the period of the ZMQ checks' timer. */
  pollIntervalMs?: number;
  /** Interval of the checks while ZMQ is connected (default 2,000 ms). */
  checkIntervalMs?: number;
  /** Mempool entries per JSON-RPC batch (default 500). */
  entryBatchSize?: number;
  log: Logger;
  now?: () => number;
  /** Tests only: lose ZMQ notifications on purpose (zmq-sequence.ts). */
  zmqDropMessage?: SequenceStreamOptions['dropMessage'];
  /** Called after every change to the mirror, its tip or the relay rates, and when a resync swaps the mirror. */
  onChange?: () => void;
}

export type SyncMode = 'starting' | 'zmq' | 'polling';

export interface RelayRates {
  /** -minrelaytxfee, sat/vB. */
  minRelayRate: number;
  /** The mempool's current minimum (mempoolminfee, rises when the mempool is full), sat/vB. */
  mempoolMinRate: number;
}

export interface MirrorHealth {
  mode: SyncMode;
  zmqConnected: boolean;
  /** How far the mirror trails the node, as far as we can tell (ms). */
  lagMs: number;
  /** When the node last answered (ms since the epoch). */
  lastContactAtMs: number | undefined;
  fullResyncs: number;
  polls: number;
  /** ZMQ message sequences that skipped. */
  gaps: number;
  /** Mempool sequence numbers skipped with no block in between (a notification lost at the start of a connection). */
  sequenceGaps: number;
  /** Polls made because ZMQ had drifted from the node. */
  driftRepairs: number;
  lastError: string | undefined;
}

export interface MirrorSync {
  /** The mirror, once the first resynchronisation completed (a resync replaces it). */
  readonly mirror: MempoolMirror | undefined;
  /** False while a poll is half applied to the mirror: a snapshot now would mix two states. */
  readonly settled: boolean;
  readonly relay: RelayRates | undefined;
  start(): void;
  stop(): Promise<void>;
  /** Catches up with the node now: resolves once a poll started after this call has been applied. Rejects with the node's error. */
  sync(): Promise<void>;
  health(): MirrorHealth;
}

interface RawEntry {
  vsize: number;
  weight: number;
  time: number;
  fees: { base: number; modified: number };
  depends: string[];
  spentby: string[];
}

interface RawBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: string[];
}

interface QueuedEvent {
  event: SequenceEvent;
  at: number;
}

/** Blocks walked back from a new tip to the mirror's (more are left to the poll's diff). */
const MAX_BLOCK_WALK = 6;
/** Notifications held while a task runs; beyond this, they are dropped for a resync. */
const MAX_QUEUE = 200_000;
/** A node whose start time moved by more than this restarted. */
const RESTART_SLACK_MS = 5_000;

class NodeRestarted extends Error {}

export function mirrorEntryFromRpc(raw: RawEntry): MirrorEntry {
  return {
    fee: btcToSats(raw.fees.base),
    modifiedFee: btcToSats(raw.fees.modified),
    vsize: raw.vsize,
    weight: raw.weight,
    time: raw.time,
    depends: raw.depends,
    spentby: raw.spentby,
  };
}

export function createMirrorSync(options: MirrorSyncOptions): MirrorSync {
  const { rpc, log } = options;
  const now = options.now ?? Date.now;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const checkIntervalMs = options.checkIntervalMs ?? 2_000;
  const entryBatchSize = options.entryBatchSize ?? 500;
  const startedAtMs = now();

  let mirror: MempoolMirror | undefined;
  let relay: RelayRates | undefined;
  let stream: SequenceStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let started = false;
  /** Connected and resynchronised since: notifications are trusted. */
  let zmqLive = false;
  /** Connected, but the resync that must follow has not succeeded yet. */
  let zmqAwaitsResync = false;
  /** A block was connected or disconnected since the last A/R applied: the mempool sequence may have moved silently. */
  let blockSinceLastTx = true;
  const queue: QueuedEvent[] = [];
  let eventsReceived = 0;
  let tail: Promise<unknown> = Promise.resolve();
  let busy = 0;
  let pumpQueued = false;
  let resyncQueued: Promise<void> | undefined;
  let syncQueued: Promise<void> | undefined;
  let nodeStartMs: number | undefined;
  let lastContactAtMs: number | undefined;
  let lastPollStartMs: number | undefined;
  let resyncStartedAtMs: number | undefined;
  let applying = false;
  let lastPollMs = 0;
  let nextCheckAtMs = 0;
  let drifts = 0;
  let repairsInARow = 0;
  let lastError: string | undefined;
  let lastLoggedError: string | undefined;
  const counters = { fullResyncs: 0, polls: 0, gaps: 0, sequenceGaps: 0, driftRepairs: 0 };
  let knownDeltas = new Map<string, number>();
  /** Blocks whose transactions were already taken out (a `C` after a poll that saw the block). */
  const connectedBlocks: string[] = [];

  const changed = () => options.onChange?.();

  /** Runs `task` after every task queued before it: one at a time against the mirror. */
  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = tail.then(async () => {
      busy++;
      try {
        return await task();
      } finally {
        busy--;
      }
    });
    tail = run.catch(() => {});
    return run;
  }

  function noteError(error: unknown, what: string): void {
    const message = `${what}: ${(error as Error).message}`;
    lastError = message;
    // The same failure every second would flood the log: say it once until it changes.
    if (message !== lastLoggedError) log.warn({ err: (error as Error).message }, `mempool mirror: ${what} failed`);
    lastLoggedError = message;
  }

  function noteContact(uptimeSeconds: number | undefined): void {
    const at = now();
    lastContactAtMs = at;
    lastError = undefined;
    lastLoggedError = undefined;
    if (uptimeSeconds === undefined) return;
    const nodeStart = at - uptimeSeconds * 1000;
    const restarted = nodeStartMs !== undefined && Math.abs(nodeStart - nodeStartMs) > RESTART_SLACK_MS;
    nodeStartMs = nodeStart;
    if (restarted) throw new NodeRestarted('The node restarted');
  }

  /** The node's answer to one call of a batch, or its error thrown. */
  function answer<T>(item: { ok: true; result: unknown } | { ok: false; error: RpcError } | undefined): T {
    if (!item) throw new Error('Missing answer in an RPC batch');
    if (!item.ok) throw item.error;
    return item.result as T;
  }

  async function fetchBlocks(hashes: string[]): Promise<Map<string, RawBlock>> {
    const blocks = new Map<string, RawBlock>();
    if (hashes.length === 0) return blocks;
    const replies = await rpc.batch<RawBlock>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 1] })));
    replies.forEach((reply, i) => {
      if (reply.ok) blocks.set(hashes[i]!, reply.result);
    });
    return blocks;
  }

  function takeBlock(target: MempoolMirror, block: RawBlock, at: number): void {
    for (const txid of block.tx) target.remove(txid, 'mined', at, block.hash);
    connectedBlocks.push(block.hash);
    if (connectedBlocks.length > 32) connectedBlocks.shift();
  }

  /**
   * A new tip seen by a poll: the blocks since the mirror's tip (up to
   * MAX_BLOCK_WALK) take their transactions out as mined, before the diff
   * would count them as merely gone.
   */
  async function walkToTip(target: MempoolMirror, tipHash: string, at: number): Promise<void> {
    const from = target.tip;
    if (!from || from.hash === tipHash) return;
    const path: RawBlock[] = [];
    let hash: string | undefined = tipHash;
    while (hash && hash !== from.hash && path.length < MAX_BLOCK_WALK && !connectedBlocks.includes(hash)) {
      const block: RawBlock | undefined = (await fetchBlocks([hash])).get(hash);
      if (!block || block.height <= from.height - MAX_BLOCK_WALK) break;
      path.push(block);
      hash = block.previousblockhash;
    }
    for (const block of path.reverse()) takeBlock(target, block, at);
  }

  async function applyDeltas(target: MempoolMirror, deltas: Record<string, { fee_delta: number; in_mempool: boolean }> | undefined, at: number): Promise<void> {
    if (!deltas) return;
    const next = new Map<string, number>();
    for (const [txid, { fee_delta: delta, in_mempool: inMempool }] of Object.entries(deltas)) if (inMempool) next.set(txid, delta);
    for (const txid of knownDeltas.keys()) {
      if (next.has(txid)) continue;
      const base = target.baseFee(txid);
      if (base !== undefined) target.setModifiedFee(txid, base, at);
    }
    for (const [txid, delta] of next) {
      const base = target.baseFee(txid);
      if (base !== undefined) target.setModifiedFee(txid, base + delta, at);
    }
    knownDeltas = next;
  }

  /** getprioritisedtransactions (Core 27+), or undefined from a node without it. */
  const DELTAS_CALL: RpcCall = { method: 'getprioritisedtransactions' };
  function optionalDeltas(item: Parameters<typeof answer>[0]): Record<string, { fee_delta: number; in_mempool: boolean }> | undefined {
    if (item && !item.ok && item.error.code === RpcCode.METHOD_NOT_FOUND) return undefined;
    return answer(item);
  }

  /**
   * One poll applied to `target`: the node's txids and sequence, its tip and
   * relay rates; new entries fetched in batches, departed ones removed.
   */
  async function poll(target: MempoolMirror, fresh: boolean): Promise<void> {
    const at = now();
    lastPollStartMs = at;
    const replies = await rpc.batch<unknown>([
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
    noteContact(uptime);
    if (!fresh && pool.mempool_sequence < target.sequence) throw new NodeRestarted('The node\'s mempool sequence went back');
    counters.polls++;

    if (!fresh) applying = true;
    try {
      if (!fresh) await walkToTip(target, chain.bestblockhash, at);
      target.tip = { hash: chain.bestblockhash, height: chain.blocks };
      await applyList(target, pool.txids, at);
    } finally {
      applying = false;
    }
    target.sequence = pool.mempool_sequence;
    // The poll's sequence is exact: a number skipped after it with no block between is a lost notification.
    blockSinceLastTx = false;
    relay = { minRelayRate: btcPerKvbToSatPerVb(info.minrelaytxfee), mempoolMinRate: btcPerKvbToSatPerVb(info.mempoolminfee) };
    await applyDeltas(target, deltas, at);
    lastPollMs = now() - at;
  }

  /** The node's txid list applied: held ones it no longer lists removed, the others' entries fetched in batches. */
  async function applyList(target: MempoolMirror, txids: readonly string[], at: number): Promise<void> {
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
    for (let start = 0; start < missing.length; start += entryBatchSize) {
      const chunk = missing.slice(start, start + entryBatchSize);
      const entries = await rpc.batch<RawEntry>(chunk.map((txid) => ({ method: 'getmempoolentry', params: [txid] })));
      // Gone since the list was taken: its removal is in the notifications after S, or the next poll.
      entries.forEach((entry, i) => {
        if (entry.ok) target.add(chunk[i]!, mirrorEntryFromRpc(entry.result), at);
      });
    }
  }

  /** A fresh mirror filled by one poll, swapped in whole. */
  async function fullResync(why: string): Promise<void> {
    const fresh = new MempoolMirror();
    knownDeltas = new Map();
    resyncStartedAtMs = now();
    try {
      await poll(fresh, true);
    } catch (error) {
      if (error instanceof NodeRestarted) await poll(fresh, true);
      else throw error;
    } finally {
      resyncStartedAtMs = undefined;
    }
    mirror?.rememberInto(fresh);
    fresh.version = (mirror?.version ?? 0) + 1;
    mirror = fresh;
    counters.fullResyncs++;
    if (counters.fullResyncs > 1) log.info({ why, transactions: fresh.count }, 'mempool mirror resynchronised from scratch');
    changed();
    // Notifications that queued meanwhile: those from the poll's sequence on are newer than it.
    if (queue.length > 0) schedulePump();
  }

  function requestResync(why: string): Promise<void> {
    resyncQueued ??= exclusive(async () => {
      resyncQueued = undefined;
      if (!stopped) await fullResync(why);
    });
    return resyncQueued;
  }

  /** A poll against the current mirror; a restarted node makes it a full resync. */
  async function pollOrResync(): Promise<void> {
    if (!mirror) return fullResync('first synchronisation');
    try {
      await poll(mirror, false);
    } catch (error) {
      if (!(error instanceof NodeRestarted)) throw error;
      await fullResync(error.message);
      return;
    }
    compactIfSparse();
    changed();
  }

  function compactIfSparse(): void {
    if (mirror && mirror.slotsInUse > 4_096 && mirror.slotsInUse > 2 * mirror.count) mirror = mirror.compacted();
  }

  // ---- ZMQ notifications

  function schedulePump(): void {
    if (pumpQueued) return;
    pumpQueued = true;
    exclusive(async () => {
      pumpQueued = false;
      await pump();
    }).catch((error: unknown) => {
      noteError(error, 'applying ZMQ notifications');
      // What could not be applied is unknown now: start again from the node's state.
      requestResync('notifications could not be applied').catch((e: unknown) => noteError(e, 'resynchronising'));
    });
  }

  async function pump(): Promise<void> {
    while (queue.length > 0 && !stopped) {
      const target = mirror;
      if (!target) return; // the first resync drops what it already reflects
      const batch = queue.splice(0, 20_000);
      const adds = new Set<string>();
      const blocks = new Set<string>();
      const disconnected = new Set<string>();
      for (const { event } of batch) {
        if (event.label === 'A' && event.mempoolSequence >= target.sequence && !target.has(event.txid)) adds.add(event.txid);
        else if (event.label === 'C' && !connectedBlocks.includes(event.blockHash)) blocks.add(event.blockHash);
        else if (event.label === 'D') disconnected.add(event.blockHash);
      }
      const addList = [...adds];
      const blockList = [...blocks];
      const disconnectList = [...disconnected];
      const calls: RpcCall[] = [
        ...addList.map((txid) => ({ method: 'getmempoolentry', params: [txid] })),
        ...blockList.map((hash) => ({ method: 'getblock', params: [hash, 1] })),
        ...disconnectList.map((hash) => ({ method: 'getblockheader', params: [hash] })),
      ];
      const replies = calls.length > 0 ? await rpc.batch<unknown>(calls) : [];
      if (mirror !== target) return; // swapped by a resync meanwhile: what is left was not for it
      if (calls.length > 0) noteContact(undefined);
      const entryOf = new Map<string, RawEntry>();
      addList.forEach((txid, i) => {
        const reply = replies[i];
        if (reply?.ok) entryOf.set(txid, reply.result as RawEntry);
      });
      const blockOf = new Map<string, RawBlock>();
      blockList.forEach((hash, i) => {
        const reply = replies[addList.length + i];
        if (reply?.ok) blockOf.set(hash, reply.result as RawBlock);
      });
      const headerOf = new Map<string, { height: number; previousblockhash?: string }>();
      disconnectList.forEach((hash, i) => {
        const reply = replies[addList.length + blockList.length + i];
        if (reply?.ok) headerOf.set(hash, reply.result as { height: number; previousblockhash?: string });
      });
      for (const { event, at } of batch) {
        switch (event.label) {
          case 'A':
          case 'R': {
            if (event.mempoolSequence < target.sequence) break; // already in the poll the mirror came from
            if (event.mempoolSequence > target.sequence && !blockSinceLastTx) {
              // Every mempool change but a block's takes a number and is announced (CTxMemPool::
              // GetAndIncrementSequence): a number skipped with no block between was a notification lost.
              counters.sequenceGaps++;
              log.warn({ expected: target.sequence, received: event.mempoolSequence }, 'mempool mirror: a mempool sequence number was skipped; resynchronising');
              queue.length = 0;
              requestResync(`mempool sequence ${target.sequence} skipped`).catch((error: unknown) => noteError(error, 'resynchronising after a skipped sequence'));
              return;
            }
            target.sequence = event.mempoolSequence + 1;
            blockSinceLastTx = false;
            if (event.label === 'R') {
              target.remove(event.txid, 'removed', at);
              break;
            }
            // No entry: it left again before we asked; its `R` (or block) follows.
            const entry = entryOf.get(event.txid);
            if (entry) target.add(event.txid, mirrorEntryFromRpc(entry), at);
            break;
          }
          case 'C': {
            blockSinceLastTx = true;
            const block = blockOf.get(event.blockHash);
            if (!block) break; // already taken out, or reorganised away before we asked
            takeBlock(target, block, at);
            target.tip = { hash: block.hash, height: block.height };
            break;
          }
          case 'D': {
            blockSinceLastTx = true;
            const header = headerOf.get(event.blockHash);
            if (header?.previousblockhash) target.tip = { hash: header.previousblockhash, height: header.height - 1 };
            const at2 = connectedBlocks.indexOf(event.blockHash);
            if (at2 >= 0) connectedBlocks.splice(at2, 1);
            break;
          }
        }
      }
      compactIfSparse();
      changed();
    }
  }

  function openStream(url: string): void {
    stream = openSequenceStream(
      { url, ...(options.zmqDropMessage ? { dropMessage: options.zmqDropMessage } : {}), now },
      {
        onConnected() {
          // Whatever happened while we were not listening is unknown: start again from the node's state.
          zmqAwaitsResync = true;
          resyncForZmq();
        },
        onEvent(event, at) {
          eventsReceived++;
          if (queue.length >= MAX_QUEUE) {
            queue.length = 0;
            requestResync('too many notifications queued').catch((error: unknown) => noteError(error, 'resynchronising'));
            return;
          }
          queue.push({ event, at });
          schedulePump();
        },
        onGap({ expected, received }) {
          counters.gaps++;
          log.warn({ expected, received }, 'mempool mirror: ZMQ notifications were lost; resynchronising');
          requestResync(`ZMQ message ${expected} lost (got ${received})`).catch((error: unknown) => noteError(error, 'resynchronising after lost notifications'));
        },
        onDisconnected(error) {
          zmqLive = false;
          zmqAwaitsResync = false;
          if (!stopped) log.warn({ err: error?.message }, 'mempool mirror: ZMQ disconnected; polling until it is back');
        },
      },
    );
  }

  /** The resync a new ZMQ connection needs; retried by the timer until it succeeds. */
  function resyncForZmq(): void {
    const connection = stream;
    requestResync('ZMQ connected')
      .then(() => {
        if (stream !== connection || !connection?.connected) return;
        zmqLive = true;
        zmqAwaitsResync = false;
        drifts = 0;
      })
      .catch((error: unknown) => noteError(error, 'resynchronising after the ZMQ connection'));
  }

  /**
   * While ZMQ is trusted: the node's mempool size and tip against the
   * mirror's, relay rates, and prioritisetransaction deltas.
   */
  async function check(): Promise<void> {
    const target = mirror;
    if (!target) return;
    const eventsBefore = eventsReceived;
    const replies = await rpc.batch<unknown>([{ method: 'getmempoolinfo' }, { method: 'getbestblockhash' }, { method: 'uptime' }, DELTAS_CALL]);
    const info = answer<{ size: number; minrelaytxfee: number; mempoolminfee: number }>(replies[0]);
    const best = answer<string>(replies[1]);
    const uptime = answer<number>(replies[2]);
    const deltas = optionalDeltas(replies[3]);
    try {
      noteContact(uptime);
    } catch (error) {
      if (!(error instanceof NodeRestarted)) throw error;
      await fullResync(error.message);
      return;
    }
    const at = now();
    const next = { minRelayRate: btcPerKvbToSatPerVb(info.minrelaytxfee), mempoolMinRate: btcPerKvbToSatPerVb(info.mempoolminfee) };
    const relayChanged = !relay || relay.minRelayRate !== next.minRelayRate || relay.mempoolMinRate !== next.mempoolMinRate;
    relay = next;
    const versionBefore = target.version;
    await applyDeltas(target, deltas, at);
    if (relayChanged || target.version !== versionBefore) changed();
    // Judged only when nothing arrived meanwhile: a notification in flight explains a difference.
    if (eventsReceived !== eventsBefore || queue.length > 0 || mirror !== target) return;
    if (info.size === target.count && best === target.tip?.hash) {
      drifts = 0;
      repairsInARow = 0;
      return;
    }
    if (++drifts < 2) return;
    drifts = 0;
    counters.driftRepairs++;
    log.warn({ nodeSize: info.size, mirrorSize: target.count, nodeTip: best, mirrorTip: target.tip?.hash }, 'mempool mirror: ZMQ missed changes; polling to repair');
    await pollOrResync();
    if (++repairsInARow >= 3 && options.zmqUrl) {
      // Silent or broken: a new connection (and its resync); polling covers the meantime.
      repairsInARow = 0;
      zmqLive = false;
      stream?.close();
      openStream(options.zmqUrl);
    }
  }

  function tick(): void {
    if (stopped || busy > 0) return;
    const at = now();
    if (zmqAwaitsResync && stream?.connected) {
      resyncForZmq();
      return;
    }
    if (!mirror) {
      requestResync('first synchronisation').catch((error: unknown) => noteError(error, 'synchronising'));
      return;
    }
    if (zmqLive) {
      if (at < nextCheckAtMs) return;
      nextCheckAtMs = at + checkIntervalMs;
      exclusive(check).catch((error: unknown) => noteError(error, 'checking the mirror'));
      return;
    }
    // Polling: at most every pollIntervalMs, and no more than a fifth of the time spent polling.
    if (lastPollStartMs !== undefined && at - lastPollStartMs < Math.max(pollIntervalMs, 5 * lastPollMs)) return;
    exclusive(pollOrResync).catch((error: unknown) => noteError(error, 'polling the node'));
  }

  return {
    get mirror() {
      return mirror;
    },
    get relay() {
      return relay;
    },
    get settled() {
      return !applying;
    },
    start() {
      if (started) return;
      started = true;
      // With ZMQ, the connection's own resync is the first (the timer starts one if ZMQ does not connect).
      if (options.zmqUrl) openStream(options.zmqUrl);
      else requestResync('first synchronisation').catch((error: unknown) => noteError(error, 'synchronising'));
      timer = setInterval(tick, Math.min(pollIntervalMs, checkIntervalMs));
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      stream?.close();
      queue.length = 0;
      await tail;
    },
    sync() {
      syncQueued ??= exclusive(async () => {
        syncQueued = undefined;
        await pollOrResync();
      });
      return syncQueued;
    },
    health() {
      const at = now();
      let lagMs: number;
      if (!mirror) lagMs = at - startedAtMs;
      else if (zmqLive) lagMs = Math.max(queue.length > 0 ? at - queue[0]!.at : 0, resyncStartedAtMs === undefined ? 0 : at - resyncStartedAtMs);
      else lagMs = lastPollStartMs === undefined ? at - startedAtMs : at - lastPollStartMs;
      return {
        mode: !mirror ? 'starting' : zmqLive ? 'zmq' : 'polling',
        zmqConnected: stream?.connected === true,
        lagMs: Math.max(0, lagMs),
        lastContactAtMs,
        ...counters,
        lastError,
      };
    },
  };
}
