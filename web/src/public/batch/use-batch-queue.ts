import { useCallback, useEffect, useRef, useState } from 'react';
import { MAX_ENTRIES, tooManyEntries, type BatchEntry } from './batch-input.ts';
import {
  decodeUnreachable,
  dropItems,
  loadQueue,
  newRows,
  nextToParse,
  nextToSend,
  queueUnsent,
  REDECODE_FIRST_MS,
  REDECODE_MAX_MS,
  REDECODE_MAX_TRIES,
  removeRow,
  reparseUnreachable,
  reparseUnsent,
  saveItems,
  saveRows,
  unqueue,
  updateRow,
  type QueueRow,
  type StoredQueue,
} from './batch-queue.ts';
import { PARSE_UNAVAILABLE_STOPPED, parseRow, sendRow } from './batch-sender.ts';

export interface BatchQueue {
  rows: QueueRow[];
  clientCode: string;
  /** A send (or decode) is waiting out a 429 until then (ms since epoch). */
  waitUntil: number | null;
  sending: boolean;
  /** Session storage refused the queue (full): it lives only as long as the tab. */
  notKept: boolean;
  /** Throws BatchInputError, adding nothing, when the queue has no room for them all. */
  add: (entries: BatchEntry[]) => void;
  remove: (id: string) => void;
  clear: () => void;
  sendAll: () => void;
  retry: (id: string) => void;
  stop: () => void;
  setClientCode: (code: string) => void;
}

const storage = () => window.sessionStorage;

/**
 * The queue's state, kept in session storage as it changes, with two loops
 * working through it one request at a time: one decodes new rows, the other
 * sends the rows the user asked to send, in queue order. Both stop when the
 * page goes away; the rows they had not finished come back as they were.
 */
