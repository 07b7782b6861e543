import type { Queryable } from '../../db/database.ts';

/**
 * The portal's own copy of a transaction: from its submission, the package
 * it was a member of, or the attempt kept as failed (portal-records'
 * three kinds of record). None: the transaction is not the portal's, and
 * the explorer routes answer as if it did not exist. One query.
 */
export async function portalTxHex(db: Queryable, txid: string): Promise<string | undefined> {
  const { rows } = await db.query<{ tx_hex: string }>(
    `SELECT tx_hex FROM (
       SELECT s.tx_hex, 1 AS rank FROM tx_submissions s WHERE s.txid = $1
       UNION ALL SELECT p.tx_hexes[array_position(p.txids, $1)], 2 FROM package_submissions p WHERE p.txids @> ARRAY[$1]::text[]
       UNION ALL SELECT f.tx_hex, 3 FROM failed_txs f WHERE f.txid = $1
     ) copies ORDER BY rank LIMIT 1`,
    [txid],
  );
  return rows[0]?.tx_hex;
}
