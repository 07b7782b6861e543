import type { MempoolDashboardState } from './mempool-state.ts';

/**
 * The live feed's rules that need no browser (mempool-live.ts applies them):
 * kept apart from the feed, which reads the browser's stored session.
 */

/** Whether `next` should replace `current`: states only move forward. */
export function isNewer(next: MempoolDashboardState, current: MempoolDashboardState | null): boolean {
  return current === null || next.updatedAtMs >= current.updatedAtMs;
}

/**
 * The server's clock minus ours, from an HTTP Date header (RFC 9110, section
 * 6.6.1), whole seconds; under 2 s it is the header's own rounding, not skew.
 */
export function clockOffsetFrom(dateHeader: string | null, receivedAtMs: number): number {
  const serverMs = dateHeader === null ? Number.NaN : Date.parse(dateHeader);
  if (Number.isNaN(serverMs)) return 0;
  const offset = serverMs + 500 - receivedAtMs;
  return Math.abs(offset) < 2_000 ? 0 : offset;
}
