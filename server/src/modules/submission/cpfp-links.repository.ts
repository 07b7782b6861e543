import type { Queryable } from '../../db/database.ts';

/**
 * Which transactions entered the pool's mempool below the minimum with a
 * child paying for them (migration 023): written when the node accepts the
 * package, read by the status answer of either one. Both are the portal's
 * records by then, so naming one on the other's status says nothing about
 * the private mempool.
 */

export interface CpfpLink {
  parentTxid: string;
  childTxid: string;
}

export async function recordCpfpLinks(db: Queryable, links: readonly CpfpLink[]): Promise<void> {
  if (links.length === 0) return;
  await db.query(
    `INSERT INTO cpfp_links (parent_txid, child_txid)
     SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
    [links.map((l) => l.parentTxid), links.map((l) => l.childTxid)],
  );
}

/** The parents `txid` paid for and the children that paid for it. One query, whatever the answer. */
export async function cpfpLinksOf(db: Queryable, txid: string): Promise<{ paysFor: string[]; paidBy: string[] }> {
  const { rows } = await db.query<{ parent_txid: string; child_txid: string }>(
    'SELECT parent_txid, child_txid FROM cpfp_links WHERE parent_txid = $1 OR child_txid = $1 ORDER BY created_at, parent_txid, child_txid',
    [txid],
  );
  return {
    paysFor: rows.filter((r) => r.child_txid === txid).map((r) => r.parent_txid),
    paidBy: rows.filter((r) => r.parent_txid === txid).map((r) => r.child_txid),
  };
}
