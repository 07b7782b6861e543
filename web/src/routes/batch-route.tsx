import { lazy, Suspense } from 'react';
import { useSiteInfo } from '../api/site-info.ts';
import { SiteHeader } from '../components/site-header.tsx';
import { MaintenanceScreen } from '../public/maintenance-screen.tsx';

// The queue page, its file and archive readers load only when a visitor opens it.
const BatchPage = lazy(() => import('../public/batch/batch-page.tsx'));

/** /batch: many transactions at once (docs/behaviour.md#batch-page); the maintenance screen while staff have submissions paused, as on /. */
export function BatchRoute() {
  const site = useSiteInfo();
  if (site.data?.maintenance) return <MaintenanceScreen contactEmail={site.data.contact_email} companyUrl={site.data.company_url} />;
  return (
    <>
      <SiteHeader />
      <Suspense fallback={<p role="status">Loading...</p>}>
        <BatchPage />
      </Suspense>
    </>
  );
}
