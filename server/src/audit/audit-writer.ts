import type { Database } from '../db/database.ts';
import type { Logger } from '../lib/logger.ts';
import { rowHash, type ChainedRowContent } from './audit-chain.ts';
import { appendChainedRows, AUDIT_COLUMNS, lockChainHead, nextAuditIds } from './audit-log.repository.ts';

/**
 * The audit trail is written off the request path: a request enqueues its row
 * and answers; rows are inserted in batches. An audit write therefore never
 * makes a request fail or wait. Rows that could not be written stay queued and
 * are retried; close() drains the queue so a graceful shutdown loses none.
 *
 * Each batch is appended to the trail's hash chain (audit-chain.ts): in one
 * transaction the writer locks the chain's head row, takes the batch's ids
 * from the sequence (under the lock, so they follow every id chained before),
 * hashes each row onto the previous one, inserts the batch and moves the
 * head. Writers of several portal instances take turns on the head's lock;
 * one of them waits for at most one batch of another's.
 */

export interface AuditRow {
  ipAddress: string;
  endpoint: string;
  httpMethod: string;
  clientCode: string | null;
  requestAt: Date;
  requestPayload: string | null;
  responsePayload: string | null;
  responseTimeMs: number;
  errorMessage: string | null;
  sourceType: 'Internal' | 'External';
  isSuccess: boolean;
}

export interface AuditWriter {
  push(row: AuditRow): void;
  /** Write everything queued now. Resolves when the queue is empty or a write failed. */
  flush(): Promise<void>;
  /** Stop the timer and drain the queue, retrying for up to `timeoutMs`. */
  close(timeoutMs?: number): Promise<void>;
  stats(): { queued: number; written: number; dropped: number; failedWrites: number };
  /**
   * When the oldest row not yet written was queued (Unix ms); undefined when
   * none waits. The metrics' audit write lag. Optional for writers that keep
   * nothing (the OpenAPI build's, the benchmark's).
   */
  oldestQueuedAtMs?(): number | undefined;
}

export interface AuditWriterOptions {
  flushIntervalMs?: number;
  batchSize?: number;
  /**
   * Beyond this many queued rows (not counting the batch being written) the
   * oldest are dropped (and counted) rather than exhausting memory.
   */
  maxQueued?: number;
  /** Likewise for the payload text queued (characters): rows carry payloads of up to tens of KB. */
  maxQueuedChars?: number;
}

/** When the hook queued a row: it takes the request's start and adds the response time. */
const queuedAtMs = (row: AuditRow | undefined) => (row === undefined ? undefined : row.requestAt.getTime() + row.responseTimeMs);

/** Payload text plus a fixed allowance for the other columns. */
const rowChars = (row: AuditRow) => (row.requestPayload?.length ?? 0) + (row.responsePayload?.length ?? 0) + 256;

/**
 * Postgres text cannot hold U+0000, and one such row would fail its whole
 * batch again on every retry, holding up every row behind it. What a caller
 * sent is recorded, with the NUL written as the escape \u0000. Likewise a
 * lone UTF-16 surrogate (a JSON body may escape one into a string): the
 * batch's JSON would carry it as an escape Postgres refuses, so it is
 * stored as U+FFFD, which is what its UTF-8 encoding (and the row's hash)
 * makes of it anyway.
 */
function storable(text: string | null): string | null {
  if (text === null) return null;
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\0') ? wellFormed.replaceAll('\0', '\\u0000') : wellFormed;
}

/** The row as it will be stored, under its id: what its hash covers. */
function stored(row: AuditRow, id: number): ChainedRowContent {
  return {
    id,
    ipAddress: storable(row.ipAddress),
    endpoint: storable(row.endpoint),
    httpMethod: storable(row.httpMethod),
    clientCode: storable(row.clientCode),
    requestAt: row.requestAt,
    requestPayload: storable(row.requestPayload),
    responsePayload: storable(row.responsePayload),
    responseTimeMs: row.responseTimeMs,
    errorMessage: storable(row.errorMessage),
    sourceType: row.sourceType,
    isSuccess: row.isSuccess,
  };
}

