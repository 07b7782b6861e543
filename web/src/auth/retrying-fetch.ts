/**
 * SPEC.md section 4: the sign-in layer retries up to 5 times on a network
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

/** `base` with the retries: the last answer (a 429 too) or the last network error once they are spent. */
export function retryingFetch(base: Fetch, wait: Sleep = sleep, delays: readonly number[] = SIGN_IN_RETRY_DELAYS_MS): Fetch {
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await base(input, init);
        if (response.status !== 429 || attempt >= delays.length) return response;
      } catch (error) {
        if (attempt >= delays.length || aborted(error, init)) throw error;
      }
      await wait(delays[attempt]!);
    }
  };
}
