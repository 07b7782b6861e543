import { Navigate } from 'react-router';
import { hasStoredToken } from '../auth/token-storage.ts';

/** SPEC.md section 2: the dashboard needs a stored sign-in token, otherwise /login. */
export function DashboardRoute() {
  if (!hasStoredToken()) return <Navigate to="/login" replace />;
  return (
    <main>
      <h1>Dashboard</h1>
    </main>
  );
}
