import type { Queryable } from '../../db/database.ts';
import { queueJobsFrom } from '../../jobs/job-queue.ts';
import { resolveOpenFailuresSql } from '../failed-txs/failed-txs.repository.ts';

/** Rows the public submission flow writes. Everything else about them belongs to the staff modules. */

export interface NewSubmission {
  txid: string;
  wtxid: string;
  txHex: string;
  clientCode: string | null;
  discountCodeId: number | null;
  size: number;
  vsize: number;
  weight: number;
  fee: number;
  feeRate: number;
  functionalRate: number;
  marketRate: number;
  thresholdRate: number;
  multiplier: number;
  /** When the user first submitted it: a staff retry of a failed submission keeps the original time (ISO text, so spooled records replay it). */
  createdAt?: string | undefined;
}

const SUBMISSION_COLUMNS = `txid, wtxid, tx_hex, client_code, discount_code_id, size, vsize, weight, fee,
  fee_rate, functional_rate, market_rate, threshold_rate, multiplier, created_at`;

const submissionValues = (s: NewSubmission) => [
  s.txid, s.wtxid, s.txHex, s.clientCode, s.discountCodeId, s.size, s.vsize, s.weight, s.fee,
  s.feeRate, s.functionalRate, s.marketRate, s.thresholdRate, s.multiplier, s.createdAt ?? null,
];

/** The job that follows an accepted transaction until it is settled (src/jobs/tracking). */
const TRACK_JOB = (txids: string) => queueJobsFrom('track', txids, { column: 'txid', field: 'txid' });

/**
 * Writes the row while the node is still deciding, as 'pending' under this
 * request's claim. Does nothing when the transaction already has a row.
 */
export async function claimSubmission(db: Queryable, s: NewSubmission, claim: string): Promise<void> {
  await db.query(
    `INSERT INTO tx_submissions (${SUBMISSION_COLUMNS}, status, claim)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, COALESCE($15::timestamptz, now()), 'pending', $16)
     ON CONFLICT (txid) DO NOTHING`,
    [...submissionValues(s), claim],
  );
}

/** Takes back this request's pending row when the node refused: never a row another request wrote or the node accepted. */
export async function releaseClaim(db: Queryable, txid: string, claim: string): Promise<void> {
  await db.query(`DELETE FROM tx_submissions WHERE txid = $1 AND claim = $2 AND status = 'pending'`, [txid, claim]);
}

/**
 * Records a transaction the node has accepted. Idempotent: a transaction
 * submitted twice is recorded once. A pending row (whoever wrote it), or one
 * the node had let go (replaced, evicted, conflicted) and has now taken back,
 * becomes 'accepted' with this copy's details (same txid, but the witness, and so the
 * size, may differ). The same statement closes any open failure of the
 * transaction (a retry that worked) and queues the job that tracks it: a
 * transaction the node took is followed from the moment it is recorded,
 * whichever path recorded it (request, spool replay, retry).
 */
export async function recordSubmission(db: Queryable, s: NewSubmission): Promise<void> {
  await db.query(
    `WITH resolved AS (${resolveOpenFailuresSql('$1')}),
     recorded AS (
       INSERT INTO tx_submissions (${SUBMISSION_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, COALESCE($15::timestamptz, now()))
       ON CONFLICT (txid) DO UPDATE SET
         status = 'accepted', claim = NULL, replaced_by = NULL, outcome_reason = NULL, wtxid = EXCLUDED.wtxid,
         tx_hex = EXCLUDED.tx_hex, size = EXCLUDED.size, vsize = EXCLUDED.vsize, weight = EXCLUDED.weight,
         fee_rate = EXCLUDED.fee_rate, updated_at = now()
       WHERE tx_submissions.status IN ('pending', 'replaced', 'evicted', 'conflicted')
       RETURNING txid)
     ${TRACK_JOB('recorded')}`,
    submissionValues(s),
  );
}

export interface NewPackageSubmission {
  packageHash: string;
  txids: string[];
  txHexes: string[];
  clientCode: string | null;
  discountCodeId: number | null;
  totalSize: number;
  totalVsize: number;
  totalWeight: number;
  totalFee: number;
  feeRate: number;
  marketRate: number;
  multiplier: number;
  packageMsg: string;
  /** As NewSubmission.createdAt. */
  createdAt?: string | undefined;
}

/** Records an accepted package and tracks each member, as recordSubmission does for one transaction. */
export async function recordPackageSubmission(db: Queryable, p: NewPackageSubmission): Promise<void> {
  await db.query(
    `WITH resolved AS (${resolveOpenFailuresSql('ANY($1::text[])')}),
     recorded AS (
       INSERT INTO package_submissions (package_hash, txids, tx_hexes, client_code, discount_code_id, total_size, total_vsize,
         total_weight, total_fee, fee_rate, market_rate, multiplier, package_msg, created_at)
       VALUES ($2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, COALESCE($14::timestamptz, now()))
       ON CONFLICT (package_hash) DO NOTHING
       RETURNING txids),
     members AS (
       INSERT INTO package_tx_outcomes (txid)
       SELECT unnest(txids) FROM recorded
       ON CONFLICT (txid) DO NOTHING
       RETURNING txid)
     ${TRACK_JOB('members')}`,
    [p.txids, p.packageHash, p.txHexes, p.clientCode, p.discountCodeId, p.totalSize, p.totalVsize, p.totalWeight, p.totalFee, p.feeRate, p.marketRate, p.multiplier, p.packageMsg, p.createdAt ?? null],
  );
}

/** The block the portal recorded `txid` confirmed in, from its submission row; undefined when none is recorded. */
export async function recordedBlockOf(db: Queryable, txid: string): Promise<{ block_height: number; block_hash: string } | undefined> {
  const { rows } = await db.query<{ block_height: number; block_hash: string }>(
    "SELECT block_height, block_hash FROM tx_submissions WHERE txid = $1 AND status = 'confirmed' LIMIT 1",
    [txid],
  );
  return rows[0];
}
