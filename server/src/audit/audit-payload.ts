/**
 * Payloads are stored for the audit trail, but a transaction can be 8 MB of
 * hex: long strings are cut to a few KB with their full length noted, so a
 * row stays small and still says what was sent.
 */
export function truncateString(value: string, max: number): string {
  if (value.length <= max) return value;
  return `${value.slice(0, max)}… [truncated, ${value.length} chars]`;
}

/** Fields whose values never reach the audit trail, at any depth. */
const SECRET_FIELDS = /^(password|new_password|current_password|token|id_token|access_token|refresh_token|secret|client_secret|callback_secret|notify_email)$/i;

/** Stored instead of a payload too deeply nested to serialise. */
export const NESTED_TOO_DEEPLY = '[not recorded: nested too deeply to serialise]';

/** Stored instead of a payload of more values than its stored text could show. */
export const tooManyValues = (limit: number) => `[not recorded: more than ${limit.toLocaleString('en-US')} values]`;

/**
 * Stored instead of the payload of a refused request (no route took it, or
 * the staff API refused its token or role): what a stranger chose to send is
 * not kept, only its size (body and query string), so that a refusal's row
 * stays small. `bytes` is undefined when the size is not known (a chunked body).
 */
export const refusedPayload = (bytes: number | undefined) =>
  bytes === undefined ? '[not recorded: refused request]' : `[not recorded: refused request of ${bytes.toLocaleString('en-US')} bytes]`;

class TooManyValues extends Error {}

export function auditPayload(value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return truncateString(value, max);
  // Every value adds a character at least, so past this many the JSON would be
  // cut anyway: stop there rather than serialise millions of them on the
  // event loop (7.8 MB of empty arrays took 300 ms).
  const limit = max * 8;
  let values = 0;
  let json: string;
  try {
    json = JSON.stringify(value, (key, v: unknown) => {
      if (++values > limit) throw new TooManyValues();
      if (SECRET_FIELDS.test(key) && v !== undefined && v !== null) return '[redacted]';
      return typeof v === 'string' ? truncateString(v, max) : v;
    });
  } catch (error) {
    if (error instanceof TooManyValues) return tooManyValues(limit);
    // A body nested thousands of levels deep parses, but JSON.stringify
    // recurses and runs out of stack: the request is still recorded.
    if (error instanceof RangeError) return NESTED_TOO_DEEPLY;
    throw error;
  }
  // Many moderately long strings (a 25-transaction package) can still add up.
  return truncateString(json, limit);
}

/** A response as stored: secret fields redacted when the JSON has any (checked cheaply first), then cut. */
export function auditResponsePayload(text: string, max: number): string {
  if (/"(?:[a-z_]*token|[a-z_]*password|[a-z_]*secret)"\s*:/i.test(text.slice(0, 64 * 1024))) {
    try {
      return auditPayload(JSON.parse(text) as unknown, max) ?? '';
    } catch {
      // not JSON after all: stored as text below
    }
  }
  return truncateString(text, max);
}
