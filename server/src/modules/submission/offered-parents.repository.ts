import { throttleKeyOf } from '../../auth/login-throttle.ts';
import type { Queryable } from '../../db/database.ts';

/**
 * Offered parents (migration 023): transactions a submitter showed the
 * portal that were refused as below the minimum (submit-tx, parse-tx), kept
 * so that a child spending one, submitted next from the same client address,
 * is priced with it and sent with it (child pays for parent, prevouts.ts).
 *
 * Strangers write these rows, so they are bounded (docs/architecture.md, convention 13):
 * a row lives a day, and each client address (an IPv6 client by its /64,
 * as the sign-in throttle counts it) keeps its newest few, by count and by
 * bytes; older ones make room. One address's offers are never another's
 * parents: a child is priced only with parents its own submitter gave, so
 * nothing here tells anyone what someone else offered.
 */

export const OFFERED_PARENT_TTL_MS = 24 * 60 * 60 * 1000;
export const OFFERED_PARENTS_PER_ADDRESS = 10;
/** A standard transaction's limit (400,000 weight units) in bytes: room for a large parent, or several small ones. */
export const OFFERED_BYTES_PER_ADDRESS = 400_000;

export interface OfferedParent {
  txid: string;
  hex: string;
}

/** Remembers these transactions as offered by `clientAddress`, trimming that address's offers to its caps and dropping expired ones. */
export async function offerParents(db: Queryable, clientAddress: string, offered: readonly OfferedParent[], now: Date): Promise<void> {
  const fitting = offered.filter((o) => o.hex.length / 2 <= OFFERED_BYTES_PER_ADDRESS);
  if (fitting.length === 0) return;
  const address = throttleKeyOf(clientAddress);
  const expired = new Date(now.getTime() - OFFERED_PARENT_TTL_MS);
  await db.query('DELETE FROM offered_parents WHERE offered_at < $1', [expired]);
  await db.query(
    `INSERT INTO offered_parents (client_address, txid, tx_hex, offered_at)
     SELECT $1, o.txid, o.hex, $4 FROM unnest($2::text[], $3::text[]) AS o(txid, hex)
     ON CONFLICT (client_address, txid) DO UPDATE SET offered_at = EXCLUDED.offered_at`,
    [address, fitting.map((o) => o.txid), fitting.map((o) => o.hex), now],
  );
  // The newest first, while they fit the address's caps.
  await db.query(
    `DELETE FROM offered_parents o USING (
       SELECT txid, row_number() OVER w AS n, sum(length(tx_hex) / 2) OVER w AS bytes
       FROM offered_parents WHERE client_address = $1
       WINDOW w AS (ORDER BY offered_at DESC, txid ROWS UNBOUNDED PRECEDING)) r
     WHERE o.client_address = $1 AND o.txid = r.txid AND (r.n > $2 OR r.bytes > $3)`,
    [address, OFFERED_PARENTS_PER_ADDRESS, OFFERED_BYTES_PER_ADDRESS],
  );
}

/** Of `txids`, those `clientAddress` offered within the last day: their hex. One query, whatever the answer. */
export async function offeredBy(db: Queryable, clientAddress: string, txids: readonly string[], now: Date): Promise<Map<string, string>> {
  if (txids.length === 0) return new Map();
  const { rows } = await db.query<{ txid: string; tx_hex: string }>(
    'SELECT txid, tx_hex FROM offered_parents WHERE client_address = $1 AND txid = ANY($2::text[]) AND offered_at >= $3',
    [throttleKeyOf(clientAddress), [...new Set(txids)], new Date(now.getTime() - OFFERED_PARENT_TTL_MS)],
  );
  return new Map(rows.map((r) => [r.txid, r.tx_hex]));
}
