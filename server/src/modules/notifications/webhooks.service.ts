import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { checkWebhookUrl, DestinationRefused, type DestinationPolicy } from './destination-guard.ts';
import { newSecretSalt, type WebhookKeys } from './webhook-secrets.ts';
import { clientWebhookForCode, MAX_CALLBACKS_PER_TX, subscribe, type CallbackOutcome, type CallbackTarget } from './webhooks.repository.ts';

/**
 * A submitter's callback_url: checked before anything is submitted (a URL the
 * portal will not call is a 400 that changes nothing), subscribed once the
 * node accepted, and answered with the secret that signs its deliveries:
 * the first and the subscribe steps of the submission pipeline
 * (submission/submission-pipeline.ts).
 * A URL not subscribed (it follows the transaction already, or a bound
 * stopped it) leaves the submission's answer a success: `callback_notice`
 * says why there is no `callback_secret`.
 */

export interface WebhookService {
  /**
   * The callback URL as it will be called (none when not given); refused
   * (400) when the portal will not call it. Asked before anything is
   * submitted: a refused URL changes nothing.
   */
  checkCallbackUrl(callbackUrl: string | undefined): string | undefined;
  /**
   * Subscribes what a submission got accepted: to the callback URL
   * `checkCallbackUrl` gave (the answer then carries its secret, or why
   * none), and to the webhook of the client whose code was used.
   */
  subscribeAccepted<T extends object>(answer: T, accepted: AcceptedSubmission): Promise<T & CallbackAnswer>;
}

/** What a submission got accepted, and who asked: the callback URL as checked, the client code and the caller's address group. */
export interface AcceptedSubmission {
  txids: string[];
  callbackUrl: string | undefined;
  clientCode: string | undefined;
  clientAddress: string | undefined;
}

/** What a submit answer says of its callback_url: the secret when a subscription was made, else why none was. */
export interface CallbackAnswer {
  callback_secret?: string;
  callback_notice?: string;
}

export const CALLBACK_NOT_SET_NOTICE = 'The transaction was accepted, but notifications for it could not be set up right now; follow it on its status page.';
/**
 * The secret is not shown again, nor replaced: either would let anyone who
 * knows the URL (and the public txid) learn or rotate the secret its owner
 * verifies deliveries with.
 */
export const CALLBACK_ALREADY_NOTICE = 'This callback URL already follows this transaction; its deliveries stay signed with the secret given when it was first set, which is not shown again.';
export const CALLBACK_FULL_NOTICE = `This transaction already has ${MAX_CALLBACKS_PER_TX} callback URLs; no more can be added.`;
export const callbackAddressBoundNotice = (max: number) =>
  `Your address has set up ${max} callback subscriptions in the last 24 hours; no more can be added until a day has passed since the oldest.`;

export function createWebhookService(deps: { db: Database; keys: WebhookKeys; policy: DestinationPolicy; log: Logger; maxCallbacksPerAddressPerDay: number }): WebhookService {
  const { db, keys, policy, log, maxCallbacksPerAddressPerDay } = deps;
  const notices: Record<Exclude<CallbackOutcome, 'subscribed'>, string> = {
    already: CALLBACK_ALREADY_NOTICE,
    full: CALLBACK_FULL_NOTICE,
    'address-bound': callbackAddressBoundNotice(maxCallbacksPerAddressPerDay),
  };
  return {
    checkCallbackUrl(callbackUrl) {
      const wanted = callbackUrl?.trim() || undefined;
      try {
        return wanted === undefined ? undefined : checkWebhookUrl(wanted, policy).href;
      } catch (error) {
        if (error instanceof DestinationRefused) throw new ApiError(400, error.message);
        throw error;
      }
    },
    async subscribeAccepted(answer, { txids, callbackUrl: url, clientCode, clientAddress }) {
      if (txids.length === 0) return answer;
      const callback: CallbackTarget | undefined =
        url === undefined ? undefined : { url, secretSalt: newSecretSalt(), clientAddress, maxPerAddressPerDay: maxCallbacksPerAddressPerDay };
      let outcomes: Array<{ txid: string; outcome: CallbackOutcome }>;
      try {
        const code = normaliseClientCode(clientCode);
        const client = code === undefined ? undefined : await clientWebhookForCode(db, code);
        outcomes = await subscribe(db, txids, { callback, client });
      } catch (error) {
        // The node took the transaction: the answer must say so even when the database failed us here.
        log.error({ err: (error as Error).message, txids }, 'Could not subscribe webhooks for accepted transactions');
        return callback ? { ...answer, callback_notice: CALLBACK_NOT_SET_NOTICE } : answer;
      }
      if (!callback) return answer;
      const subscribed = outcomes.some((o) => o.outcome === 'subscribed');
      const notice = noticeOf(outcomes, notices, txids.length > 1);
      return {
        ...answer,
        ...(subscribed ? { callback_secret: keys.secretFor(callback.secretSalt) } : {}),
        ...(notice ? { callback_notice: notice } : {}),
      };
    },
  };
}

/**
 * One sentence per reason a transaction was not newly subscribed; in a
 * package's answer each names the members it is about (the secret given
 * signs the deliveries of the others).
 */
function noticeOf(outcomes: Array<{ txid: string; outcome: CallbackOutcome }>, notices: Record<Exclude<CallbackOutcome, 'subscribed'>, string>, nameMembers: boolean): string | undefined {
  const sentences = (Object.keys(notices) as Array<keyof typeof notices>).flatMap((reason) => {
    const members = outcomes.filter((o) => o.outcome === reason).map((o) => o.txid);
    if (members.length === 0) return [];
    return [nameMembers ? `${members.join(', ')}: ${notices[reason]}` : notices[reason]];
  });
  return sentences.length > 0 ? sentences.join(' ') : undefined;
}
