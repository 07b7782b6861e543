import type { Queryable } from '../../db/database.ts';
import { closeQueuedJobsFrom, queueJobsFrom } from '../../jobs/job-queue.ts';

/**
 * Where tracking reads and writes: a single transaction's row in
 * tx_submissions, or a package member's row in package_tx_outcomes (its hex
 * lives in package_submissions). Both carry the same outcome columns.
 */

export type TrackedStatus = 'accepted' | 'confirmed' | 'replaced' | 'evicted' | 'conflicted';

export interface TrackedRecord {
  txid: string;
  source: 'tx' | 'package';
  status: TrackedStatus;
  txHex: string;
  createdAt: Date;
}

export interface MinedIn {
  hash: string;
  height: number;
  /** Block header time, Unix seconds. */
  time: number;
}

export type Settlement =
  | { status: 'replaced'; replacedBy: string | null; reason: string }
  | { status: 'conflicted'; reason: string }
  | { status: 'evicted'; reason: string };

export async function loadTracked(db: Queryable, txid: string): Promise<TrackedRecord | undefined> {
  const { rows } = await db.query<{ status: TrackedStatus; tx_hex: string; created_at: Date; source: 'tx' | 'package' }>(
    `SELECT status, tx_hex, created_at, 'tx' AS source FROM tx_submissions WHERE txid = $1 AND status <> 'pending'
     UNION ALL
     SELECT o.status, p.tx_hexes[array_position(p.txids, o.txid)], p.created_at, 'package'
     FROM package_tx_outcomes o
     JOIN LATERAL (SELECT txids, tx_hexes, created_at FROM package_submissions WHERE txids @> ARRAY[o.txid] ORDER BY id LIMIT 1) p ON true
     WHERE o.txid = $1
     LIMIT 1`,
    [txid],
  );
  const row = rows[0];
  return row && { txid, source: row.source, status: row.status, txHex: row.tx_hex, createdAt: row.created_at };
}

/** Statuses of the tracked transactions among `txids` (for parents of a transaction that left the mempool). */
export async function trackedStatuses(db: Queryable, txids: string[]): Promise<Map<string, { status: TrackedStatus; replacedBy: string | null }>> {
  if (txids.length === 0) return new Map();
  const { rows } = await db.query<{ txid: string; status: TrackedStatus; replaced_by: string | null }>(
    `SELECT txid, status, replaced_by FROM tx_submissions WHERE txid = ANY($1::text[]) AND status <> 'pending'
     UNION ALL
     SELECT txid, status, replaced_by FROM package_tx_outcomes WHERE txid = ANY($1::text[])`,
    [txids],
  );
  return new Map(rows.map((r) => [r.txid, { status: r.status, replacedBy: r.replaced_by }]));
}

/** Settles a transaction that left the mempool unmined; only while it is still open, so a confirmation found meanwhile wins. */
export async function settle(db: Queryable, txid: string, outcome: Settlement): Promise<void> {
  const replacedBy = outcome.status === 'replaced' ? outcome.replacedBy : null;
  const params = [txid, outcome.status, replacedBy, outcome.reason];
  const set = `status = $2, replaced_by = COALESCE($3, replaced_by), outcome_reason = $4, updated_at = now() WHERE txid = $1 AND status = 'accepted'`;
  await db.query(`WITH single AS (UPDATE tx_submissions SET ${set}) UPDATE package_tx_outcomes SET ${set}`, params);
}

/** Counts a hand-back to a node that had lost the transaction. */
export async function countRebroadcast(db: Queryable, txid: string): Promise<void> {
  const set = `rebroadcasts = rebroadcasts + 1, updated_at = now() WHERE txid = $1`;
  await db.query(`WITH single AS (UPDATE tx_submissions SET ${set}) UPDATE package_tx_outcomes SET ${set}`, [txid]);
}

/**
 * Marks the tracked transactions among a block's txids confirmed in it, and
 * closes their tracking jobs. A transaction that had been settled otherwise
 * (replaced, evicted) but was mined after all is confirmed too: the chain
 * has the last word. Returns the txids confirmed.
 */
export async function confirmInBlock(db: Queryable, txids: string[], block: MinedIn): Promise<string[]> {
  if (txids.length === 0) return [];
  const set = `status = 'confirmed', block_hash = $2, block_height = $3, block_time = to_timestamp($4), outcome_reason = NULL, updated_at = now()
     WHERE txid = ANY($1::text[]) AND status IN ('accepted', 'replaced', 'evicted', 'conflicted')`;
  const { rows } = await db.query<{ txid: string }>(
    `WITH single AS (UPDATE tx_submissions SET ${set} RETURNING txid),
          member AS (UPDATE package_tx_outcomes SET ${set} RETURNING txid),
          confirmed AS (SELECT txid FROM single UNION ALL SELECT txid FROM member),
          closed AS (${closeQueuedJobsFrom('track', 'confirmed', 'txid')})
     SELECT txid FROM confirmed`,
    [txids, block.hash, block.height, block.time],
  );
  return rows.map((r) => r.txid);
}

