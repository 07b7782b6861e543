import type { Queryable } from '../../db/database.ts';
import { recordedByPortal } from '../submission/portal-records.repository.ts';

/**
 * The portal's own copy of a transaction the node accepted from it
 * (portal-records.repository.ts): from its submission, the package it was a
 * member of, or the attempt that timed out. None: the transaction is not
 * the portal's (a 'pending' row the node is still judging, or an attempt
 * it refused, is not), and the explorer routes answer as if it did not
 * exist. One query.
 */
export async function portalTxHex(db: Queryable, txid: string): Promise<string | undefined> {
  const { rows } = await db.query<{ tx_hex: string }>(
    `SELECT tx_hex FROM (
       SELECT s.tx_hex, 1 AS rank FROM tx_submissions s WHERE s.txid = $1
       UNION ALL SELECT p.tx_hexes[array_position(p.txids, $1)], 2 FROM package_submissions p WHERE p.txids @> ARRAY[$1]::text[]
       UNION ALL SELECT f.tx_hex, 3 FROM failed_txs f WHERE f.txid = $1
     ) copies WHERE ${recordedByPortal('$1')} ORDER BY rank LIMIT 1`,
    [txid],
  );
  return rows[0]?.tx_hex;
}
