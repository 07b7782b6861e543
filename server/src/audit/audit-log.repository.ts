import type { Queryable } from '../db/database.ts';

/**
 * The audit trail's tables: audit_logs, each row chained to the one before
 * by its hash (audit-chain.ts says how), and audit_chain_head, the one row
 * that names the newest row the writer chained and its hash. The writer
 * (audit-writer.ts) appends; the verifier (audit-chain.ts) reads. AUDIT_COLUMNS: what
 * each appended row holds.
 */

export const AUDIT_COLUMNS = [
  'id', 'ip_address', 'endpoint', 'http_method', 'client_code', 'request_at', 'request_payload',
  'response_payload', 'response_time_ms', 'error_message', 'source_type', 'is_success', 'prev_hash', 'row_hash',
] as const;
const COLUMN_LIST = AUDIT_COLUMNS.join(', ');

/** The chain's head, locked until the transaction ends: one writer appends at a time, on every instance. */
export async function lockChainHead(tx: Queryable): Promise<{ last_hash: Uint8Array } | undefined> {
  return (await tx.query<{ last_hash: Uint8Array }>('SELECT last_hash FROM audit_chain_head FOR UPDATE')).rows[0];
}

/** `count` new audit row ids, in ascending order. */
export async function nextAuditIds(tx: Queryable, count: number): Promise<number[]> {
  const { rows } = await tx.query<{ id: number }>("SELECT nextval('audit_logs_id_seq') AS id FROM generate_series(1, $1::integer)", [count]);
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** Appends chained rows (each with every column of COLUMNS) and moves the head to the last of them. */
export async function appendChainedRows(tx: Queryable, records: readonly object[], lastId: number, lastHash: Uint8Array): Promise<void> {
  await tx.query(`INSERT INTO audit_logs (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM json_populate_recordset(NULL::audit_logs, $1::json)`, [JSON.stringify(records)]);
  await tx.query('UPDATE audit_chain_head SET last_id = $1, last_hash = $2', [lastId, lastHash]);
}

/** The chain's head as the verifier reads it; undefined when its row was deleted. */
export async function chainHead(db: Queryable): Promise<{ last_id: number | null; last_hash: Uint8Array } | undefined> {
  return (await db.query<{ last_id: number | null; last_hash: Uint8Array }>('SELECT last_id, last_hash FROM audit_chain_head')).rows[0];
}

/** One batch of the chain as the verifier checks it: each row's checks, only for the rows that fail one, the anchor and the batch's last. */
export interface ChainBatchRow {
  id: number;
  /** Position in the batch, from 1. */
  n: number;
  row_hash: Uint8Array | null;
  unchained: boolean;
  intact: boolean | null;
  linked: boolean | null;
  is_last: boolean;
}

/**
 * The next `batchSize` rows after `afterId` up to `headId`, checked in SQL:
 * has a hash, matches it, links to the row before (or `previousHash` for the
 * first). Only the rows worth a look come back.
 */
export async function chainBatch(db: Queryable, window: { afterId: number; headId: number; previousHash: Uint8Array; batchSize: number; anchorId: number | null }): Promise<ChainBatchRow[]> {
  const { rows } = await db.query<ChainBatchRow>(
    `SELECT id, n, row_hash, unchained, intact, linked, is_last
       FROM (SELECT id, row_hash,
                    row_number() OVER w AS n,
                    prev_hash IS NULL OR row_hash IS NULL AS unchained,
                    row_hash = sha256(prev_hash || encoding) AS intact,
                    prev_hash = coalesce(lag(row_hash) OVER w, $3::bytea) AS linked,
                    lead(id) OVER w IS NULL AS is_last
               FROM (SELECT a.id, coalesce(a.prev_hash, h.prev_hash) AS prev_hash, coalesce(a.row_hash, h.row_hash) AS row_hash,
                            audit_log_encoding(a) AS encoding
                       FROM audit_logs a
                       -- The range again on h: a merge join would otherwise read audit_log_hashes from its first row for every batch.
                       LEFT JOIN audit_log_hashes h ON h.id = a.id AND h.id > $1 AND h.id <= $2
                      WHERE a.id > $1 AND a.id <= $2
                      ORDER BY a.id
                      LIMIT $4) AS batch
             WINDOW w AS (ORDER BY id)) AS checked
      WHERE is_last OR unchained OR NOT intact OR NOT linked OR id = $5
      ORDER BY id`,
    [window.afterId, window.headId, window.previousHash, window.batchSize, window.anchorId],
  );
  return rows;
}

/** The first row beyond the head (read in one snapshot with it): one the writer did not chain; null when none. */
export async function rowBeyondHead(db: Queryable): Promise<number | null> {
  const { rows } = await db.query<{ id: number | null }>('SELECT (SELECT min(id) FROM audit_logs WHERE id > coalesce(h.last_id, 0)) AS id FROM audit_chain_head h');
  return rows[0]?.id ?? null;
}

/** The id of the row before `id`; null when it is the first. */
export async function auditIdBefore(db: Queryable, id: number): Promise<number | null> {
  const { rows } = await db.query<{ id: number | null }>('SELECT max(id) AS id FROM audit_logs WHERE id < $1', [id]);
  return rows[0]?.id ?? null;
}
