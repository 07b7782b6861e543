import type { Queryable } from '../../db/database.ts';

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

/**
 * Adds the address (once per transaction): 'unknown' when the portal has no
 * record of the transaction, 'full' when it has MAX_EMAILS_PER_TX others.
 */
export async function addEmailSubscription(db: Queryable, txid: string, email: string): Promise<'added' | 'unknown' | 'full'> {
  const { rows } = await db.query<{ known: boolean; added: boolean }>(
    `WITH known AS (
       SELECT EXISTS (SELECT 1 FROM tx_submissions WHERE txid = $1 AND status <> 'pending')
           OR EXISTS (SELECT 1 FROM package_tx_outcomes WHERE txid = $1) AS known),
     added AS (
       INSERT INTO email_subscriptions (txid, email)
       SELECT $1, $2 FROM known
       WHERE known.known AND (SELECT count(*) FROM email_subscriptions WHERE txid = $1 AND email <> $2) < $3
       ON CONFLICT (txid, email) DO UPDATE SET created_at = email_subscriptions.created_at
       RETURNING 1)
     SELECT known.known, EXISTS (SELECT 1 FROM added) AS added FROM known`,
    [txid, email, MAX_EMAILS_PER_TX],
  );
  const { known, added } = rows[0]!;
  return added ? 'added' : known ? 'full' : 'unknown';
}

/** How long an address waits for a transaction that never settles (still unconfirmed, or its record gone). */
export const EMAIL_RETENTION_DAYS = 30;

/** Addresses kept longer than EMAIL_RETENTION_DAYS are forgotten: nothing about an address outlives its purpose. */
export async function forgetStaleEmailSubscriptions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM email_subscriptions WHERE created_at < now() - make_interval(days => $1)`, [EMAIL_RETENTION_DAYS]);
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
