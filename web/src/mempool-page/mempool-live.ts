import { useEffect, useState } from 'react';
import { onStoredSessionChange, readStoredSession } from '../auth/token-storage.ts';
import type { MempoolDashboardState } from './mempool-state.ts';
import { clockOffsetFrom, isNewer } from './live-rules.ts';
import { createSseParser } from './sse-parser.ts';

/**
 * The dashboard's one source of data: GET /mempool/api/state for the first
 * paint, then the Server-Sent Events stream for every update. The state is
 * replaced whole each time, so whatever arrives last (and is not older) wins.
 * While the stream is down the last state stays on screen, marked as such.
 *
 * The pool's mempool is private unless its operator made this view public,
 * so both requests carry the staff session's token when this browser has
 * one: the page is on the portal's origin and reads the token set the
 * sign-in layer stores (auth/token-storage.ts), and sends it as an
 * Authorization header, never in a URL (URLs end up in logs). EventSource
 * cannot send headers, so the stream is read with fetch() and parsed here
 * (sse-parser.ts), reconnecting as EventSource would. A 401 (no token, or
 * one expired or refused) stops everything and says the view is private;
 * a sign-in in another tab or the dashboard around the frame starts it again.
 */

export const MEMPOOL_API = '/mempool/api';

export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'private';

export interface LiveSnapshot {
  state: MempoolDashboardState | null;
  status: ConnectionStatus;
  /** Why there is nothing to show yet (the engine's first projection pending, the server unreachable, the view private). */
  problem: string | null;
  /** The server's clock minus ours (ms), from the Date header; "updated N s ago" is measured on the server's clock. */
  clockOffsetMs: number;
}

export const INITIAL_SNAPSHOT: LiveSnapshot = { state: null, status: 'connecting', problem: null, clockOffsetMs: 0 };

export const UNREACHABLE = 'Cannot reach the server. Retrying…';
/** The server's 503 before the engine's first projection; this page needs no "try again": it updates by itself. */
export const NOT_READY = 'The mempool engine is working out its first projection. This page updates by itself.';
/** The server's 401: the view is for signed-in staff, and this browser has no valid staff session. */
export const PRIVATE_VIEW = 'The mempool view is private: sign in to the dashboard to see it.';

// A dropped stream is retried after the server's `retry:` delay (until it sends one, EventSource's usual 3 s).
const DEFAULT_RECONNECT_MS = 3_000;
// A refused one (429, 503) is retried backing off.
const FIRST_RETRY_MS = 2_000;
const MAX_RETRY_MS = 30_000;
// The server ends each stream after a few minutes so that its viewer is checked again: a stream that lived
// this long and ended cleanly is reopened at once, without showing "Reconnecting…".
const LONG_LIVED_MS = 10_000;

/** The staff session's bearer header, when this browser holds one (the server decides whether it is still good). */
function authorization(): Record<string, string> {
  const session = readStoredSession();
  return session ? { authorization: `Bearer ${session.idToken}` } : {};
}

function messageOf(body: unknown): string | null {
  return body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' ? body.message : null;
}

