import { compactVerify, CompactSign, decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { ReceiptKeys } from './receipt-keys.ts';

/**
 * A receipt: what the pool says it accepted, as a compact JWS (RFC 7515
 * section 7.1) signed with ES256 by one of its receipt keys
 * (receipt-keys.ts). Its payload is JSON with the fields of ReceiptClaims;
 * anyone checks it with the published keys (GET /.well-known/jwks.json) and
 * nothing else: web/src/public/verify/receipt-check.ts does it in the
 * browser, and the README shows the same in a few lines of JavaScript.
 */

/** The JWS `typ` (RFC 7515 section 4.1.9): tells a receipt from any other JWS the pool's keys could sign. */
export const RECEIPT_TYPE = 'slipstream-receipt+jws';
/** The payload's version. */
export const RECEIPT_VERSION = 1;
/** Far more than a receipt takes (about 900 characters with a quote); a longer text is not one. */
export const MAX_RECEIPT_CHARS = 4_096;

/** The quote a submission named, as its receipt records it. */
export interface ReceiptQuote {
  quote_id: string;
  /** sat/vB: the quoted minimum. */
  threshold: number;
  /** ISO 8601. */
  expires_at: string;
}

export interface ReceiptClaims {
  v: typeof RECEIPT_VERSION;
  /** The pool's name (setting pool_name). */
  pool: string;
  /** The chain: 'mainnet', 'testnet', 'testnet4', 'signet' or 'regtest'. */
  network: string;
  txid: string;
  wtxid: string;
  /** sats. */
  fee: number;
  /** The virtual size the fee was judged by (sigop-adjusted, as the node counts it). */
  vsize: number;
  /** sat/vB: the minimum the submission was judged by (the quoted one when a quote held). */
  threshold: number;
  quote: ReceiptQuote | null;
  /** ISO 8601: when the node accepted it from the portal. */
  accepted_at: string;
}

/** A receipt refused: why, in words for whoever presented it. */
export class ReceiptRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReceiptRefusal';
  }
}

export const RECEIPT_MALFORMED_MESSAGE = 'This is not a receipt of this pool: a receipt is a compact JWS (three base64url parts separated by dots) with the type slipstream-receipt+jws.';
export const RECEIPT_UNKNOWN_KEY_MESSAGE = "The receipt names a key that is not one of the pool's published receipt keys (GET /.well-known/jwks.json).";
export const RECEIPT_WITHDRAWN_KEY_MESSAGE =
  "The receipt was signed with a key the pool has withdrawn (its private half may have leaked), so it no longer proves anything; the transaction's status page still shows what became of it.";
export const RECEIPT_BAD_SIGNATURE_MESSAGE = "The receipt's signature does not verify: it was altered, or not signed by this pool.";

const HEX64 = /^[0-9a-f]{64}$/;
const isIsoTime = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && !Number.isNaN(Date.parse(v));
const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function isQuote(v: unknown): v is ReceiptQuote {
  if (!v || typeof v !== 'object') return false;
  const q = v as Record<string, unknown>;
  return typeof q.quote_id === 'string' && isRate(q.threshold) && isIsoTime(q.expires_at);
}

/** The claims when `value` has every field of ReceiptClaims with its type; undefined otherwise. */
export function receiptClaimsOf(value: unknown): ReceiptClaims | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const c = value as Record<string, unknown>;
  const ok =
    c.v === RECEIPT_VERSION &&
    typeof c.pool === 'string' &&
    typeof c.network === 'string' &&
    typeof c.txid === 'string' && HEX64.test(c.txid) &&
    typeof c.wtxid === 'string' && HEX64.test(c.wtxid) &&
    isCount(c.fee) && isCount(c.vsize) && isRate(c.threshold) &&
    (c.quote === null || isQuote(c.quote)) &&
    isIsoTime(c.accepted_at);
  return ok ? (c as unknown as ReceiptClaims) : undefined;
}

export interface ReceiptSigner {
  sign(claims: ReceiptClaims): Promise<string>;
  /**
   * The claims of a receipt signed by a published key, and that key's id;
   * ReceiptRefusal otherwise. Reads no database row (the keys are cached,
   * receipt-keys.ts) and asks no node.
   */
  verify(receipt: string): Promise<{ claims: ReceiptClaims; kid: string }>;
}

export function createReceiptSigner(keys: ReceiptKeys): ReceiptSigner {
  return {
    async sign(claims) {
      const { kid, key } = await keys.signing();
      return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: 'ES256', kid, typ: RECEIPT_TYPE }).sign(key);
    },

    async verify(receipt) {
      const text = receipt.trim();
      if (text.length > MAX_RECEIPT_CHARS || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) throw new ReceiptRefusal(RECEIPT_MALFORMED_MESSAGE);
      let header: { alg?: unknown; kid?: unknown; typ?: unknown };
      try {
        header = decodeProtectedHeader(text);
      } catch {
        throw new ReceiptRefusal(RECEIPT_MALFORMED_MESSAGE);
      }
      if (header.typ !== RECEIPT_TYPE || header.alg !== 'ES256' || typeof header.kid !== 'string') throw new ReceiptRefusal(RECEIPT_MALFORMED_MESSAGE);
      const found = await keys.lookup(header.kid);
      if (found.kind === 'unknown') throw new ReceiptRefusal(RECEIPT_UNKNOWN_KEY_MESSAGE);
      if (found.kind === 'withdrawn') throw new ReceiptRefusal(RECEIPT_WITHDRAWN_KEY_MESSAGE);
      let payload: Uint8Array;
      try {
        ({ payload } = await compactVerify(text, found.key, { algorithms: ['ES256'] }));
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) throw new ReceiptRefusal(RECEIPT_BAD_SIGNATURE_MESSAGE);
        throw error;
      }
      let claims: ReceiptClaims | undefined;
      try {
        claims = receiptClaimsOf(JSON.parse(new TextDecoder().decode(payload)));
      } catch {
        claims = undefined;
      }
      // Signed by the pool, yet not a receipt it writes: refused all the same.
      if (!claims) throw new ReceiptRefusal(RECEIPT_MALFORMED_MESSAGE);
      return { claims, kid: header.kid };
    },
  };
}
