import type { QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { useNavigate } from 'react-router';
import { clearStoredToken } from '../auth/token-storage.ts';
import { DASHBOARD_TOAST, notify } from '../lib/toasts.tsx';
import { createDashboardQueryClient, SESSION_EXPIRED, UNAUTHORIZED_EVENT } from './query-client.ts';
import { useSessionKeeper } from './use-session-keeper.ts';

/**
 * What every staff page shares: its query client, whose 401s end the session
 * (toast, token removed, back to '/', docs/behaviour.md#error-messages), and the sign-in
 * kept alive while the page is open. `endedRef` is set once the session is
 * over, so a burst of 401s toasts once and a logout is not an expiry.
 */
export function useStaffSession(): { client: QueryClient; endedRef: RefObject<boolean> } {
  const navigate = useNavigate();
  const [client] = useState(createDashboardQueryClient);
  const ended = useRef(false);

  const endSession = useCallback(() => {
    if (ended.current) return;
    ended.current = true;
    notify.error(SESSION_EXPIRED, { ...DASHBOARD_TOAST, toastId: 'session-expired', keepOnNavigate: true });
    clearStoredToken();
    void navigate('/', { replace: true });
  }, [navigate]);

  useEffect(() => {
    window.addEventListener(UNAUTHORIZED_EVENT, endSession);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, endSession);
  }, [endSession]);

  useSessionKeeper({
    onExpired: endSession,
    onSignedOut: () => {
      if (!ended.current) void navigate('/', { replace: true });
    },
  });
  return { client, endedRef: ended };
}
