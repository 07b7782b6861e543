import { lazy } from 'react';
import { StaffGuard } from './staff-guard.tsx';

// The dashboard and its libraries load only when staff open it.
const DashboardPage = lazy(() => import('../dashboard/dashboard-page.tsx'));

/** docs/behaviour.md#web-routes: the dashboard needs a stored sign-in token, otherwise /login, which returns here. */
export function DashboardRoute() {
  return (
    <StaffGuard>
      <DashboardPage />
    </StaffGuard>
  );
}
