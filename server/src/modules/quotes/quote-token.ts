import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A fee quote: the minimum a submission is judged by, held until it expires,
 * for one client code (or none). It is signed, not stored: the quote id is
 * the quote itself, `q1.<payload>.<tag>`, the payload base64url JSON and the
 * tag an HMAC-SHA256 (RFC 2104) of it under a key derived from the portal's
 * key secret (HKDF, RFC 5869), so no row is written per quote (a stranger
 * asking for a million fills nothing) and every instance sharing the secret
 * honours any of them. The client code is in it only as a keyed hash: a
 * receipt that names the quote does not show the code to whoever it is
 * shown to.
 *
 * Nothing is stored, so nothing marks a quote used: it may be named by any
 * number of submissions until it expires (each still pays at least the
 * quoted minimum, and the validity is the pool's setting).
 */

export const QUOTE_PREFIX = 'q1';
/** Far more than a quote id takes (about 150 characters); the schemas bound the field with it. */
export const MAX_QUOTE_ID_CHARS = 512;

export const QUOTE_INVALID_MESSAGE =
  'The quote is not valid: it was not issued by this portal, or it was altered. Ask for a new quote (GET /api/rates or /rest-api/getinfo) and submit again.';
export const quoteExpiredMessage = (expiresAt: Date) =>
  `The quote expired at ${expiresAt.toISOString()}. Ask for a new quote (GET /api/rates or /rest-api/getinfo) and submit again.`;
export const QUOTE_OTHER_CLIENT_MESSAGE =
  'The quote was issued for another client code: submit with the client code it was issued for, or ask for a new quote with this one (GET /api/rates?client_code=… or /rest-api/getinfo?client_code=…).';
export const QUOTE_NO_CLIENT_MESSAGE =
  'The quote was issued without a client code: submit without one, or ask for a new quote with this client code (GET /api/rates?client_code=… or /rest-api/getinfo?client_code=…).';
export const QUOTE_NEEDS_CLIENT_MESSAGE =
  'The quote was issued for a client code: submit with the client code it was issued for, or ask for a new quote without one.';

/** A quote as issued: what the API answers. */
export interface Quote {
  quote_id: string;
  /** sat/vB. */
  threshold: number;
  /** The client code it holds for; absent: for a submission without one. */
  client_code?: string;
  /** ISO 8601. */
  expires_at: string;
}

/** A quote that holds: its minimum and expiry. */
export interface CheckedQuote {
  quoteId: string;
  threshold: number;
  expiresAt: Date;
}

/** Why a named quote does not hold: the message for the caller. */
export class QuoteRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuoteRefusal';
  }
}

interface QuotePayload {
  /** threshold, sat/vB */
  t: number;
  /** expiry, Unix milliseconds */
  e: number;
  /** keyed hash of the client code; null for none */
  c: string | null;
  /** random: two quotes issued in the same millisecond differ */
  n: string;
}

export interface QuoteSigner {
  issue(input: { threshold: number; clientCode: string | undefined; now: Date; validityMs: number }): Quote;
  /** The quote, when it holds now for a submission with `clientCode`; QuoteRefusal otherwise. */
  check(quoteId: string, clientCode: string | undefined, now: Date): CheckedQuote;
}

/** `portalKey`: the key the portal derives from AUTH_KEY_SECRET or DATA_DIR/auth-key.secret. */
export function createQuoteSigner(portalKey: Buffer): QuoteSigner {
  const key = Buffer.from(hkdfSync('sha256', portalKey, Buffer.alloc(0), 'slipstream-portal fee quotes v1', 32));
  const tag = (payload: string) => createHmac('sha256', key).update(`${QUOTE_PREFIX}.${payload}`).digest();
  const codeHash = (code: string | undefined) => (code === undefined ? null : createHmac('sha256', key).update(`client-code:${code}`).digest('base64url').slice(0, 22));

  function open(quoteId: string): QuotePayload {
    const parts = quoteId.length <= MAX_QUOTE_ID_CHARS ? quoteId.split('.') : [];
    const [prefix, payload, mac] = parts;
    if (parts.length !== 3 || prefix !== QUOTE_PREFIX || !payload || !mac) throw new QuoteRefusal(QUOTE_INVALID_MESSAGE);
    const given = Buffer.from(mac, 'base64url');
    const expected = tag(payload);
    // Compared in constant time, and only then read (RFC 2104 section 5: the tag first).
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new QuoteRefusal(QUOTE_INVALID_MESSAGE);
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as QuotePayload;
    return body;
  }

  return {
    issue({ threshold, clientCode, now, validityMs }) {
      const expires = now.getTime() + validityMs;
      const body: QuotePayload = { t: threshold, e: expires, c: codeHash(clientCode), n: randomBytes(6).toString('base64url') };
      const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
      const quoteId = `${QUOTE_PREFIX}.${payload}.${tag(payload).toString('base64url')}`;
      return { quote_id: quoteId, threshold, ...(clientCode !== undefined ? { client_code: clientCode } : {}), expires_at: new Date(expires).toISOString() };
    },

    check(quoteId, clientCode, now) {
      const body = open(quoteId.trim());
      const expiresAt = new Date(body.e);
      if (now.getTime() >= body.e) throw new QuoteRefusal(quoteExpiredMessage(expiresAt));
      const given = codeHash(clientCode);
      if (body.c !== given) {
        throw new QuoteRefusal(body.c === null ? QUOTE_NO_CLIENT_MESSAGE : given === null ? QUOTE_NEEDS_CLIENT_MESSAGE : QUOTE_OTHER_CLIENT_MESSAGE);
      }
      return { quoteId: quoteId.trim(), threshold: body.t, expiresAt };
    },
  };
}
