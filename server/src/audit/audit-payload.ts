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
const SECRET_FIELDS = /^(password|new_password|current_password|token|id_token|access_token|refresh_token|secret|client_secret)$/i;

export function auditPayload(value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return truncateString(value, max);
  const json = JSON.stringify(value, (key, v: unknown) => {
    if (SECRET_FIELDS.test(key) && v !== undefined && v !== null) return '[redacted]';
    return typeof v === 'string' ? truncateString(v, max) : v;
  });
  // Many moderately long strings (a 25-transaction package) can still add up.
  return truncateString(json, max * 8);
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
