import type { Database } from '../../db/database.ts';
import { jobDone, runAgainAfter, type JobHandler } from '../../jobs/job-runner.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { deleteEmailSubscription, forgetStaleEmailSubscriptions, loadEmailSubscription, recordEmailFailure, subscriptionsDue, type FinalOutcome } from './email-subscriptions.repository.ts';
import { startJobDispatch } from './job-dispatch.ts';
import type { MailSender } from './mail-sender.ts';

/**
 * Mails the final event of a transaction someone asked to hear about, then
 * forgets the address. A failed send is tried again (doubling from
 * `baseBackoffMs`, up to an hour) for 24 hours; then the address is
 * forgotten anyway, so that no address outlives its purpose.
 */

export interface EmailJobOptions {
  db: Database;
  mail: MailSender;
  clock: Clock;
  log: Logger;
  /** Link to the status page in the email: the portal's public address, when known (PUBLIC_URL). */
  publicUrl?: string | undefined;
  baseBackoffMs?: number;
  giveUpAfterMs?: number;
}

const HOUR_MS = 3_600_000;

export function emailFor(txid: string, outcome: FinalOutcome, publicUrl: string | undefined): { subject: string; text: string } {
  const short = `${txid.slice(0, 8)}...${txid.slice(-8)}`; // ASCII: a subject without encoded words reads the same in every client
  const link = publicUrl ? `\n\nIts status page: ${publicUrl.replace(/\/+$/, '')}/tx/${txid}` : '';
  const footer = '\n\nYou asked to be told once, by email, when this transaction was settled. This address has now been deleted from the portal.';
  switch (outcome.status) {
    case 'confirmed':
      return { subject: `Transaction ${short} was mined in block ${outcome.blockHeight}`, text: `Transaction ${txid} was mined in block ${outcome.blockHeight} (${outcome.blockHash}).${link}${footer}` };
    case 'replaced':
      return {
        subject: `Transaction ${short} was replaced`,
        text: `Transaction ${txid} left the mempool: it was replaced${outcome.replacedBy ? ` by ${outcome.replacedBy}` : ''} and will not be mined.${link}${footer}`,
      };
    case 'evicted':
      return { subject: `Transaction ${short} was dropped from the mempool`, text: `Transaction ${txid} was dropped from the pool's mempool and will not be mined unless it is submitted again.${link}${footer}` };
    case 'conflicted':
      return { subject: `Transaction ${short} will not be mined`, text: `Transaction ${txid} will not be mined: a block took another transaction spending the same coins.${link}${footer}` };
  }
}

export function createEmailJob(options: EmailJobOptions): JobHandler {
  const { db, mail, clock, log } = options;
  const baseBackoffMs = options.baseBackoffMs ?? 30_000;
  const giveUpAfterMs = options.giveUpAfterMs ?? 24 * HOUR_MS;
  return async (job) => {
    const loaded = await loadEmailSubscription(db, Number(job.payload.subscriptionId));
    if (!loaded?.outcome) return jobDone;
    const { subscription, outcome } = loaded;
    try {
      await mail.send({ to: subscription.email, ...emailFor(subscription.txid, outcome, options.publicUrl) });
    } catch (error) {
      const reason = (error as Error).message;
      // A mail server's refusal usually quotes the recipient: the log gets only its codes, so the address goes with its row.
      const { code, responseCode } = error as { code?: string; responseCode?: number };
      const failingSince = subscription.firstAttemptAt ?? clock.now();
      if (clock.now().getTime() - failingSince.getTime() >= giveUpAfterMs) {
        log.warn({ txid: subscription.txid, code, responseCode }, 'Gave up emailing a transaction\'s final event; the address is deleted');
        await deleteEmailSubscription(db, subscription.id);
        return jobDone;
      }
      await recordEmailFailure(db, subscription.id, reason);
      return runAgainAfter(Math.min(HOUR_MS, baseBackoffMs * 2 ** subscription.attempts));
    }
    await deleteEmailSubscription(db, subscription.id);
    return jobDone;
  };
}

/** Emails due (their transaction settled), queued as one job per address (job-dispatch.ts). */
export function startEmailDispatch(deps: { db: Database; log: Logger; wake: () => void; pollMs?: number }): () => void {
  let lastSweep = 0;
  return startJobDispatch({
    ...deps,
    pollMs: deps.pollMs ?? 2_000,
    what: 'notification emails',
    find: async (db) => {
      // Once an hour, the addresses of transactions that never settled are forgotten (EMAIL_RETENTION_DAYS).
      if (Date.now() - lastSweep >= HOUR_MS) {
        lastSweep = Date.now();
        await forgetStaleEmailSubscriptions(db);
      }
      return subscriptionsDue(db, 500);
    },
    kind: 'email',
    job: (id) => ({ key: `email:${id}`, payload: { subscriptionId: id } }),
  });
}
