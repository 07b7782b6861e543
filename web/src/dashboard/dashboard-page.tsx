import { QueryClientProvider } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { signInClient, signOutAtProvider } from '../auth/oidc.ts';
import { clearStoredToken, readStoredSession } from '../auth/token-storage.ts';
import { DASHBOARD_TOAST, notify } from '../lib/toasts.tsx';
import { DashboardShell } from './dashboard-shell.tsx';
import { createDashboardQueryClient, SESSION_EXPIRED, UNAUTHORIZED_EVENT } from './query-client.ts';
import { useSessionKeeper } from './use-session-keeper.ts';

export { SESSION_EXPIRED };

/** The staff dashboard, loaded lazily: public pages never download it. */
export default function DashboardPage() {
  const navigate = useNavigate();
  const [client] = useState(createDashboardQueryClient);
  // Set once the session is over, so a burst of 401s toasts once and logout is not an expiry.
  const ended = useRef(false);

  const endSession = useCallback(() => {
    if (ended.current) return;
    ended.current = true;
    notify.error(SESSION_EXPIRED, { ...DASHBOARD_TOAST, toastId: 'session-expired' });
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

  async function logout() {
    ended.current = true;
    const session = readStoredSession();
    const provider = await signInClient().catch(() => undefined);
    if (session && provider && session.issuer === provider.issuer) {
      try {
        await signOutAtProvider(session.idToken); // leaves for the provider's sign-out page
        return;
      } catch {
        // The provider is unreachable: signing out here still ends the session in this browser.
      }
    }
    clearStoredToken();
    await navigate('/', { replace: true });
  }

  return (
    <QueryClientProvider client={client}>
      <DashboardShell onLogout={logout} />
    </QueryClientProvider>
  );
}
