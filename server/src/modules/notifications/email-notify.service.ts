import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { isEmailAddress } from '../../http/forms.ts';
import { addEmailSubscription } from './email-subscriptions.repository.ts';

export const EMAIL_NOT_AVAILABLE_MESSAGE = 'Email notifications are not available on this portal.';
export const EMAIL_UNKNOWN_TX_MESSAGE = 'This portal has no record of that transaction.';

/** "Email me when it is mined": on only when SMTP is configured. */
export function createEmailNotifyService(deps: { db: Database; enabled: boolean }) {
  const { db, enabled } = deps;
  return {
    enabled,
    async subscribe(txid: string, rawEmail: string) {
      if (!enabled) throw new ApiError(404, EMAIL_NOT_AVAILABLE_MESSAGE);
      const email = rawEmail.trim();
      if (!isEmailAddress(email)) throw new ApiError(400, 'Enter a valid email address.');
      if (!(await addEmailSubscription(db, txid.toLowerCase(), email))) throw new ApiError(404, EMAIL_UNKNOWN_TX_MESSAGE);
      return { status: 'success' as const, message: 'We will email you once, when this transaction is mined.' };
    },
  };
}

export type EmailNotifyService = ReturnType<typeof createEmailNotifyService>;
