import type { BatchEntry } from './batch-input.ts';

/**
 * The queue's rows and the changes made to them, as plain data: the page
 * keeps them in React state and in session storage, so a reload (or a look at
 * a status page and Back) finds the queue as it was. Nothing leaves the queue
 * unless the user removes it or clears the queue.
 */

/** One transaction of a row as parse-tx described it. */
export interface RowTx {
  txid?: string;
  vsize?: number;
  fee?: number | null;
  feeRate?: number | null;
  /** sat/vB counted with the unconfirmed parents it spends (what the server compares for a single transaction). */
  functionalRate?: number | null;
  meetsMinimum?: boolean | null;
  /** The server's words: why it cannot be decoded, or what its fee means. */
  message: string;
  error: boolean;
  /** Present when the entry was a PSBT: the fee the PSBT itself states (sats), null when it does not say. */
  psbt?: { statedFee: number | null };
}

export type ParseState =
  | { state: 'pending' }
  /** `at`: when the answer arrived (ms since epoch), to tell it from an older or newer minimum; absent in queues kept before it was. */
  | { state: 'done'; txs: RowTx[]; at?: number }
  /** `unreachable`: the server could not be asked (no network, or it answered 5xx); decoded again on its own. */
  | { state: 'failed'; message: string; unreachable?: boolean };

export type SendState =
  | { state: 'unsent' }
  | { state: 'queued' }
  | { state: 'sending' }
  /** Refused with 429: sending again at `until` (ms since epoch), as Retry-After asked. */
  | { state: 'waiting'; until: number }
  | { state: 'accepted'; txids: string[] }
  /**
   * `belowMinimum`: the row's transactions (by position) the server refused as paying less than the minimum at
   * send time, `at` (ms since epoch).
   */
  | { state: 'refused'; message: string; belowMinimum?: number[]; at?: number };

export interface QueueRow extends BatchEntry {
  id: string;
  parse: ParseState;
  send: SendState;
}

let counter = 0;
const newId = () => `${Date.now().toString(36)}-${(counter++).toString(36)}`;

export function newRows(entries: BatchEntry[]): QueueRow[] {
  return entries.map((e) => ({ ...e, id: newId(), parse: { state: 'pending' as const }, send: { state: 'unsent' as const } }));
}

export const removeRow = (rows: QueueRow[], id: string) => rows.filter((row) => row.id !== id);

export const updateRow = (rows: QueueRow[], id: string, change: Partial<Pick<QueueRow, 'parse' | 'send'>>) =>
  rows.map((row) => (row.id === id ? { ...row, ...change } : row));

/** Send all: every row not sent yet waits its turn, in queue order. */
export const queueUnsent = (rows: QueueRow[]) => rows.map((row) => (row.send.state === 'unsent' ? { ...row, send: { state: 'queued' as const } } : row));

/** Stop: rows still waiting their turn go back to not sent. */
export const unqueue = (rows: QueueRow[]) => rows.map((row) => (row.send.state === 'queued' ? { ...row, send: { state: 'unsent' as const } } : row));

/** What a row's transaction is said to be against the minimum; `message`: no verdict, the server's own words. */
export type Verdict = 'clears' | 'below' | 'cleared-when-sent' | 'message';

/** The newest minimum the page knows: the rate (sat/vB) and when it arrived (ms since epoch). */
export interface KnownMinimum {
  rate: number;
  at: number;
}

/** Whether `fee` sats for `vsize` vB clears `rate` sat/vB, as the server compares it (an integer fee against the fee the rate asks, rounded up). */
const clears = (fee: number, vsize: number, rate: number) => fee >= Math.ceil(rate * vsize - 1e-9);

