import type { Queryable } from '../../db/database.ts';

/**
 * Which transactions are the portal's own: the one rule that keeps the
 * pool's mempool private until mined (SPEC.md section 1). A transaction is
 * the portal's when it was submitted here (a submission row, pending or
 * settled), as a member of a package the node took, or as an attempt kept
 * as failed. Every public answer about the mempool (status-check, the
 * pricing of parse-tx and submit-tx, the reasons a submission is refused)
 * looks into the node's mempool only for these; any other transaction the
 * node holds is answered as if it did not exist.
 */

/** SQL that is true when the text expression `txid` names a transaction the portal recorded. */
export function recordedByPortal(txid: string): string {
  return `(EXISTS (SELECT 1 FROM tx_submissions portal_s WHERE portal_s.txid = ${txid})
    OR EXISTS (SELECT 1 FROM package_tx_outcomes portal_p WHERE portal_p.txid = ${txid})
    OR EXISTS (SELECT 1 FROM failed_txs portal_f WHERE portal_f.txid = ${txid}))`;
}

/** Those of `txids` the portal recorded. One query, whatever the answer. */
export async function recordedTxids(db: Queryable, txids: readonly string[]): Promise<Set<string>> {
  if (txids.length === 0) return new Set();
  const { rows } = await db.query<{ txid: string }>(
    `SELECT q.txid FROM unnest($1::text[]) AS q(txid) WHERE ${recordedByPortal('q.txid')}`,
    [[...new Set(txids)]],
  );
  return new Set(rows.map((r) => r.txid));
}

/** Asks whether transactions are the portal's (recordedTxids over one database), for code that holds no database. */
export type PortalTxids = (txids: readonly string[]) => Promise<Set<string>>;
