import { retryingFetch, type RetryNotice } from './retrying-fetch.ts';

/**
 * docs/behaviour.md#sign-in-retries on the identity provider's own endpoints (discovery,
 * token): oidc-client-ts calls the global fetch and takes no fetch of its
 * own, so this page's calls to the provider's origin, and only those, go
 * through the sign-in layer's retries (retrying-fetch.ts).
 */

type Fetch = typeof fetch;

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

let installedFor: string | undefined;

/**
 * How long one call to the provider may take before it counts as a network
 * failure (and is retried): a provider that does not answer at all would
 * otherwise hold the page for the browser's own timeout, minutes.
 */
export const PROVIDER_ATTEMPT_TIMEOUT_MS = 5_000;

const listeners = new Set<(notice: RetryNotice) => void>();

/** Hears of each failed call to the provider that is about to be retried; answers the unsubscribe. */
export function watchProviderRetries(listener: (notice: RetryNotice) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A call that gives up after PROVIDER_ATTEMPT_TIMEOUT_MS unless its caller brought its own signal. */
function withTimeout(plain: Fetch): Fetch {
  return (input, init) => plain(input, init?.signal ? init : { ...init, signal: AbortSignal.timeout(PROVIDER_ATTEMPT_TIMEOUT_MS) });
}

/** Makes this page's calls to the provider at `issuer` retry; other calls are untouched. Once per page. */
export function retryProviderCalls(issuer: string): void {
  const origin = new URL(issuer).origin;
  if (installedFor === origin) return;
  installedFor = origin;
  const plain: Fetch = window.fetch.bind(window);
  const retrying = retryingFetch(withTimeout(plain), undefined, undefined, (notice) => {
    for (const listener of listeners) listener(notice);
  });
  window.fetch = (input, init) => {
    let target: string | undefined;
    try {
      target = new URL(urlOf(input), window.location.href).origin;
    } catch {
      target = undefined;
    }
    return target === origin ? retrying(input, init) : plain(input, init);
  };
}
