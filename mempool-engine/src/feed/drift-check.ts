import { answer, DELTAS_CALL, optionalDeltas, relayRatesOf } from './node-answers.ts';
import { applyDeltas, refreshChunks } from './node-poll.ts';
import { noteContact, NodeRestarted } from './sync-health.ts';
import type { SyncState } from './sync-state.ts';

/**
 * The check while ZMQ is trusted (every `checkIntervalMs`): the node's
 * mempool size and tip against the mirror's; a difference seen twice with no
 * notification in between means ZMQ missed something. It also takes the
 * relay rates and prioritisetransaction deltas, which no notification
 * announces. The loop (sync-loop.ts) acts on the outcome.
 */

export type CheckOutcome =
  /** The mirror agrees with the node, or nothing can be judged yet. */
  | { kind: 'fine' }
  /** The node restarted since the last answer: resynchronise from scratch. */
  | { kind: 'restarted'; why: string }
  /** ZMQ missed changes: a poll repairs them. */
  | { kind: 'drifted' };

const FINE: CheckOutcome = { kind: 'fine' };

export async function checkAgainstNode(s: SyncState): Promise<CheckOutcome> {
  const target = s.mirror;
  if (!target) return FINE;
  const eventsBefore = s.eventsReceived;
  const replies = await s.rpc.batch<unknown>([{ method: 'getmempoolinfo' }, { method: 'getbestblockhash' }, { method: 'uptime' }, DELTAS_CALL]);
  const info = answer<{ size: number; minrelaytxfee: number; mempoolminfee: number }>(replies[0]);
  const best = answer<string>(replies[1]);
  const uptime = answer<number>(replies[2]);
  const deltas = optionalDeltas(replies[3]);
  try {
    noteContact(s, uptime);
  } catch (error) {
    if (!(error instanceof NodeRestarted)) throw error;
    return { kind: 'restarted', why: error.message };
  }
  const at = s.now();
  const next = relayRatesOf(info);
  const relayChanged = !s.relay || s.relay.minRelayRate !== next.minRelayRate || s.relay.mempoolMinRate !== next.mempoolMinRate;
  s.relay = next;
  const versionBefore = target.version;
  await applyDeltas(s, target, deltas, at);
  // A new fee delta changes its cluster's chunks.
  await refreshChunks(s, target, at);
  if (relayChanged || target.version !== versionBefore) s.changed();
  // Judged only when nothing arrived meanwhile: a notification in flight explains a difference.
  if (s.eventsReceived !== eventsBefore || s.queue.length > 0 || s.mirror !== target) return FINE;
  if (info.size === target.count && best === target.tip?.hash) {
    s.drifts = 0;
    s.repairsInARow = 0;
    return FINE;
  }
  if (++s.drifts < 2) return FINE;
  s.drifts = 0;
  s.counters.driftRepairs++;
  s.log.warn({ nodeSize: info.size, mirrorSize: target.count, nodeTip: best, mirrorTip: target.tip?.hash }, 'mempool mirror: ZMQ missed changes; polling to repair');
  return { kind: 'drifted' };
}
