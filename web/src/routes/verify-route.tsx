import { SiteHeader } from '../components/site-header.tsx';
import { VerifyPage } from '../public/verify/verify-page.tsx';

/** /verify: a receipt checked in the browser (docs/behaviour.md#quotes-and-receipts); `/verify#receipt=<jws>` checks the one given at once. */
export function VerifyRoute() {
  return (
    <>
      <SiteHeader />
      <VerifyPage />
    </>
  );
}
