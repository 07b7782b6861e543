import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import { checkWebhookUrl, DestinationRefused, type DestinationPolicy } from './destination-guard.ts';
import { newSecretSalt, type WebhookKeys } from './webhook-secrets.ts';
import { clientWebhookForCode, subscribe, type SubscriptionTarget } from './webhooks.repository.ts';

/**
 * A submitter's callback_url: checked before anything is submitted (a URL the
 * portal will not call is a 400 that changes nothing), subscribed once the
 * node accepted, and answered with the secret that signs its deliveries.
 */

export interface WebhookService {
  /**
   * Runs `submit` and subscribes what it got accepted: to the callback URL
   * (answered with its secret), and to the webhook of the client whose code
   * was used.
   */
  submitWithCallback<T extends { status: string; notice?: string }>(
    request: { callbackUrl: string | undefined; clientCode: string | undefined },
    submit: () => Promise<T>,
    acceptedTxids: (answer: T) => string[],
  ): Promise<T & { callback_secret?: string }>;
}

export const CALLBACK_NOT_SET_NOTICE = 'The transaction was accepted, but notifications for it could not be set up right now; follow it on its status page.';

export function createWebhookService(deps: { db: Database; keys: WebhookKeys; policy: DestinationPolicy; log: Logger }): WebhookService {
  const { db, keys, policy, log } = deps;
  return {
    async submitWithCallback({ callbackUrl, clientCode }, submit, acceptedTxids) {
      const wanted = callbackUrl?.trim() || undefined;
      let url: string | undefined;
      try {
        url = wanted === undefined ? undefined : checkWebhookUrl(wanted, policy).href;
      } catch (error) {
        if (error instanceof DestinationRefused) throw new ApiError(400, error.message);
        throw error;
      }
      const answer = await submit();
      const txids = acceptedTxids(answer);
      if (txids.length === 0) return answer;
      const callback: SubscriptionTarget | undefined = url === undefined ? undefined : { url, secretSalt: newSecretSalt(), clientId: null };
      try {
        const code = normaliseClientCode(clientCode);
        const client = code === undefined ? undefined : await clientWebhookForCode(db, code);
        await subscribe(db, txids, [callback, client].filter((t): t is SubscriptionTarget => t !== undefined));
      } catch (error) {
        // The node took the transaction: the answer must say so even when the database failed us here.
        log.error({ err: (error as Error).message, txids }, 'Could not subscribe webhooks for accepted transactions');
        if (!callback) return answer;
        return { ...answer, notice: answer.notice ? `${answer.notice} ${CALLBACK_NOT_SET_NOTICE}` : CALLBACK_NOT_SET_NOTICE };
      }
      return callback ? { ...answer, callback_secret: keys.secretFor(callback.secretSalt) } : answer;
    },
  };
}

/** The members of a submitted package the node took (each tx-result with a txid and no error), whatever the package's overall status. */
export function acceptedPackageTxids(answer: { result: { 'tx-results': Record<string, { txid?: string | undefined; error?: string | undefined }> } }): string[] {
  return Object.values(answer.result['tx-results']).flatMap((r) => (r.txid && !r.error ? [r.txid] : []));
}
