import { useSiteInfo } from './api/site-info.ts';
import { SiteHeader } from './components/site-header.tsx';
import { MaintenanceScreen } from './public/maintenance-screen.tsx';
import { SubmitPage } from './public/submit-page.tsx';

/** The landing page: the submit page, or the maintenance screen while staff have submissions paused. */
export function App() {
  const site = useSiteInfo();
  if (site.data?.maintenance) return <MaintenanceScreen contactEmail={site.data.contact_email} companyUrl={site.data.company_url} />;
  return (
    <>
      <SiteHeader />
      <SubmitPage {...(site.data ? { contactEmail: site.data.contact_email } : {})} />
    </>
  );
}
