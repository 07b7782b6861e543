import { hash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Queryable } from '../db/database.ts';
import { auditIdBefore, chainBatch, chainHead, rowBeyondHead } from './audit-log.repository.ts';

/**
 * The audit trail's hash chain (migration 012_audit_hash_chain.sql): each row
 * stores the previous row's hash (in id order) and its own,
 *
 *   row_hash = SHA-256(prev_hash || encoding(row))
 *
 * The first row's prev_hash is GENESIS (32 zero bytes). Rows that were
 * there before the migration have their hashes in audit_log_hashes instead
 * (writing them into audit_logs would have rewritten the table). The encoding is
 * defined once in SQL (audit_log_encoding), which the verification and the
 * migration's backfill use; `rowEncoding` below is the same in JavaScript, for
 * the writer, which hashes a batch before inserting it. A test keeps the two
 * identical (the writer's rows must verify).
 */

export const GENESIS: Buffer = Buffer.alloc(32);

/** A row's content as it is stored (after the writer's NUL escaping), with the id it is inserted under. */
export interface ChainedRowContent {
  id: number;
  ipAddress: string | null;
  endpoint: string | null;
  httpMethod: string | null;
  clientCode: string | null;
  requestAt: Date;
  requestPayload: string | null;
  responsePayload: string | null;
  responseTimeMs: number | null;
  errorMessage: string | null;
  sourceType: string | null;
  isSuccess: boolean;
}

/** The encoding's fixed part: id, request_at, the float's tag and value, is_success. */
const FIXED_BYTES = 8 + 8 + 9 + 1;
/** Per text column: its null/present tag and, when present, its byte length. */
const TEXT_HEADER_BYTES = 5;
const TEXT_COLUMNS = 8;

const textBytes = (value: string | null) => (value === null ? 1 : TEXT_HEADER_BYTES + Buffer.byteLength(value, 'utf8'));

/**
 * Writes `prefix` then the row's encoding into one buffer, reused from call
 * to call (the writer hashes every request's row: a buffer per column and a
 * hash update per buffer cost more than the hashing). The result is valid
 * until the next call.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);
function encodeAfter(prefix: Uint8Array, row: ChainedRowContent): Buffer {
  const texts = [row.ipAddress, row.endpoint, row.httpMethod, row.clientCode, row.requestPayload, row.responsePayload, row.errorMessage, row.sourceType];
  let size = prefix.length + FIXED_BYTES;
  for (const value of texts) size += textBytes(value);
  if (size > scratch.length) scratch = Buffer.allocUnsafe(Math.max(size, 2 * scratch.length));
  const out = scratch;
  out.set(prefix);
  let at = prefix.length;
  const text = (value: string | null) => {
    if (value === null) {
      out[at++] = 0;
      return;
    }
    out[at] = 1;
    const written = out.write(value, at + TEXT_HEADER_BYTES, 'utf8');
    out.writeUInt32BE(written, at + 1);
    at += TEXT_HEADER_BYTES + written;
  };
  at = out.writeBigInt64BE(BigInt(row.id), at);
  text(row.ipAddress);
  text(row.endpoint);
  text(row.httpMethod);
  text(row.clientCode);
  // A JavaScript Date holds whole milliseconds, which timestamptz stores exactly.
  at = out.writeBigInt64BE(BigInt(row.requestAt.getTime()) * 1000n, at);
  text(row.requestPayload);
  text(row.responsePayload);
  if (row.responseTimeMs === null) out[at++] = 0;
  else {
    out[at++] = 1;
    // + 0 turns -0 into 0: a parameter -0 reaches Postgres as the text '0'.
    at = out.writeDoubleBE(row.responseTimeMs + 0, at);
  }
  text(row.errorMessage);
  text(row.sourceType);
  out[at++] = row.isSuccess ? 1 : 0;
  if (at !== size || texts.length !== TEXT_COLUMNS) throw new Error(`audit row encoding: wrote ${at} bytes of ${size}`);
  return out.subarray(0, at);
}

/** audit_log_encoding(row) of the migration, byte for byte. */
export function rowEncoding(row: ChainedRowContent): Buffer {
  return Buffer.from(encodeAfter(new Uint8Array(0), row));
}

/** SHA-256(prevHash || encoding). */
export function rowHash(prevHash: Uint8Array, row: ChainedRowContent): Buffer {
  return hash('sha256', encodeAfter(prevHash, row), 'buffer');
}

export type ChainBreak = 'changed' | 'removed' | 'unchained' | 'rewritten';

/** A row's hash noted down earlier (a verification's head_id and head_hash), to check the chain against. */
export interface ChainAnchor {
  id: number;
  /** 64 hex digits. */
  hash: string;
}

