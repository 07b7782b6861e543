import type { Logger } from '../logger.ts';
import type { PoolRecogniser } from './block-tracker.ts';

/**
 * The pool's recogniser, made by the server from the pool's identification
 * settings (server/src/modules/settings/pool-identity.ts) and read when odds
 * are computed. When it cannot be made (database down), the last one made
 * serves, and the failure is said once until it changes.
 */
export interface PoolSettingsReader {
  read(): Promise<PoolRecogniser>;
  /** Logs a failure to read the settings, unless it is the failure said last. */
  warnOnce(error: unknown, message: string): void;
}

export function createPoolSettingsReader(readRecogniser: () => Promise<PoolRecogniser>, log: Logger): PoolSettingsReader {
  let last: { recogniser: PoolRecogniser } | undefined;
  let failure: string | undefined;
  const warnOnce = (error: unknown, message: string) => {
    const text = (error as Error).message;
    if (text !== failure) log.warn({ err: text }, message);
    failure = text;
  };
  return {
    async read() {
      try {
        last = { recogniser: await readRecogniser() };
        failure = undefined;
      } catch (error) {
        if (!last) throw error;
        warnOnce(error, 'mempool engine: reading the pool settings failed; using the last ones read');
      }
      return last.recogniser;
    },
    warnOnce,
  };
}
