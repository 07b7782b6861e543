import { useEffect, useRef } from 'react';
import { ApiError } from '../api/http.ts';
import { LOCAL_TOKEN_ISSUER, renewLocalToken } from '../api/login-renew.ts';
import { refusedByProvider, renewSignIn, signInClient } from '../auth/oidc.ts';
import { SIGN_IN_RETRY_DELAYS_MS } from '../auth/retrying-fetch.ts';
import { onStoredSessionChange, rawTokenSet, readStoredSession, storeLocalToken } from '../auth/token-storage.ts';

/** Renew this long before the token set expires (oidc-client-ts's own default). */
export const RENEW_AHEAD_SECONDS = 60;
/**
 * docs/behaviour.md#sign-in-retries: the sign-in layer retries 5 times, waiting 2^n seconds
 * from 1 s (31 s in all, inside the minute ahead). The provider's own calls
 * already retry so in the fetch layer (auth/retrying-fetch.ts); the portal's
 * renewal of a local token retries here.
 */
export const RENEW_RETRY_DELAYS_MS: readonly number[] = SIGN_IN_RETRY_DELAYS_MS;
/** One renewal at a time across this browser's tabs: they share one token set. */
const RENEW_LOCK = 'slipstream-token-renewal';

export interface SessionKeeperHandlers {
  /** The token set expired or could not be renewed. */
  onExpired: () => void;
  /** The token set was removed, e.g. by logging out in another tab. */
  onSignedOut: () => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nowSeconds = () => Date.now() / 1000;

/** Runs `task` holding the browser-wide renewal lock (Web Locks API), or plainly where there is none. */
function withRenewLock<T>(task: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? (locks.request(RENEW_LOCK, task) as Promise<T>) : task();
}

/** 'refused': the issuer said no (final); 'failed': it could not be asked, or retries ran out. */
type RenewOutcome = 'renewed' | 'renewed-elsewhere' | 'refused' | 'failed';

/** How a token set is renewed, and which failures are final rather than worth a retry. */
interface Renewal {
  renew: () => Promise<void>;
  refused: (error: unknown) => boolean;
  /** The waits between attempts here; none where the calls retry themselves. */
  retryDelays: readonly number[];
}

/** The identity provider's set: its refresh token (or a hidden frame); the provider calls retry in the fetch layer. */
const providerRenewal: Renewal = { renew: renewSignIn, refused: refusedByProvider, retryDelays: [] };

/**
 * A local staff account's token: the portal gives a fresh one for a valid
 * one. A 4xx other than 429 is final (the account was removed or changed,
 * or the session reached its limit); network failures, 429 and 5xx are retried.
 */
const localRenewal: Renewal = {
  async renew() {
    const { token } = await renewLocalToken();
    if (!token) throw new Error('No token received');
    storeLocalToken(token);
  },
  refused: (error) => error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429,
  retryDelays: RENEW_RETRY_DELAYS_MS,
};

/**
 * Renews the stored set unless another tab already did. A refresh token is
 * single-use and reusing one revokes the whole grant (RFC 9700 section
 * 4.14.2), so tabs take turns and each re-reads the set once it has the lock.
 * Network failures and 429s are retried; a refusal (by the provider, or by
 * the portal for a local token) is final.
 */
async function renewOnce({ renew, refused, retryDelays }: Renewal): Promise<RenewOutcome> {
  return withRenewLock(async () => {
    const current = readStoredSession();
    if (!current) return 'renewed-elsewhere';
    if (current.renewBy - RENEW_AHEAD_SECONDS > nowSeconds()) return 'renewed-elsewhere';
    const failing = rawTokenSet();
    for (let attempt = 0; ; attempt++) {
      try {
        await renew();
        return 'renewed';
      } catch (error) {
        const final = refused(error);
        const giveUp = final || attempt >= retryDelays.length || nowSeconds() >= current.expiresAt;
        // Only the set that failed is ended: another tab may have stored a good one meanwhile.
        if (giveUp) return rawTokenSet() !== failing ? 'renewed-elsewhere' : final ? 'refused' : 'failed';
        await sleep(retryDelays[attempt]!);
      }
    }
  });
}

/**
 * Keeps the stored sign-in alive while the dashboard is open
 * (docs/behaviour.md#staff-session: tokens auto-renew and are auto-removed): a provider's token set renews a
 * minute before it expires, at the provider or, for a local staff account's
 * token, at the portal (POST /rest-api/login/renew); one that cannot be
 * renewed is removed when it expires.
 */
export function useSessionKeeper(handlers: SessionKeeperHandlers): void {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let renewing = false;
    let disposed = false;
    let lastRenewedAt = 0;
    /** The stored set whose renewal failed while its ID token was still good: it is used until then, not renewed again. */
    let unrenewable: string | null = null;

    const expire = () => {
      if (!disposed) latest.current.onExpired();
    };

    /** Ends the session when the stored set runs out, unless it has changed by then. */
    const expireAt = (expiresAt: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const session = readStoredSession();
        if (session && session.expiresAt <= nowSeconds()) expire();
        else schedule();
      }, Math.max(0, expiresAt * 1000 - Date.now()));
    };

    const renewOrExpire = async () => {
      const session = readStoredSession();
      if (!session) return;
      renewing = true;
      let outcome: RenewOutcome | 'local';
      try {
        if (session.issuer === LOCAL_TOKEN_ISSUER) {
          outcome = await renewOnce(localRenewal);
        } else {
          const provider = await signInClient().catch(() => undefined);
          // No reachable provider, or a set it did not issue: it lives until it expires.
          outcome = provider && session.issuer === provider.issuer ? await renewOnce(providerRenewal) : 'local';
        }
      } finally {
        renewing = false;
      }
      if (disposed) return;
      // The portal refusing a local token's renewal means the account was removed or changed: its token is revoked, so the session ends now.
      if (outcome === 'refused' && session.issuer === LOCAL_TOKEN_ISSUER) expire();
      else if (outcome === 'failed' || outcome === 'refused') {
        // The bearer the API checks is the ID token: while it is valid the session goes on (docs/behaviour.md#staff-session),
        // e.g. after a restart of a provider that kept its refresh tokens in memory.
        const still = readStoredSession();
        if (still && still.expiresAt > nowSeconds()) {
          unrenewable = rawTokenSet();
          expireAt(still.expiresAt);
        } else expire();
      } else if (outcome === 'local') expireAt(session.expiresAt);
      else {
        if (outcome === 'renewed') lastRenewedAt = Date.now();
        schedule();
      }
    };

    function schedule() {
      clearTimeout(timer);
      if (renewing || disposed) return;
      const session = readStoredSession();
      if (!session) {
        latest.current.onSignedOut();
        return;
      }
      if (unrenewable !== null && unrenewable === rawTokenSet()) {
        expireAt(session.expiresAt);
        return;
      }
      const wait = (session.renewBy - RENEW_AHEAD_SECONDS) * 1000 - Date.now();
      if (wait <= 0 && Date.now() - lastRenewedAt < RENEW_AHEAD_SECONDS * 1000) {
        // Renewed a moment ago and still inside the window (the provider sent
        // no new ID token): renewing again would loop, so it lasts until it expires.
        expireAt(session.expiresAt);
        return;
      }
      // setTimeout holds at most 2^31-1 ms; a longer wait is re-armed when it fires.
      const capped = Math.min(Math.max(0, wait), 2 ** 31 - 1);
      timer = setTimeout(() => void (wait > capped ? schedule() : renewOrExpire()), capped);
    }

    schedule();
    const unsubscribe = onStoredSessionChange(schedule);
    return () => {
      disposed = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, []);
}
