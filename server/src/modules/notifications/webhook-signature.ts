import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook bodies are signed so a receiver can tell they came from this portal
 * and were not replayed: HMAC-SHA256 over "<timestamp>.<body>" with a secret
 * only the receiver and the portal hold, sent as
 * `Slipstream-Signature: t=<unix seconds>,v1=<hex>`. Signing the timestamp
 * with the body lets a receiver refuse old deliveries (replay) without
 * trusting a separate, unsigned header.
 */

export const SIGNATURE_HEADER = 'slipstream-signature';

/** A new secret to give a client or a submitter once: 32 random bytes, prefixed so it is recognisable in a config file. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmac(secret, unixSeconds, body)}`;
}

/**
 * What a receiver runs (documented in the README): true when the header is a
 * valid signature of `body` made with `secret` no more than `toleranceSeconds`
 * from `nowSeconds`.
 */
export function verifySignature(secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const fields = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const t = Number(fields.get('t'));
  const v1 = fields.get('v1');
  if (!Number.isSafeInteger(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  return timingSafeEqual(Buffer.from(v1, 'hex'), Buffer.from(hmac(secret, t, body), 'hex'));
}

function hmac(secret: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
}