/** Opens the feed; `emit` gets every new snapshot. Answers the function that closes it. */
export function openMempoolLive(emit: (snapshot: LiveSnapshot) => void, base = MEMPOOL_API): () => void {
  let snapshot = INITIAL_SNAPSHOT;
  let closed = false;
  /** Aborts the requests of the current run (stopped when the view turns out private, or on close). */
  let run = new AbortController();
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let refusedRetryMs = FIRST_RETRY_MS;
  let reconnectMs = DEFAULT_RECONNECT_MS;
  let everLive = false;

  const update = (patch: Partial<LiveSnapshot>) => {
    if (closed) return;
    snapshot = { ...snapshot, ...patch };
    emit(snapshot);
  };
  const accept = (state: MempoolDashboardState) => {
    if (isNewer(state, snapshot.state)) update({ state, problem: null });
  };
  const later = (fn: () => void, ms: number) => {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(fn, ms);
  };

  /** 401: nothing more is asked until the stored session changes. What was on screen goes too. */
  const becomePrivate = () => {
    run.abort();
    clearTimeout(retryTimer);
    update({ status: 'private', state: null, problem: PRIVATE_VIEW });
  };

  const connect = async (signal: AbortSignal) => {
    let response: Response;
    try {
      response = await fetch(`${base}/stream`, { headers: { accept: 'text/event-stream', ...authorization() }, cache: 'no-store', signal });
    } catch {
      if (signal.aborted) return;
      // Unreachable: as EventSource, try again after the reconnection delay.
      update({ status: everLive ? 'reconnecting' : 'connecting' });
      later(() => void connect(signal), reconnectMs);
      return;
    }
    if (response.status === 401) {
      becomePrivate();
      return;
    }
    if (!response.ok || response.body === null) {
      // Refused (too many streams, shutting down): EventSource would give up; we back off and try again.
      void response.body?.cancel();
      update({ status: everLive ? 'reconnecting' : 'connecting' });
      later(() => void connect(signal), refusedRetryMs);
      refusedRetryMs = Math.min(refusedRetryMs * 2, MAX_RETRY_MS);
      return;
    }
    everLive = true;
    refusedRetryMs = FIRST_RETRY_MS;
    update({ status: 'live', problem: snapshot.problem === UNREACHABLE ? null : snapshot.problem });
    const openedAt = Date.now();
    const parser = createSseParser({
      retry: (ms) => {
        reconnectMs = ms;
      },
      event: (type, data) => {
        if (type !== 'state') return;
        try {
          accept(JSON.parse(data) as MempoolDashboardState);
        } catch (error) {
          // One bad frame must not stop the page; the next state replaces it anyway.
          console.error('mempool stream: unreadable state', error);
        }
      },
    });
    let ended = false;
    try {
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
      ended = true;
    } catch {
      // The connection dropped mid-stream (or was aborted).
    }
    if (signal.aborted) return;
    if (ended && Date.now() - openedAt >= LONG_LIVED_MS) {
      // The server's periodic end: reopen at once, still live.
      void connect(signal);
      return;
    }
    update({ status: 'reconnecting' });
    later(() => void connect(signal), reconnectMs);
  };

  const loadFirst = async (signal: AbortSignal) => {
    try {
      const response = await fetch(`${base}/state`, { headers: { accept: 'application/json', ...authorization() }, signal });
      const clockOffsetMs = clockOffsetFrom(response.headers.get('date'), Date.now());
      const body: unknown = await response.json().catch(() => null);
      if (response.status === 401) {
        becomePrivate();
      } else if (response.ok) {
        update({ clockOffsetMs });
        accept(body as MempoolDashboardState);
      } else if (snapshot.state === null) {
        const problem = response.status === 503 ? NOT_READY : (messageOf(body) ?? `The server answered ${response.status}.`);
        update({ clockOffsetMs, problem });
      }
    } catch (error) {
      if (signal.aborted) return;
      console.error('mempool state: request failed', error);
      if (snapshot.state === null) update({ problem: UNREACHABLE });
    }
  };

  const start = () => {
    run = new AbortController();
    void connect(run.signal);
    void loadFirst(run.signal);
  };

  // Signed in (or out) elsewhere, e.g. the dashboard around this frame: a private view tries again with the new session.
  const stopWatching = onStoredSessionChange(() => {
    if (closed || snapshot.status !== 'private') return;
    everLive = false;
    update({ status: 'connecting', problem: null });
    start();
  });

  start();
  return () => {
    closed = true;
    stopWatching();
    run.abort();
    clearTimeout(retryTimer);
  };
}

/** The live snapshot for a component; the connection lives as long as the component. */
export function useMempoolLive(base = MEMPOOL_API): LiveSnapshot {
  const [snapshot, setSnapshot] = useState(INITIAL_SNAPSHOT);
  useEffect(() => openMempoolLive(setSnapshot, base), [base]);
  return snapshot;
}
