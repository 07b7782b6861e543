import { useEffect, useState } from 'react';
import type { MempoolDashboardState } from './mempool-state.ts';

/**
 * The dashboard's one source of data: GET /mempool/api/state for the first
 * paint, then the Server-Sent Events stream for every update. The state is
 * replaced whole each time, so whatever arrives last (and is not older) wins.
 * While the stream is down the last state stays on screen, marked as such.
 */

export const MEMPOOL_API = '/mempool/api';

export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting';

export interface LiveSnapshot {
  state: MempoolDashboardState | null;
  status: ConnectionStatus;
  /** Why there is nothing to show yet (the engine's first projection pending, the server unreachable). */
  problem: string | null;
  /** The server's clock minus ours (ms), from the Date header; "updated N s ago" is measured on the server's clock. */
  clockOffsetMs: number;
}

export const INITIAL_SNAPSHOT: LiveSnapshot = { state: null, status: 'connecting', problem: null, clockOffsetMs: 0 };

export const UNREACHABLE = 'Cannot reach the server. Retrying…';
/** The server's 503 before the engine's first projection; this page needs no "try again": it updates by itself. */
export const NOT_READY = 'The mempool engine is working out its first projection. This page updates by itself.';

// The browser retries a dropped stream by itself (the server's `retry:` hint).
// A refused one (429, 503) it gives up on; then we retry, backing off.
const FIRST_RETRY_MS = 2_000;
const MAX_RETRY_MS = 30_000;

/** Whether `next` should replace `current`: states only move forward. */
export function isNewer(next: MempoolDashboardState, current: MempoolDashboardState | null): boolean {
  return current === null || next.updatedAtMs >= current.updatedAtMs;
}

/**
 * The server's clock minus ours, from an HTTP Date header (RFC 9110, section
 * 6.6.1), whole seconds; under 2 s it is the header's own rounding, not skew.
 */
export function clockOffsetFrom(dateHeader: string | null, receivedAtMs: number): number {
  const serverMs = dateHeader === null ? Number.NaN : Date.parse(dateHeader);
  if (Number.isNaN(serverMs)) return 0;
  const offset = serverMs + 500 - receivedAtMs;
  return Math.abs(offset) < 2_000 ? 0 : offset;
}

function messageOf(body: unknown): string | null {
  return body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' ? body.message : null;
}

/** Opens the feed; `emit` gets every new snapshot. Answers the function that closes it. */
export function openMempoolLive(emit: (snapshot: LiveSnapshot) => void, base = MEMPOOL_API): () => void {
  let snapshot = INITIAL_SNAPSHOT;
  let closed = false;
  let source: EventSource | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = FIRST_RETRY_MS;
  let everLive = false;
  const aborter = new AbortController();

  const update = (patch: Partial<LiveSnapshot>) => {
    if (closed) return;
    snapshot = { ...snapshot, ...patch };
    emit(snapshot);
  };
  const accept = (state: MempoolDashboardState) => {
    if (isNewer(state, snapshot.state)) update({ state, problem: null });
  };

  const connect = () => {
    const stream = new EventSource(`${base}/stream`);
    source = stream;
    stream.onopen = () => {
      everLive = true;
      retryMs = FIRST_RETRY_MS;
      update({ status: 'live', problem: snapshot.problem === UNREACHABLE ? null : snapshot.problem });
    };
    stream.addEventListener('state', (event) => {
      try {
        // A MessageEvent; read structurally, as the DOM and Node typings of it differ.
        accept(JSON.parse(String((event as { data?: unknown }).data)) as MempoolDashboardState);
      } catch (error) {
        // One bad frame must not stop the page; the next state replaces it anyway.
        console.error('mempool stream: unreadable state', error);
      }
    });
    stream.onerror = () => {
      update({ status: everLive ? 'reconnecting' : 'connecting' });
      if (stream.readyState !== EventSource.CLOSED) return;
      stream.close();
      retryTimer = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    };
  };

  const loadFirst = async () => {
    try {
      const response = await fetch(`${base}/state`, { headers: { accept: 'application/json' }, signal: aborter.signal });
      const clockOffsetMs = clockOffsetFrom(response.headers.get('date'), Date.now());
      const body: unknown = await response.json().catch(() => null);
      if (response.ok) {
        update({ clockOffsetMs });
        accept(body as MempoolDashboardState);
      } else if (snapshot.state === null) {
        const problem = response.status === 503 ? NOT_READY : (messageOf(body) ?? `The server answered ${response.status}.`);
        update({ clockOffsetMs, problem });
      }
    } catch (error) {
      if (aborter.signal.aborted) return;
      console.error('mempool state: request failed', error);
      if (snapshot.state === null) update({ problem: UNREACHABLE });
    }
  };

  connect();
  void loadFirst();
  return () => {
    closed = true;
    aborter.abort();
    clearTimeout(retryTimer);
    source?.close();
  };
}

/** The live snapshot for a component; the connection lives as long as the component. */
export function useMempoolLive(base = MEMPOOL_API): LiveSnapshot {
  const [snapshot, setSnapshot] = useState(INITIAL_SNAPSHOT);
  useEffect(() => openMempoolLive(setSnapshot, base), [base]);
  return snapshot;
}
