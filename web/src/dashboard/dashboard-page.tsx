import { QueryClientProvider } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { signInClient, signOutAtProvider } from '../auth/oidc.ts';
import { clearStoredToken, readStoredSession } from '../auth/token-storage.ts';
import { DashboardShell } from './dashboard-shell.tsx';
import { SESSION_EXPIRED } from './query-client.ts';
import { useStaffSession } from './use-staff-session.ts';

export { SESSION_EXPIRED };

/** The staff dashboard, loaded lazily: public pages never download it. */
export default function DashboardPage() {
  const navigate = useNavigate();
  const { client, endedRef } = useStaffSession();

  async function logout() {
    endedRef.current = true;
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
