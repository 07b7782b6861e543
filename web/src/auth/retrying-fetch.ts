/**
 * docs/behaviour.md#sign-in-retries: the sign-in layer retries up to 5 times on a network
 * failure or a 429, waiting 2^n seconds from 1 s (1, 2, 4, 8, 16: 31 s in
 * all). It uses none of the page's globals, so it is tested without a browser.
 */
export const SIGN_IN_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 16000];

type Fetch = typeof fetch;
type Sleep = (ms: number) => Promise<void>;

const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An abort is the caller's decision (a timeout or a page leaving), not a failure worth retrying. */
function aborted(error: unknown, init: RequestInit | undefined): boolean {
  return init?.signal?.aborted === true || (error instanceof DOMException && error.name === 'AbortError');
}

/** A failed attempt that will be retried: which one (1-based) of how many, and why. */
export interface RetryNotice {
  attempt: number;
  attempts: number;
  reason: 'unreachable' | 'busy';
  /** When the next attempt starts. */
  retryInMs: number;
}

/**
 * `base` with the retries: the last answer (a 429 too) or the last network
 * error once they are spent. `onRetry` hears of each failed attempt before
 * the wait, so that a page can say what is happening rather than wait in silence.
 */
export function retryingFetch(base: Fetch, wait: Sleep = sleep, delays: readonly number[] = SIGN_IN_RETRY_DELAYS_MS, onRetry?: (notice: RetryNotice) => void): Fetch {
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      let reason: RetryNotice['reason'];
      try {
        const response = await base(input, init);
        if (response.status !== 429 || attempt >= delays.length) return response;
        reason = 'busy';
      } catch (error) {
        if (attempt >= delays.length || aborted(error, init)) throw error;
        reason = 'unreachable';
      }
      onRetry?.({ attempt: attempt + 1, attempts: delays.length + 1, reason, retryInMs: delays[attempt]! });
      await wait(delays[attempt]!);
    }
  };
}
