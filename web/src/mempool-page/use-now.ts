import { useEffect, useState } from 'react';

/** The time (ms), ticking every `everyMs`, so that "N s ago" counts on its own. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