export type ChainVerification =
  | { ok: true; verified: number; headId: number | null; headHash: string }
  | {
      ok: false;
      verified: number;
      /** The first row that fails, or for rows removed at the end, the newest row the head records. */
      firstBrokenId: number;
      /** The last row that verified before it; null when the first row already fails. */
      lastIntactId: number | null;
      reason: ChainBreak;
      message: string;
      headId: number | null;
      headHash: string;
    };

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Walks the chain in id order, `batchSize` rows per statement, up to the
 * newest row the head recorded when the walk began (rows appended meanwhile
 * are left for the next verification). Each statement checks its rows in the
 * database and answers only the ones that fail and its last row, so a million
 * rows cost a few hundred small answers, not the rows themselves; a turn of
 * the event loop between batches lets other requests through (on PGlite the
 * statements run on this thread). No transaction spans the walk: on PGlite
 * it would hold the one connection for all of it.
 *
 * With an anchor, the row it names must still have the hash noted for it:
 * a chain whose every hash was recomputed after a change verifies on its
 * own, but not against a hash kept outside the database ('rewritten').
 */
export async function verifyAuditChain(db: Queryable, options: { batchSize?: number; anchor?: ChainAnchor } = {}): Promise<ChainVerification> {
  const anchor = options.anchor ? { id: options.anchor.id, hash: options.anchor.hash.toLowerCase() } : undefined;
  let anchorSeen = false;
  // 1,000 rows: at most about 70 ms of hashing per statement on PGlite, which runs it on this thread
  // (rows of the audit bench's sizes, server/bench/audit-list.ts).
  const batchSize = options.batchSize ?? 1_000;
  const head = await chainHead(db);
  if (!head) throw new Error('The audit chain has no head row (audit_chain_head is empty): it was deleted from the database');
  const headId = head.last_id;
  const headHash = hex(head.last_hash);
  let verified = 0;
  let lastIntactId: number | null = null;
  let previousHash: Uint8Array = GENESIS;
  const broken = (firstBrokenId: number, reason: ChainBreak, message: string): ChainVerification => ({
    ok: false, verified, firstBrokenId, lastIntactId, reason, message, headId, headHash,
  });

  while (headId !== null) {
    const rows = await chainBatch(db, { afterId: lastIntactId ?? 0, headId, previousHash, batchSize, anchorId: anchor?.id ?? null });
    for (const row of rows) {
      const failed = row.unchained || row.intact !== true || row.linked !== true;
      const anchorMismatch = !failed && row.id === anchor?.id && hex(row.row_hash!) !== anchor.hash;
      if (row.id === anchor?.id) anchorSeen = true;
      if (!failed && !anchorMismatch) continue;
      verified += row.n - 1;
      // The rows before it in this batch verified; the last of them is the one before it by id.
      if (row.n > 1) lastIntactId = await auditIdBefore(db, row.id);
      if (row.unchained) return broken(row.id, 'unchained', `Row ${row.id} has no hash: it was not written by the portal's audit writer, or its hashes were cleared.`);
      if (!row.intact) return broken(row.id, 'changed', `Row ${row.id} does not match its hash: its content was changed after it was written.`);
      if (!row.linked) return broken(row.id, 'removed', `Row ${row.id} is chained to a row that is no longer there: a row before it was removed${lastIntactId === null ? '' : ` (after row ${lastIntactId})`}.`);
      return broken(row.id, 'rewritten', `Row ${row.id} no longer has the hash noted for it: the chain up to it was recomputed after a change.`);
    }
    const last = rows.at(-1);
    if (!last) break;
    verified += last.n;
    lastIntactId = last.id;
    previousHash = last.row_hash!;
    if (last.n < batchSize) break;
    await nextTurn();
  }

  if (headId !== null && (lastIntactId !== headId || hex(previousHash) !== headHash)) {
    return broken(headId, 'removed', `The chain ends at ${lastIntactId === null ? 'no row' : `row ${lastIntactId}`}, but the newest row written was ${headId}: the newest rows were removed.`);
  }
  // A row beyond the head (in one snapshot with it, so no append in flight) was not appended by the writer.
  const stray = await rowBeyondHead(db);
  if (stray !== null) {
    return broken(stray, 'unchained', `Row ${stray} was added after the newest row the audit writer chained: it was not written by the portal.`);
  }
  if (anchor && !anchorSeen) return broken(anchor.id, 'removed', `Row ${anchor.id}, whose hash was noted, is no longer in the chain.`);
  return { ok: true, verified, headId, headHash };
}

/**
 * One verification at a time per instance and anchor: a second request
 * while one runs shares its answer rather than walking the trail again
 * beside it.
 */
export function createAuditChainVerifier(db: Queryable, options: { batchSize?: number } = {}): { verify(anchor?: ChainAnchor): Promise<ChainVerification> } {
  const running = new Map<string, Promise<ChainVerification>>();
  return {
    verify(anchor) {
      const key = anchor ? `${anchor.id}:${anchor.hash.toLowerCase()}` : '';
      let verification = running.get(key);
      if (!verification) {
        verification = verifyAuditChain(db, { ...options, ...(anchor ? { anchor } : {}) }).finally(() => running.delete(key));
        running.set(key, verification);
      }
      return verification;
    },
  };
}