/**
 * A row's verdict on one of its transactions, judged again whenever
 * something newer than the parse answer is known. The send's answer is the
 * truth: accepted, the row cleared the minimum; refused as below it, it is
 * below, whatever the parse said (until a newer minimum arrives: it can be
 * retried). A row not sent (or refused for another reason) is judged against
 * the newest minimum the page knows.
 *
 * A newer minimum is judged here, in the page, from the fee and sizes the
 * parse answer gave, rather than by decoding the unsent rows again: parse-tx
 * prices the transactions of one request together, as a package, so the
 * rows cannot share one request, and one request per row would spend the
 * public rate limit (a queue holds up to 1,000 rows) every time the market
 * moves. What the page cannot redo it leaves to the server: a client code's
 * discount (the page's minimum is the one without a code) and package members
 * paid for by the members spending them. Such a transaction is said to clear
 * when it clears even the minimum without a discount, on its own; otherwise
 * it keeps the parse verdict until its send answers.
 */
export function judge(row: QueueRow, index: number, minimum: KnownMinimum | undefined, withClientCode: boolean): Verdict {
  if (row.send.state === 'accepted') return 'cleared-when-sent';
  // Refused as below the minimum: so it is, until a minimum newer than that answer says otherwise (it can be retried).
  const refusedAt = row.send.state === 'refused' && row.send.belowMinimum?.includes(index) ? (row.send.at ?? 0) : undefined;
  if (refusedAt !== undefined && (!minimum || minimum.at <= refusedAt)) return 'below';
  if (row.parse.state !== 'done') return 'message';
  const tx = row.parse.txs[index];
  if (!tx || tx.error || tx.meetsMinimum === null || tx.meetsMinimum === undefined) return 'message';
  // What stands when the page cannot judge it itself: the send's refusal, else the parse answer.
  const parsed: Verdict = refusedAt !== undefined || !tx.meetsMinimum ? 'below' : 'clears';
  // The parse answer is newer than the page's minimum: it was judged against the newer one.
  if (!minimum || (refusedAt === undefined && (row.parse.at ?? 0) >= minimum.at)) return parsed;
  if (typeof tx.fee !== 'number' || typeof tx.vsize !== 'number') return parsed;
  // A single transaction is judged with the unconfirmed parents it spends as well (child pays for parent).
  const own = clears(tx.fee, tx.vsize, minimum.rate);
  const withParents = row.isPackage || typeof tx.functionalRate !== 'number' || tx.functionalRate >= minimum.rate - 1e-9;
  const cleared = own && withParents;
  if (cleared) return 'clears';
  return row.isPackage || withClientCode ? parsed : 'below';
}

/**
 * The server's refusals for a fee below the minimum at send time
 * (server/src/modules/submission/submission-rules.ts): a single transaction's,
 * and a package's, which names the member by its position from 1.
 */
const TX_BELOW_MINIMUM = 'The transaction fee is too low for this service.';
const PACKAGE_BELOW_MINIMUM = /^Transaction (\d+) of the package pays too low a fee for this service/;

/** Which of a row's transactions a refusal says were below the minimum. */
export function belowMinimum(message: string, isPackage: boolean): number[] {
  if (!isPackage) return message.startsWith(TX_BELOW_MINIMUM) ? [0] : [];
  const member = PACKAGE_BELOW_MINIMUM.exec(message);
  return member ? [Number(member[1]) - 1] : [];
}

/** The row's send answered otherwise than the page judges it without that answer: the page's minimum is out of date. */
export function contradicted(row: QueueRow, minimum: KnownMinimum | undefined, withClientCode: boolean): boolean {
  if (row.parse.state !== 'done' || (row.send.state !== 'accepted' && row.send.state !== 'refused')) return false;
  const unsent = { ...row, send: { state: 'unsent' as const } };
  const before = row.parse.txs.map((_, i) => judge(unsent, i, minimum, withClientCode));
  if (row.send.state === 'accepted') return before.includes('below');
  return (row.send.belowMinimum ?? []).some((i) => before[i] === 'clears');
}

/** The next row to send: the first one waiting its turn. */
export const nextToSend = (rows: QueueRow[]) => rows.find((row) => row.send.state === 'queued');

/** The next row to decode. */
export const nextToParse = (rows: QueueRow[]) => rows.find((row) => row.parse.state === 'pending');

