import { lazy } from 'react';
import { StaffGuard } from './staff-guard.tsx';

// Staff only: the page and its charts never enter the public pages' bundle.
const MetricsPage = lazy(() => import('../metrics-page/metrics-page.tsx'));

/** /metrics: submissions, revenue and node health for signed-in staff; /login otherwise, which returns here. */
export function MetricsRoute() {
  return (
    <StaffGuard>
      <MetricsPage />
    </StaffGuard>
  );
}
