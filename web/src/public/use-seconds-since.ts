import { useEffect, useState } from 'react';

/** Whole seconds since `since` (ms), ticking every second while `ticking` (a final answer does not age). */
export function useSecondsSince(since: number, ticking = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return Math.max(0, Math.floor((now - since) / 1000));
}

/** docs/behaviour.md#status-page: green under 29 s, orange under 59 s, red after. */
export function freshness(seconds: number): 'fresh' | 'ageing' | 'stale' {
  if (seconds < 29) return 'fresh';
  if (seconds < 59) return 'ageing';
  return 'stale';
}
