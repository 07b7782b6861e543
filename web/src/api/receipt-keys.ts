import { api, unwrap } from './http.ts';
import type { paths } from './schema';

export type ReceiptKeySet = paths['/.well-known/jwks.json']['get']['responses'][200]['content']['application/json'];

/**
 * The pool's published receipt keys (RFC 7517 JWK Set). Fetched afresh for
 * each check: a key rotated or withdrawn a minute ago counts as it is now.
 */
export const fetchReceiptKeys = (signal?: AbortSignal) => unwrap(api.GET('/.well-known/jwks.json', { signal, cache: 'no-cache' }));
