import type { SyncCounters, SyncState } from './sync-state.ts';

/** How the synchronisation is doing, as the engine's health and the logs report it. */

export type SyncMode = 'starting' | 'zmq' | 'polling';

export interface MirrorHealth extends SyncCounters {
  mode: SyncMode;
  zmqConnected: boolean;
  /** How far the mirror trails the node, as far as we can tell (ms). */
  lagMs: number;
  /** When the node last answered (ms since the epoch). */
  lastContactAtMs: number | undefined;
  lastError: string | undefined;
}

/** A node whose start time moved by more than this restarted. */
const RESTART_SLACK_MS = 5_000;

export class NodeRestarted extends Error {}

export function noteError(s: SyncState, error: unknown, what: string): void {
  const message = `${what}: ${(error as Error).message}`;
  s.lastError = message;
  // The same failure every second would flood the log: say it once until it changes.
  if (message !== s.lastLoggedError) s.log.warn({ err: (error as Error).message }, `mempool mirror: ${what} failed`);
  s.lastLoggedError = message;
}

/** The node answered; with its uptime, throws NodeRestarted when it started again since last time. */
export function noteContact(s: SyncState, uptimeSeconds: number | undefined): void {
  const at = s.now();
  s.lastContactAtMs = at;
  s.lastError = undefined;
  s.lastLoggedError = undefined;
  if (uptimeSeconds === undefined) return;
  const nodeStart = at - uptimeSeconds * 1000;
  const restarted = s.nodeStartMs !== undefined && Math.abs(nodeStart - s.nodeStartMs) > RESTART_SLACK_MS;
  s.nodeStartMs = nodeStart;
  if (restarted) throw new NodeRestarted('The node restarted');
}

export function mirrorHealth(s: SyncState): MirrorHealth {
  const at = s.now();
  const { mirror, zmqLive, queue, resyncStartedAtMs, lastPollStartMs, startedAtMs } = s;
  let lagMs: number;
  if (!mirror) lagMs = at - startedAtMs;
  else if (zmqLive) lagMs = Math.max(queue.length > 0 ? at - queue[0]!.at : 0, resyncStartedAtMs === undefined ? 0 : at - resyncStartedAtMs);
  else lagMs = lastPollStartMs === undefined ? at - startedAtMs : at - lastPollStartMs;
  return {
    mode: !mirror ? 'starting' : zmqLive ? 'zmq' : 'polling',
    zmqConnected: s.stream?.connected === true,
    lagMs: Math.max(0, lagMs),
    lastContactAtMs: s.lastContactAtMs,
    ...s.counters,
    lastError: s.lastError,
  };
}
