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

/** Where every instance hears of a transaction becoming the portal's (migration 028's triggers; the payload is its txid). */
export const PORTAL_TXIDS_CHANNEL = 'portal_txids';

/** Txids read per query when the whole set is loaded: a page of their 13-digit starts is about 0.7 MB of text. */
const LOAD_PAGE = 50_000;

/**
 * The first 13 hex digits of every txid the portal accepted (the rule of
 * portal_accepted, table by table), a page at a time in txid order, so that
 * loading a large history holds one page in memory, not every row.
 */
export async function* portalAcceptedTxidStarts(db: Queryable): AsyncGenerator<string[]> {
  const sources = [
    `tx_submissions WHERE status <> 'pending'`,
    'package_tx_outcomes WHERE true',
    `failed_txs WHERE status = 'Timeout'`,
  ];
  for (const source of sources) {
    let after = '';
    for (;;) {
      const { rows } = await db.query<{ last: string | null; starts: string | null }>(
        `SELECT max(txid) AS last, string_agg(left(txid, 13), ',') AS starts
         FROM (SELECT txid FROM ${source} AND txid > $1 ORDER BY txid LIMIT ${LOAD_PAGE}) page`,
        [after],
      );
      const { last, starts } = rows[0]!;
      if (last === null || starts === null) break;
      yield starts.split(',');
      after = last;
    }
  }
}
