import { lazy, Suspense } from 'react';
import { Navigate, useLocation } from 'react-router';
import { hasStoredToken } from '../auth/token-storage.ts';
import type { LoginState } from './login-route.tsx';

// The dashboard and its libraries load only when staff open it.
const DashboardPage = lazy(() => import('../dashboard/dashboard-page.tsx'));

/** SPEC.md section 2: the dashboard needs a stored sign-in token, otherwise /login, which returns here. */
export function DashboardRoute() {
  const location = useLocation();
  if (!hasStoredToken()) {
    const state: LoginState = { from: `${location.pathname}${location.search}` };
    return <Navigate to="/login" replace state={state} />;
  }
  return (
    <Suspense fallback={<p role="status">Loading data...</p>}>
      <DashboardPage />
    </Suspense>
  );
}
