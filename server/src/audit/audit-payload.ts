/**
 * Payloads are stored for the audit trail, but a transaction can be 8 MB of
 * hex: long strings are cut to a few KB with their full length noted, so a
 * row stays small and still says what was sent.
 */
export function truncateString(value: string, max: number): string {
  if (value.length <= max) return value;
  return `${value.slice(0, max)}… [truncated, ${value.length} chars]`;
}

export function auditPayload(value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return truncateString(value, max);
  const json = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? truncateString(v, max) : v));
  // Many moderately long strings (a 25-transaction package) can still add up.
  return truncateString(json, max * 8);
}
