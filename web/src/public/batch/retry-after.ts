/** When a 429 names no usable wait. */
const DEFAULT_WAIT_MS = 5_000;

/** How long a 429's Retry-After asks to wait (RFC 9110 section 10.2.3: seconds, or an HTTP date). */
export function retryAfterMs(header: string | null, now: number): number {
  if (header === null) return DEFAULT_WAIT_MS;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return DEFAULT_WAIT_MS;
  return Math.max(0, date - now);
}
