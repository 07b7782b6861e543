import type { Logger } from './logger.ts';

/**
 * Runs `check` whenever `subscribe` says something changed (and once at the
 * start), at most once per `minIntervalMs` and one at a time: a change during
 * a check runs it again after, a change too soon runs it when the interval is
 * up. A check that keeps failing the same way is logged once. Returns stop.
 */
export function followThrottled(options: {
  subscribe: (onChange: () => void) => () => void;
  check: () => Promise<void>;
  minIntervalMs: number;
  log: Logger;
  /** The warning logged when a check fails. */
  failure: string;
}): () => void {
  const { check, minIntervalMs, log } = options;
  let checking = false;
  let again = false;
  let lastCheck = 0;
  let timer: NodeJS.Timeout | undefined;
  // While the node is down every check fails the same way: say so once.
  let lastError: string | undefined;

  function run(): void {
    if (checking) {
      again = true;
      return;
    }
    const wait = lastCheck + minIntervalMs - Date.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = undefined;
        run();
      }, wait);
      timer.unref();
      return;
    }
    checking = true;
    lastCheck = Date.now();
    check()
      .then(() => {
        lastError = undefined;
      })
      .catch((error: unknown) => {
        const message = (error as Error).message;
        if (message !== lastError) log.warn({ err: message }, options.failure);
        lastError = message;
      })
      .finally(() => {
        checking = false;
        if (again) {
          again = false;
          run();
        }
      });
  }

  const unsubscribe = options.subscribe(run);
  run();
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
