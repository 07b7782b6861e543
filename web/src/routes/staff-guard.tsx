import { Suspense, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { hasStoredToken } from '../auth/token-storage.ts';
import type { LoginState } from './login-route.tsx';

/**
 * docs/behaviour.md#web-routes: staff pages need a stored sign-in token, otherwise
 * /login, which returns to the page asked for. The page itself is lazy, so
 * it loads here, after the check.
 */
export function StaffGuard({ children }: { children: ReactNode }) {
  const location = useLocation();
  if (!hasStoredToken()) {
    const state: LoginState = { from: `${location.pathname}${location.search}` };
    return <Navigate to="/login" replace state={state} />;
  }
  return <Suspense fallback={<p role="status">Loading data...</p>}>{children}</Suspense>;
}
