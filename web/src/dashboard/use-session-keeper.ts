import { useEffect, useRef } from 'react';
import { renewSignIn, signInClient } from '../auth/oidc.ts';
import { onStoredSessionChange, readStoredSession } from '../auth/token-storage.ts';

/** Renew this long before the token set expires (oidc-client-ts's own default). */
export const RENEW_AHEAD_SECONDS = 60;

export interface SessionKeeperHandlers {
  /** The token set expired or could not be renewed. */
  onExpired: () => void;
  /** The token set was removed, e.g. by logging out in another tab. */
  onSignedOut: () => void;
}

/**
 * Keeps the stored sign-in alive while the dashboard is open (SPEC.md section
 * 6: tokens auto-renew and are auto-removed): a provider's token set renews a
 * minute before it expires; one that cannot be renewed, or a local staff
 * account's token, is removed when it expires.
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

    const expire = () => {
      if (!disposed) latest.current.onExpired();
    };

    const renewOrExpire = async () => {
      const session = readStoredSession();
      if (!session) return;
      // From here until the new set is stored, change events must not start a second renewal:
      // a refresh token is single-use, and reusing one revokes the whole grant (RFC 9700 section 4.14.2).
      renewing = true;
      let providerIssuer: string | undefined;
      try {
        providerIssuer = (await signInClient()).issuer;
      } catch {
        providerIssuer = undefined;
      }
      if (session.issuer !== providerIssuer) {
        renewing = false;
        // A local account's token (or the provider cannot be reached): it lives until it expires.
        const left = session.expiresAt * 1000 - Date.now();
        if (left <= 0) expire();
        else timer = setTimeout(expire, left);
        return;
      }
      let renewed = false;
      try {
        await renewSignIn();
        renewed = true;
      } catch {
        expire();
      } finally {
        renewing = false;
      }
      if (renewed) schedule();
    };

    const schedule = () => {
      clearTimeout(timer);
      if (renewing || disposed) return;
      const session = readStoredSession();
      if (!session) {
        latest.current.onSignedOut();
        return;
      }
      const wait = Math.max(0, (session.expiresAt - RENEW_AHEAD_SECONDS) * 1000 - Date.now());
      // setTimeout holds at most 2^31-1 ms; a longer wait is re-armed when it fires.
      timer = setTimeout(() => void (wait > 2 ** 31 - 1 ? schedule() : renewOrExpire()), Math.min(wait, 2 ** 31 - 1));
    };

    schedule();
    const unsubscribe = onStoredSessionChange(schedule);
    return () => {
      disposed = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, []);
}
