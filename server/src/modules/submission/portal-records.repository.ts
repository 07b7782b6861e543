import type { Queryable } from '../../db/database.ts';

/**
 * Which transactions are the portal's own: the one rule that keeps the
 * pool's mempool private until mined (README, "How a submission is
 * judged"). A transaction is the portal's when the node accepted it from
 * the portal: a submission row past 'pending', a member of a package the
 * node took, or an attempt that timed out while the node may have taken
 * it. A 'pending' row (the node is still judging it) and an attempt the
 * node refused are not: a stranger can make either with any hex. Every
 * public answer about the mempool (status-check, the pricing of parse-tx
 * and submit-tx, the reasons a submission is refused, webhooks, emails)
 * looks into the node's mempool, or names a transaction, only for these;
 * any other transaction the node holds is answered as if it did not exist.
 *
 * The rule itself is the SQL function portal_accepted (migration 023), so
 * that the database's own triggers (webhook payloads) apply it too.
 */

/** SQL that is true when the text expression `txid` names a transaction the node accepted from the portal. */
export function recordedByPortal(txid: string): string {
  return `portal_accepted(${txid})`;
}

/** Those of `txids` the node accepted from the portal. One query, whatever the answer. */
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
