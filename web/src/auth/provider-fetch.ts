import { retryingFetch } from './retrying-fetch.ts';

/**
 * SPEC.md section 4 on the identity provider's own endpoints (discovery,
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

/** Makes this page's calls to the provider at `issuer` retry; other calls are untouched. Once per page. */
export function retryProviderCalls(issuer: string): void {
  const origin = new URL(issuer).origin;
  if (installedFor === origin) return;
  installedFor = origin;
  const plain: Fetch = window.fetch.bind(window);
  const retrying = retryingFetch(plain);
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
