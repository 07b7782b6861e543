import { ApiError } from '../../http/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { normaliseClientCode } from '../discounts/discount-lookup.ts';
import type { SettingsStore } from '../settings/settings.store.ts';
import { QuoteRefusal, type CheckedQuote, type Quote, type QuoteSigner } from './quote-token.ts';

/**
 * Quotes that hold (quote-token.ts): issued beside the current minimum by
 * GET /api/rates and GET /rest-api/getinfo, valid for the minutes the
 * setting quote_validity_minutes says, and honoured by every submission
 * path (both APIs, single and package) that names one: the minimum it is
 * judged by is then the quoted one, or the current one when that is lower
 * (a quote is a ceiling, never a surcharge).
 */

export interface QuoteService {
  /** A quote of `threshold` for `clientCode`, valid from now for the setting's minutes. */
  issue(threshold: number, clientCode: string | undefined): Promise<Quote>;
  /** The named quote when it holds for this client code now; none when none was named; 422 with the reason otherwise. */
  check(quoteId: string | undefined, clientCode: string | undefined): CheckedQuote | undefined;
}

/** The minimum a submission is judged by: the quoted one when a quote holds, unless the current one is lower. */
export function appliedThreshold(current: number, quote: CheckedQuote | undefined): number {
  return quote === undefined ? current : Math.min(current, quote.threshold);
}

export function createQuoteService(deps: { signer: QuoteSigner; settings: SettingsStore; clock: Clock }): QuoteService {
  const { signer, settings, clock } = deps;
  return {
    async issue(threshold, clientCode) {
      const { quoteValidityMinutes } = await settings.get();
      return signer.issue({ threshold, clientCode: normaliseClientCode(clientCode), now: clock.now(), validityMs: Math.round(quoteValidityMinutes * 60_000) });
    },
    check(quoteId, clientCode) {
      if (quoteId === undefined || quoteId.trim() === '') return undefined;
      try {
        return signer.check(quoteId, normaliseClientCode(clientCode), clock.now());
      } catch (error) {
        if (error instanceof QuoteRefusal) throw new ApiError(422, error.message);
        throw error;
      }
    },
  };
}
