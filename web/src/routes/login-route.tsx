import { Navigate } from 'react-router';
import { hasStoredToken } from '../auth/token-storage.ts';

/** SPEC.md section 2: straight to /dashboard when a token is stored; otherwise the sign-in redirect starts here. */
export function LoginRoute() {
  if (hasStoredToken()) return <Navigate to="/dashboard" replace />;
  return <p role="status">Redirecting to login...</p>;
}
