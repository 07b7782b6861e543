import { Navigate, useSearchParams } from 'react-router';
import { SiteHeader } from '../components/site-header.tsx';
import { StatusPage } from '../public/status-page.tsx';

/** SPEC.md section 2: /status needs a txid of at least 3 characters, otherwise back to /. */
export const MIN_TXID_CHARS = 3;

export function StatusRoute() {
  const [params] = useSearchParams();
  const txid = (params.get('txid') ?? '').trim();
  if (txid.length < MIN_TXID_CHARS) return <Navigate to="/" replace />;
  return (
    <>
      <SiteHeader />
      <StatusPage key={txid} txid={txid} />
    </>
  );
}