/** A block left the main chain (a reorg): what it confirmed is open again, and tracked again. */
export async function unconfirmBlock(db: Queryable, blockHash: string): Promise<string[]> {
  const set = `status = 'accepted', block_hash = NULL, block_height = NULL, block_time = NULL, updated_at = now() WHERE block_hash = $1 AND status = 'confirmed'`;
  const { rows } = await db.query<{ txid: string }>(
    `WITH single AS (UPDATE tx_submissions SET ${set} RETURNING txid),
          member AS (UPDATE package_tx_outcomes SET ${set} RETURNING txid),
          reopened AS (SELECT txid FROM single UNION ALL SELECT txid FROM member),
          tracked AS (
            ${queueJobsFrom('track', 'reopened', { column: 'txid', field: 'txid' })})
     SELECT txid FROM reopened`,
    [blockHash],
  );
  return rows.map((r) => r.txid);
}

export interface Cursor {
  hash: string;
  height: number;
}

export async function readCursor(db: Queryable): Promise<Cursor | undefined> {
  const { rows } = await db.query<{ block_hash: string; block_height: number }>(`SELECT block_hash, block_height FROM tracker_cursor`);
  return rows[0] && { hash: rows[0].block_hash, height: rows[0].block_height };
}

export async function writeCursor(db: Queryable, cursor: Cursor): Promise<void> {
  await db.query(
    `INSERT INTO tracker_cursor (id, block_hash, block_height) VALUES (true, $1, $2)
     ON CONFLICT (id) DO UPDATE SET block_hash = EXCLUDED.block_hash, block_height = EXCLUDED.block_height, updated_at = now()`,
    [cursor.hash, cursor.height],
  );
}

/** When the oldest transaction still being tracked was submitted, if any. */
export async function oldestOpenSubmission(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ oldest: Date | null }>(
    `SELECT least(
       (SELECT min(created_at) FROM tx_submissions WHERE status = 'accepted'),
       (SELECT min(p.created_at) FROM package_tx_outcomes o JOIN package_submissions p ON p.txids @> ARRAY[o.txid] WHERE o.status = 'accepted')) AS oldest`,
  );
  return rows[0]?.oldest ?? undefined;
}

/** The txids whose tracking jobs are waiting (not running), for matching against the mempool. */
export async function waitingTrackedTxids(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ txid: string }>(
    `SELECT payload->>'txid' AS txid FROM jobs WHERE kind = 'track' AND state = 'queued' ORDER BY id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.txid);
}

/**
 * Rows left 'pending' by a server that stopped between the node's answer and
 * the write after it. Only rows older than `olderThanMs`: younger ones may
 * belong to a request still waiting for the node.
 */
export async function stalePending(db: Queryable, olderThanMs: number, limit: number): Promise<Array<{ txid: string; claim: string | null }>> {
  const { rows } = await db.query<{ txid: string; claim: string | null }>(
    `SELECT txid, claim FROM tx_submissions
     WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows;
}

/**
 * A stale pending row becomes accepted and tracked. Its request may have told
 * the user "success" before it died, so the row is never dropped: tracking
 * finds it in the mempool or a block, or hands it back to the node, and
 * records the node's refusal (evicted, with its reason) if it has one.
 */
export async function acceptPending(db: Queryable, txid: string, claim: string | null): Promise<void> {
  await db.query(
    `WITH accepted AS (
       UPDATE tx_submissions SET status = 'accepted', claim = NULL, updated_at = now()
       WHERE txid = $1 AND status = 'pending' AND claim IS NOT DISTINCT FROM $2 RETURNING txid)
     ${queueJobsFrom('track', 'accepted', { column: 'txid', field: 'txid' })}`,
    [txid, claim],
  );
}

/**
 * `txid`, accepted (or replaced before), was replaced by `replacer`: kept for
 * staff, since once the replacement is mined no RPC can name it. Public
 * answers name it only when the portal accepted it (portal_accepted).
 */
export async function recordReplacement(db: Queryable, txid: string, replacer: string): Promise<void> {
  await db.query(`UPDATE tx_submissions SET status = 'replaced', replaced_by = $2, updated_at = now() WHERE txid = $1 AND status IN ('accepted', 'replaced')`, [txid, replacer]);
}
