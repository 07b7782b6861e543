import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'oidc-provider';

/** A private signing key set in JWK form (RFC 7517), as oidc-provider takes it. */
export interface SigningKeySet {
  keys: JWK[];
}

/**
 * Fresh private signing keys for the embedded provider: one RS256 key (the ID
 * token algorithm every OIDC client must support, OIDC Core 1.0 section 15.1)
 * and one ES256 key. The kid is the RFC 7638 thumbprint, so a rotated key
 * always carries a new kid.
 */
export async function generateSigningKeys(): Promise<SigningKeySet> {
  const keys: JWK[] = [];
  for (const alg of ['RS256', 'ES256'] as const) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk);
    keys.push({ ...jwk, kid, alg, use: 'sig' });
  }
  return { keys };
}
