import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { SettingsStore } from '../modules/settings/settings.store.ts';
import { authenticate } from './staff-scope.ts';
import type { TokenVerifier } from './token-verifier.ts';
import { within } from '../lib/within.ts';

/**
 * Who may see the private mempool's aggregates (docs/behaviour.md#private-until-mined:
 * transactions stay private until mined): the /mempool/ view's state and
 * stream, the health details, and the Prometheus scrape when no
 * METRICS_TOKEN is set. Everyone when the `public_mempool_view` setting is
 * on; otherwise signed-in staff only, viewers included, their bearer token
 * checked by the same verifier and with the same answers as the staff scope
 * (staff-scope.ts).
 *
 * The setting is read through the settings store (cached for seconds), and
 * bounded in time: a hung database must not hang the health check that
 * reports it. When it cannot be read, the last value read stands (private
 * until one was), so an outage neither opens the view nor hides the health
 * details from monitors that were allowed them.
 */

export const MEMPOOL_VIEW_PRIVATE_MESSAGE = 'The mempool view is private: sign in to the dashboard to see it.';

/** The settings read's bound: as long as the health check gives the database (DEFAULT_DATABASE_TIMEOUT_MS). */
const SETTING_TIMEOUT_MS = 1_000;

export interface MempoolViewAccess {
  /**
   * Whether this request may see the aggregates, within about a second (for
   * the health check). Never throws: a token that does not verify, or that
   * cannot be checked in time, is a no.
   */
  allows(request: FastifyRequest): Promise<boolean>;
  /**
   * Passes when it may; otherwise throws the staff scope's answer: 401 in the
   * API's error shape (`message` when no token was sent), or 503 when the
   * sign-in provider cannot be asked.
   */
  require(request: FastifyRequest, message?: string): Promise<void>;
}

export interface MempoolViewAccessDeps {
  settings: SettingsStore;
  /** The staff token verifier; without staff sign-in, only the setting opens the view. */
  verifier: TokenVerifier | undefined;
  log: Logger;
  settingTimeoutMs?: number;
}

export function createMempoolViewAccess(deps: MempoolViewAccessDeps): MempoolViewAccess {
  const { settings, verifier, log } = deps;
  const timeoutMs = deps.settingTimeoutMs ?? SETTING_TIMEOUT_MS;
  let lastKnown = false;
  let failing = false;

  async function isPublic(): Promise<boolean> {
    try {
      lastKnown = (await within(settings.get(), timeoutMs)).publicMempoolView;
      if (failing) log.info({}, 'mempool view: the public_mempool_view setting is readable again');
      failing = false;
    } catch (error) {
      // Said once per outage: the health check is polled every few seconds.
      if (!failing) log.warn({ err: (error as Error).message, publicView: lastKnown }, 'mempool view: the public_mempool_view setting could not be read; keeping its last value');
      failing = true;
    }
    return lastKnown;
  }

  async function verifies(request: FastifyRequest, verifier: TokenVerifier): Promise<boolean> {
    try {
      // Bounded like the setting: a local token's key is read from the database. The health
      // check is polled and not rate limited: a refused token there is logged at debug only.
      await within(authenticate(request, verifier, { refusedLogLevel: 'debug' }), timeoutMs);
      return true;
    } catch (error) {
      // authenticate has logged why (a refused token, an unreachable provider); anything else is logged here.
      if (!(error instanceof ApiError)) request.log.warn({ err: (error as Error).message }, 'mempool view: the staff token could not be checked');
      return false;
    }
  }

  return {
    async allows(request) {
      if (await isPublic()) return true;
      if (!verifier || request.headers.authorization === undefined) return false;
      return verifies(request, verifier);
    },

    async require(request, message = MEMPOOL_VIEW_PRIVATE_MESSAGE) {
      if (await isPublic()) return;
      if (!verifier || request.headers.authorization === undefined) throw new ApiError(401, message);
      // A header that is not a Bearer token is refused there, as the staff API refuses it.
      await authenticate(request, verifier);
    },
  };
}
