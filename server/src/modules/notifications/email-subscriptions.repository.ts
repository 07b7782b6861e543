import type { Database, Queryable } from '../../db/database.ts';

/** "Email me when it is mined" (migration 020): an address per transaction, deleted once its final event is mailed. */

export interface EmailSubscription {
  id: number;
  txid: string;
  email: string;
  attempts: number;
  firstAttemptAt: Date | null;
}

/** Where a portal transaction ended, when it has: mined (with its block), or left the mempool for good. */
export interface FinalOutcome {
  status: 'confirmed' | 'replaced' | 'evicted' | 'conflicted';
  blockHeight: number | null;
  blockHash: string | null;
  replacedBy: string | null;
}

/** Addresses one transaction can have: anyone may add one, so a transaction cannot become a mailing list. */
export const MAX_EMAILS_PER_TX = 5;

/** New email subscriptions a client address group may ask for in any 24 hours, unless EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY says otherwise. */
export const DEFAULT_MAX_EMAILS_PER_ADDRESS_PER_DAY = 20;

/** Whose day's share a new subscription spends. */
export interface EmailRequester {
  /** The caller's address group (an IPv4 address or an IPv6 /64, http/sse-registry.ts addressGroup). */
  clientAddress: string;
  /** New subscriptions that address group may ask for in any 24 hours. */
  maxPerAddressPerDay: number;
}

/**
 * What became of an address for one transaction: 'added' now; 'already',
 * it is waiting for this transaction from before (nothing new is started);
 * 'unknown', the portal has no record of the transaction; 'full', it has
 * MAX_EMAILS_PER_TX other addresses; 'address-bound', the requester's address
 * group has asked for its day's share.
 */
export type EmailSubscriptionOutcome = 'added' | 'already' | 'unknown' | 'full' | 'address-bound';

/** First keys of the advisory locks that serialize one transaction's, and one address group's, checks and inserts (the second key is a hash). */
const TX_LOCK = 4_028;
const ADDRESS_LOCK = 4_029;

/**
 * Adds the address to the transaction's, once, within MAX_EMAILS_PER_TX and
 * the requester's day's share. Each subscription row is deleted once its
 * email is sent, so the share is counted from email_subscription_starts
 * (migration 029), one row per new subscription, kept a day. The advisory
 * locks (the address group's first, then the transaction's, in one order for
 * every request) make the checks and inserts of concurrent requests, on any
 * instance, one after the other.
 */
export async function addEmailSubscription(db: Database, txid: string, email: string, requester: EmailRequester | undefined): Promise<EmailSubscriptionOutcome> {
  return db.transaction(async (tx) => {
    if (requester) await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_LOCK, requester.clientAddress]);
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TX_LOCK, txid]);
    const { rows } = await tx.query<{ known: boolean; same: boolean; others: number }>(
      `SELECT EXISTS (SELECT 1 FROM tx_submissions WHERE txid = $1 AND status <> 'pending')
              OR EXISTS (SELECT 1 FROM package_tx_outcomes WHERE txid = $1) AS known,
              EXISTS (SELECT 1 FROM email_subscriptions WHERE txid = $1 AND email = $2) AS same,
              (SELECT count(*)::int FROM email_subscriptions WHERE txid = $1 AND email <> $2) AS others`,
      [txid, email],
    );
    const { known, same, others } = rows[0]!;
    if (!known) return 'unknown';
    if (same) return 'already';
    if (others >= MAX_EMAILS_PER_TX) return 'full';
    if (requester) {
      await tx.query(`DELETE FROM email_subscription_starts WHERE client_address = $1 AND created_at <= now() - interval '1 day'`, [requester.clientAddress]);
      const started = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM email_subscription_starts WHERE client_address = $1 AND created_at > now() - interval '1 day'`,
        [requester.clientAddress],
      );
      if (started.rows[0]!.n >= requester.maxPerAddressPerDay) return 'address-bound';
      await tx.query('INSERT INTO email_subscription_starts (client_address) VALUES ($1)', [requester.clientAddress]);
    }
    await tx.query('INSERT INTO email_subscriptions (txid, email) VALUES ($1, $2)', [txid, email]);
    return 'added';
  });
}

/** How long an address waits for a transaction that never settles (still unconfirmed, or its record gone). */
export const EMAIL_RETENTION_DAYS = 30;

/**
 * Addresses kept longer than EMAIL_RETENTION_DAYS are forgotten: nothing
 * about an address outlives its purpose. The day's shares of new
 * subscriptions older than a day go too. Returns the addresses forgotten.
 */
export async function forgetStaleEmailSubscriptions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM email_subscriptions WHERE created_at < now() - make_interval(days => $1)`, [EMAIL_RETENTION_DAYS]);
  await db.query(`DELETE FROM email_subscription_starts WHERE created_at <= now() - interval '1 day'`);
  return rowCount;
}

const FINAL = `('confirmed', 'replaced', 'evicted', 'conflicted')`;

/** Subscriptions whose transaction has reached its final event. */
export async function subscriptionsDue(db: Queryable, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT s.id FROM email_subscriptions s
     WHERE (EXISTS (SELECT 1 FROM tx_submissions t WHERE t.txid = s.txid AND t.status IN ${FINAL})
            OR EXISTS (SELECT 1 FROM package_tx_outcomes o WHERE o.txid = s.txid AND o.status IN ${FINAL}))
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.key = 'email:' || s.id AND j.state IN ('queued', 'running'))
     ORDER BY s.id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => Number(r.id));
}

export async function loadEmailSubscription(db: Queryable, id: number): Promise<{ subscription: EmailSubscription; outcome: FinalOutcome | undefined } | undefined> {
  const { rows } = await db.query<{
    id: string; txid: string; email: string; attempts: number; first_attempt_at: Date | null;
    status: string | null; block_height: number | null; block_hash: string | null; replaced_by: string | null;
  }>(
    // The replacement is named only when the portal accepted it (portal_accepted, migration 023): an email is a public answer.
    `SELECT s.id, s.txid, s.email, s.attempts, s.first_attempt_at, r.status, r.block_height, r.block_hash,
            CASE WHEN portal_accepted(r.replaced_by) THEN r.replaced_by END AS replaced_by
     FROM email_subscriptions s
     LEFT JOIN LATERAL (
       SELECT status, block_height, block_hash, replaced_by FROM tx_submissions WHERE txid = s.txid AND status IN ${FINAL}
       UNION ALL
       SELECT status, block_height, block_hash, replaced_by FROM package_tx_outcomes WHERE txid = s.txid AND status IN ${FINAL}
       LIMIT 1) r ON true
     WHERE s.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    subscription: { id: Number(row.id), txid: row.txid, email: row.email, attempts: row.attempts, firstAttemptAt: row.first_attempt_at },
    outcome: row.status === null ? undefined : { status: row.status as FinalOutcome['status'], blockHeight: row.block_height, blockHash: row.block_hash, replacedBy: row.replaced_by },
  };
}

export async function deleteEmailSubscription(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM email_subscriptions WHERE id = $1', [id]);
}

export async function recordEmailFailure(db: Queryable, id: number, error: string): Promise<void> {
  await db.query(
    `UPDATE email_subscriptions SET attempts = attempts + 1, first_attempt_at = COALESCE(first_attempt_at, now()), last_error = $2 WHERE id = $1`,
    [id, error],
  );
}
