import type { Queryable } from '../../db/database.ts';

/**
 * The block the portal's records say holds `txid` (the tracking job writes
 * it on the submission's row, or on the package member's outcome): for a
 * receipt of a transaction mined longer ago than the mempool engine's
 * window of blocks. One query on two primary keys; undefined when neither
 * says it is confirmed.
 */
export async function recordedBlockOf(db: Queryable, txid: string): Promise<{ hash: string; height: number } | undefined> {
  const { rows } = await db.query<{ hash: string; height: number }>(
    `SELECT block_hash AS hash, block_height AS height FROM tx_submissions WHERE txid = $1 AND status = 'confirmed'
     UNION ALL
     SELECT block_hash AS hash, block_height AS height FROM package_tx_outcomes WHERE txid = $1 AND status = 'confirmed'
     LIMIT 1`,
    [txid],
  );
  return rows[0];
}
