/**
 * The fee quote the submit page holds for the visitor (the server's
 * quotes: a minimum that holds until it expires, for one client code).
 * `getinfo` answers a fresh quote at every refresh; the page keeps the one
 * it has while that one is lower and still good for a while, so a minimum
 * that rose after the visitor read it does not take back the price they
 * were shown. Kept in the submit panel's state, per client code ('' for none).
 */

export interface HeldQuote {
  quote_id: string;
  threshold: number;
  client_code?: string;
  expires_at: string;
}

/** A quote this close to its end is not named any more: the submission could arrive after it expired. */
export const QUOTE_MARGIN_MS = 15_000;

/** Whether `quote` can still be named at `nowMs`. */
export function usable(quote: HeldQuote | undefined, nowMs: number): quote is HeldQuote {
  return quote !== undefined && Date.parse(quote.expires_at) - nowMs > QUOTE_MARGIN_MS;
}

/** The body field naming `quote` when it can still be named now; nothing otherwise. */
export function quoteField(quote: HeldQuote | undefined): { quote_id?: string } {
  return usable(quote, Date.now()) ? { quote_id: quote.quote_id } : {};
}

/** The quote to hold: the one held while it is usable and no dearer than the fresh one, else the fresh one. */
export function pickQuote(held: HeldQuote | undefined, fresh: HeldQuote | undefined, nowMs: number): HeldQuote | undefined {
  if (!usable(held, nowMs)) return usable(fresh, nowMs) ? fresh : undefined;
  if (!usable(fresh, nowMs)) return held;
  return fresh.threshold < held.threshold || (fresh.threshold === held.threshold && Date.parse(fresh.expires_at) > Date.parse(held.expires_at)) ? fresh : held;
}