export function useBatchQueue(): BatchQueue {
  const [queue, setQueue] = useState<StoredQueue>(() => loadQueue(storage()));
  const [waitUntil, setWaitUntil] = useState<number | null>(null);
  const [sending, setSending] = useState(false);
  const [notKept, setNotKept] = useState(false);
  const [parserRuns, setParserRuns] = useState(0);
  // The loops read and change the queue between renders: the ref is the truth, the state its last render.
  const current = useRef(queue);
  const alive = useRef(new AbortController());
  const parsing = useRef(false);
  const sendLoop = useRef<AbortController | null>(null);
  /** Decodes tried again in a row while the server stays out of reach (the pause doubles with each). */
  const redecodes = useRef(0);
  /** Rows being decoded again after the server was out of reach: one of them decoding is the sign it is back. */
  const redecoding = useRef(new Set<string>());

  const commit = useCallback((change: (q: StoredQueue) => StoredQueue, added: QueueRow[] = []) => {
    current.current = change(current.current);
    setQueue(current.current);
    // Gone (a send finishing after the page was left): the storage is the next page's now, and this copy is stale.
    // The row it was sending comes back as not sent, as after a reload.
    if (alive.current.signal.aborted) return;
    // Storage full: the queue still works in this tab. Entries not kept are not left behind to fill it further.
    try {
      saveItems(storage(), added);
    } catch {
      dropItems(storage(), added.map((row) => row.id));
      setNotKept(true);
    }
    try {
      saveRows(storage(), current.current);
    } catch {
      setNotKept(true);
    }
  }, []);

  const setRow = useCallback(
    (id: string, change: Partial<Pick<QueueRow, 'parse' | 'send'>>) => commit((q) => ({ ...q, rows: updateRow(q.rows, id, change) })),
    [commit],
  );

  useEffect(() => {
    const controller = new AbortController();
    alive.current = controller;
    return () => {
      controller.abort();
      sendLoop.current?.abort();
    };
  }, []);

  // Decoding: whenever a row waits to be decoded and no loop is at it.
  useEffect(() => {
    if (parsing.current || !nextToParse(queue.rows)) return;
    parsing.current = true;
    const signal = alive.current.signal;
    void (async () => {
      try {
        for (let row = nextToParse(current.current.rows); row && !signal.aborted; row = nextToParse(current.current.rows)) {
          const code = current.current.clientCode;
          let parse = await parseRow(row, code, { signal, onWait: setWaitUntil });
          const unreachable = parse.state === 'failed' && parse.unreachable === true;
          // Only a row that had found the server out of reach getting an answer says it is back: other rows
          // decoding fine meanwhile (one entry the server keeps failing on with a 5xx, say) keep the pause growing.
          if (redecoding.current.delete(row.id) && !unreachable) redecodes.current = 0;
          if (unreachable && redecodes.current >= REDECODE_MAX_TRIES) parse = { state: 'failed', message: PARSE_UNAVAILABLE_STOPPED, unreachable: true };
          // A client code changed meanwhile: the row is decoded again with it.
          if (current.current.clientCode === code) setRow(row.id, { parse });
        }
      } catch (error) {
        if (!signal.aborted) throw error;
      } finally {
        parsing.current = false;
        setParserRuns((n) => n + 1);
      }
    })();
  }, [queue.rows, parserRuns, setRow]);

  // Rows the server could not decode because it was out of reach: decoded again on their own, after a
  // pause that doubles while it stays out of reach (up to REDECODE_MAX_TRIES times), and at once when the
  // browser says it is back online.
  const unreachable = queue.rows.some(decodeUnreachable);
  useEffect(() => {
    if (!unreachable) return;
    const again = () => {
      redecodes.current++;
      for (const row of current.current.rows) if (decodeUnreachable(row)) redecoding.current.add(row.id);
      commit((q) => ({ ...q, rows: reparseUnreachable(q.rows) }));
    };
    const timer = redecodes.current < REDECODE_MAX_TRIES ? setTimeout(again, Math.min(REDECODE_MAX_MS, REDECODE_FIRST_MS * 2 ** redecodes.current)) : undefined;
    window.addEventListener('online', again);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('online', again);
    };
  }, [unreachable, parserRuns, commit]);

  const startSending = useCallback(() => {
    const run = () => {
      if (sendLoop.current) return;
      const controller = new AbortController();
      sendLoop.current = controller;
      setSending(true);
      const signal = controller.signal;
      void (async () => {
        try {
          for (let row = nextToSend(current.current.rows); row && !signal.aborted; row = nextToSend(current.current.rows)) {
            const id = row.id;
            setRow(id, { send: { state: 'sending' } });
            const onWait = (until: number | null) => {
              setWaitUntil(until);
              setRow(id, { send: until === null ? { state: 'sending' } : { state: 'waiting', until } });
            };
            try {
              setRow(id, { send: await sendRow(row, current.current.clientCode, { signal, onWait }) });
            } catch (error) {
              if (!signal.aborted) throw error;
              setRow(id, { send: { state: 'unsent' } });
            }
          }
        } finally {
          sendLoop.current = null;
          setSending(false);
          setWaitUntil(null);
          // Stopped with a send in flight, then a row retried: its Retry found this loop still finishing, so
          // the loop hands over to a new one rather than leave that row waiting its turn for ever.
          if (signal.aborted && !alive.current.signal.aborted && nextToSend(current.current.rows)) run();
        }
      })();
    };
    run();
  }, [setRow]);

  const add = useCallback(
    (entries: BatchEntry[]) => {
      // The page's room was read before an archive finished unpacking; rows added meanwhile count too.
      const room = MAX_ENTRIES - current.current.rows.length;
      if (entries.length > room) throw tooManyEntries(entries.length, room);
      const added = newRows(entries);
      commit((q) => ({ ...q, rows: [...q.rows, ...added] }), added);
    },
    [commit],
  );
  const remove = useCallback(
    (id: string) => {
      commit((q) => ({ ...q, rows: removeRow(q.rows, id) }));
      dropItems(storage(), [id]);
    },
    [commit],
  );
  const clear = useCallback(() => {
    const ids = current.current.rows.map((row) => row.id);
    commit((q) => ({ ...q, rows: [] }));
    dropItems(storage(), ids);
    setNotKept(false);
  }, [commit]);
  const sendAll = useCallback(() => {
    commit((q) => ({ ...q, rows: queueUnsent(q.rows) }));
    startSending();
  }, [commit, startSending]);
  const retry = useCallback(
    (id: string) => {
      setRow(id, { send: { state: 'queued' } });
      startSending();
    },
    [setRow, startSending],
  );
  const stop = useCallback(() => {
    commit((q) => ({ ...q, rows: unqueue(q.rows) }));
    sendLoop.current?.abort();
  }, [commit]);
  const setClientCode = useCallback(
    (code: string) => commit((q) => ({ clientCode: code, rows: code.trim() === q.clientCode.trim() ? q.rows : reparseUnsent(q.rows) })),
    [commit],
  );

  return { rows: queue.rows, clientCode: queue.clientCode, waitUntil, sending, notKept, add, remove, clear, sendAll, retry, stop, setClientCode };
}
