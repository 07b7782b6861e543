import type { Logger } from '../../lib/logger.ts';
import type { PoolIdentity } from './pool-identity.ts';

/**
 * The pool's identification settings (pool-identity.ts), read from the
 * database when odds are computed. When they cannot be read (database
 * down), the last ones read serve, and the failure is said once until it
 * changes.
 */
export interface PoolSettingsReader {
  read(): Promise<PoolIdentity>;
  /** Logs a failure to read the settings, unless it is the failure said last. */
  warnOnce(error: unknown, message: string): void;
}

export function createPoolSettingsReader(readSettings: () => Promise<Omit<PoolIdentity, 'network'>>, network: string, log: Logger): PoolSettingsReader {
  let lastIdentity: PoolIdentity | undefined;
  let failure: string | undefined;
  const warnOnce = (error: unknown, message: string) => {
    const text = (error as Error).message;
    if (text !== failure) log.warn({ err: text }, message);
    failure = text;
  };
  return {
    async read() {
      try {
        lastIdentity = { ...(await readSettings()), network };
        failure = undefined;
      } catch (error) {
        if (!lastIdentity) throw error;
        warnOnce(error, 'mempool engine: reading the pool settings failed; using the last ones read');
      }
      return lastIdentity;
    },
    warnOnce,
  };
}