const hex = (bytes: Uint8Array) => `\\x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;

/**
 * The row as one element of the batch's JSON array, keyed by column: a batch
 * is inserted as a single json parameter (json_populate_recordset) rather
 * than 14 parameters a row. Binding thousands of parameters and planning a
 * VALUES list that long cost more, in Node and in Postgres, than the row
 * itself. Each value goes through its column type's input function, as a
 * text parameter would: bytea from its hex form, timestamptz from the ISO
 * time with milliseconds, float8 from the shortest text that round-trips.
 */
function storedRecord(row: ChainedRowContent, prevHash: Uint8Array, hash: Uint8Array): Record<(typeof AUDIT_COLUMNS)[number], unknown> {
  return {
    id: row.id, ip_address: row.ipAddress, endpoint: row.endpoint, http_method: row.httpMethod, client_code: row.clientCode,
    request_at: row.requestAt.toISOString(), request_payload: row.requestPayload, response_payload: row.responsePayload,
    response_time_ms: row.responseTimeMs, error_message: row.errorMessage, source_type: row.sourceType, is_success: row.isSuccess,
    prev_hash: hex(prevHash), row_hash: hex(hash),
  };
}

export function createAuditWriter(db: Pick<Database, 'query' | 'transaction'>, log: Logger, options: AuditWriterOptions = {}): AuditWriter {
  const flushIntervalMs = options.flushIntervalMs ?? 200;
  const batchSize = options.batchSize ?? 500;
  const maxQueued = options.maxQueued ?? 200_000;
  const maxQueuedChars = options.maxQueuedChars ?? 64 * 1024 * 1024;
  let queue: AuditRow[] = [];
  /** Characters in `queue` (not the batch in flight). */
  let queuedChars = 0;
  /**
   * Rows of the batch being written. They are out of `queue` meanwhile, so an
   * overflow during the write drops rows that are still only queued (and only
   * those are counted as dropped), and a successful write removes exactly its
   * own rows, never newer ones that moved up.
   */
  let inFlight = 0;
  /** The batch's first (oldest) row while it is written. */
  let inFlightFirst: AuditRow | undefined;
  let written = 0;
  let dropped = 0;
  let failedWrites = 0;
  let flushing: Promise<void> | undefined;
  let closed = false;

  async function writeBatch(batch: AuditRow[]): Promise<void> {
    await db.transaction(async (tx) => {
      const head = await lockChainHead(tx);
      if (!head) throw new Error('The audit chain has no head row (audit_chain_head is empty): it was deleted from the database');
      const ids = await nextAuditIds(tx, batch.length);
      let prevHash = head.last_hash;
      const records = batch.map((row, i) => {
        const content = stored(row, ids[i]!);
        const hash = rowHash(prevHash, content);
        const record = storedRecord(content, prevHash, hash);
        prevHash = hash;
        return record;
      });
      await appendChainedRows(tx, records, ids.at(-1)!, prevHash);
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, batchSize);
      queue = queue.slice(batch.length);
      queuedChars -= batch.reduce((n, row) => n + rowChars(row), 0);
      inFlight = batch.length;
      inFlightFirst = batch[0];
      try {
        await writeBatch(batch);
      } catch (error) {
        // Back to the front of the queue, oldest first; the bound applies again.
        inFlight = 0;
        inFlightFirst = undefined;
        queue = [...batch, ...queue];
        queuedChars += batch.reduce((n, row) => n + rowChars(row), 0);
        failedWrites++;
        log.warn({ err: error, queued: queue.length }, 'Audit write failed; rows stay queued');
        dropOldestBeyondBound();
        return;
      }
      inFlight = 0;
      inFlightFirst = undefined;
      written += batch.length;
    }
  }

  function dropOldestBeyondBound(): void {
    let excess = Math.max(0, queue.length - maxQueued);
    let chars = queuedChars;
    for (let i = 0; i < excess; i++) chars -= rowChars(queue[i]!);
    while (chars > maxQueuedChars && excess < queue.length) chars -= rowChars(queue[excess++]!);
    if (excess === 0) return;
    queue = queue.slice(excess);
    queuedChars = chars;
    dropped += excess;
    log.error({ dropped: excess }, 'Audit queue full; oldest rows dropped');
  }

  function flush(): Promise<void> {
    flushing ??= drain().finally(() => {
      flushing = undefined;
    });
    return flushing;
  }

  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref();

  return {
    push(row) {
      if (closed) log.warn({ endpoint: row.endpoint }, 'Audit row after close; writing it anyway');
      queue.push(row);
      queuedChars += rowChars(row);
      dropOldestBeyondBound();
      // After close() no timer runs: the push itself must start the write.
      if (closed || queue.length >= batchSize) void flush();
    },
    flush,
    async close(timeoutMs = 10_000) {
      closed = true;
      clearInterval(timer);
      const deadline = Date.now() + timeoutMs;
      while (queue.length > 0 || flushing) {
        await flush();
        if (queue.length === 0) break;
        if (Date.now() > deadline) {
          log.error({ lost: queue.length }, 'Audit rows could not be written before shutdown');
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    stats: () => ({ queued: queue.length + inFlight, written, dropped, failedWrites }),
    oldestQueuedAtMs: () => queuedAtMs(inFlightFirst ?? queue[0]),
  };
}