/** Rows whose decoding used a client code must be decoded again when it changes (sent rows keep their answer). */
export const reparseUnsent = (rows: QueueRow[]) =>
  rows.map((row) => (row.send.state === 'accepted' || row.parse.state === 'pending' ? row : { ...row, parse: { state: 'pending' as const } }));

/** A row whose decoding failed only because the server could not be reached. */
export const decodeUnreachable = (row: QueueRow) => row.parse.state === 'failed' && row.parse.unreachable === true && row.send.state !== 'accepted';

/** Decodes that failed because the server was out of reach are tried again after this pause, doubled each time up to REDECODE_MAX_MS. */
export const REDECODE_FIRST_MS = 2_000;
export const REDECODE_MAX_MS = 60_000;
/**
 * Automatic tries in a row (about four minutes of pauses) before the timer
 * gives up on a portal that stays out of reach; the browser coming back
 * online, or a reload, still tries again.
 */
export const REDECODE_MAX_TRIES = 8;

/** Those rows, to be decoded again. */
export const reparseUnreachable = (rows: QueueRow[]) => rows.map((row) => (decodeUnreachable(row) ? { ...row, parse: { state: 'pending' as const } } : row));

// ---- session storage ----
// The rows' state is saved on every change; their entries, which can be
// megabytes, once when added, each under its own key.

export const ROWS_KEY = 'slipstream.batch-queue.v1';
export const itemsKey = (id: string) => `slipstream.batch-entry.v1.${id}`;

/** The part of the Storage interface the queue uses (sessionStorage in the page). */
export type QueueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface StoredQueue {
  rows: QueueRow[];
  clientCode: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

type StoredRow = Omit<QueueRow, 'items'>;

function isStoredRow(v: unknown): v is StoredRow {
  return (
    isObject(v) &&
    typeof v.id === 'string' &&
    typeof v.source === 'string' &&
    typeof v.isPackage === 'boolean' &&
    isObject(v.parse) &&
    typeof v.parse.state === 'string' &&
    isObject(v.send) &&
    typeof v.send.state === 'string'
  );
}

function readItems(storage: QueueStorage, id: string): string[] | undefined {
  try {
    const items: unknown = JSON.parse(storage.getItem(itemsKey(id)) ?? 'null');
    return Array.isArray(items) && items.every((item) => typeof item === 'string') ? items : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The queue a reload finds. A send that was under way when the page went
 * away may or may not have reached the server: such rows come back as not
 * sent, for the user to send again (the node answers a repeat with its own
 * verdict), never sent again by themselves. A row whose entry was not kept
 * (storage full) is not restored.
 */
export function loadQueue(storage: QueueStorage): StoredQueue {
  const empty = { rows: [], clientCode: '' };
  let value: unknown;
  try {
    value = JSON.parse(storage.getItem(ROWS_KEY) ?? 'null');
  } catch {
    return empty;
  }
  if (!isObject(value) || !Array.isArray(value.rows) || !value.rows.every(isStoredRow)) return empty;
  const rows: QueueRow[] = [];
  for (const row of value.rows) {
    const items = readItems(storage, row.id);
    if (!items) continue;
    const interrupted = row.send.state === 'queued' || row.send.state === 'sending' || row.send.state === 'waiting';
    rows.push({ ...row, items, ...(interrupted ? { send: { state: 'unsent' as const } } : {}) });
  }
  return { rows, clientCode: typeof value.clientCode === 'string' ? value.clientCode : '' };
}

/** Saves the rows' state; throws when the storage is full. */
export function saveRows(storage: QueueStorage, queue: StoredQueue): void {
  const rows: StoredRow[] = queue.rows.map(({ items: _items, ...row }) => row);
  storage.setItem(ROWS_KEY, JSON.stringify({ rows, clientCode: queue.clientCode }));
}

/** Saves new rows' entries; throws when the storage is full. */
export function saveItems(storage: QueueStorage, rows: QueueRow[]): void {
  for (const row of rows) storage.setItem(itemsKey(row.id), JSON.stringify(row.items));
}

export function dropItems(storage: QueueStorage, ids: string[]): void {
  for (const id of ids) storage.removeItem(itemsKey(id));
}
