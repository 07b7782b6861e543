import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { addEmailSubscription, DEFAULT_MAX_EMAILS_PER_ADDRESS_PER_DAY, MAX_EMAILS_PER_TX } from './email-subscriptions.repository.ts';

export const EMAIL_NOT_AVAILABLE_MESSAGE = 'Email notifications are not available on this portal.';
export const EMAIL_UNKNOWN_TX_MESSAGE = 'This portal has no record of that transaction.';
export const EMAIL_FULL_MESSAGE = `This transaction already has ${MAX_EMAILS_PER_TX} addresses to tell; no more can be added.`;
/** Worded like the callback URLs' own bound (webhooks.service.ts callbackAddressBoundNotice). */
export const emailAddressBoundMessage = (max: number) =>
  `Your address has asked for ${max} notification emails in the last 24 hours; no more can be added until a day has passed since the oldest.`;

/**
 * A plain mailbox, user@example.com, and nothing a mail library would read
 * as more (a display name and another address in angle brackets, a list):
 * the form offers one address to tell, typed by a stranger.
 */
export function isMailboxAddress(text: string): boolean {
  return text.length <= 254 && /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$/.test(text);
}

/**
 * "Email me when it is mined": on only when SMTP is configured and each
 * client address may ask for some (EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY
 * 0 turns it off). Anyone may give any address, so what one client address
 * can make the portal send is bounded per day, as callback URLs are.
 */
export function createEmailNotifyService(deps: { db: Database; smtp: boolean; maxPerAddressPerDay?: number | undefined }) {
  const { db } = deps;
  const maxPerAddressPerDay = deps.maxPerAddressPerDay ?? DEFAULT_MAX_EMAILS_PER_ADDRESS_PER_DAY;
  const enabled = deps.smtp && maxPerAddressPerDay > 0;
  return {
    enabled,
    /** `clientAddress`: the caller's address group, whose day's share a new subscription spends (none: no daily bound; every public request has one). */
    async subscribe(txid: string, rawEmail: string, clientAddress: string | undefined) {
      if (!enabled) throw new ApiError(404, EMAIL_NOT_AVAILABLE_MESSAGE);
      const email = rawEmail.trim();
      if (!isMailboxAddress(email)) throw new ApiError(400, 'Enter a valid email address.');
      const outcome = await addEmailSubscription(db, txid.toLowerCase(), email, clientAddress === undefined ? undefined : { clientAddress, maxPerAddressPerDay });
      if (outcome === 'unknown') throw new ApiError(404, EMAIL_UNKNOWN_TX_MESSAGE);
      if (outcome === 'full') throw new ApiError(409, EMAIL_FULL_MESSAGE);
      if (outcome === 'address-bound') throw new ApiError(429, emailAddressBoundMessage(maxPerAddressPerDay));
      return { status: 'success' as const, message: 'We will email you once, when this transaction is mined.' };
    },
  };
}

export type EmailNotifyService = ReturnType<typeof createEmailNotifyService>;
