import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { addEmailSubscription, MAX_EMAILS_PER_TX } from './email-subscriptions.repository.ts';

export const EMAIL_NOT_AVAILABLE_MESSAGE = 'Email notifications are not available on this portal.';
export const EMAIL_UNKNOWN_TX_MESSAGE = 'This portal has no record of that transaction.';
export const EMAIL_FULL_MESSAGE = `This transaction already has ${MAX_EMAILS_PER_TX} addresses to tell; no more can be added.`;

/**
 * A plain mailbox, user@example.com, and nothing a mail library would read
 * as more (a display name and another address in angle brackets, a list):
 * the form offers one address to tell, typed by a stranger.
 */
export function isMailboxAddress(text: string): boolean {
  return text.length <= 254 && /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$/.test(text);
}

/** "Email me when it is mined": on only when SMTP is configured. */
export function createEmailNotifyService(deps: { db: Database; enabled: boolean }) {
  const { db, enabled } = deps;
  return {
    enabled,
    async subscribe(txid: string, rawEmail: string) {
      if (!enabled) throw new ApiError(404, EMAIL_NOT_AVAILABLE_MESSAGE);
      const email = rawEmail.trim();
      if (!isMailboxAddress(email)) throw new ApiError(400, 'Enter a valid email address.');
      const added = await addEmailSubscription(db, txid.toLowerCase(), email);
      if (added === 'unknown') throw new ApiError(404, EMAIL_UNKNOWN_TX_MESSAGE);
      if (added === 'full') throw new ApiError(409, EMAIL_FULL_MESSAGE);
      return { status: 'success' as const, message: 'We will email you once, when this transaction is mined.' };
    },
  };
}

export type EmailNotifyService = ReturnType<typeof createEmailNotifyService>;
