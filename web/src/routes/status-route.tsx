import { Navigate, useParams, useSearchParams } from 'react-router';
import { SiteHeader } from '../components/site-header.tsx';
import { StatusPage } from '../public/status-page.tsx';

/**
 * docs/behaviour.md#web-routes: /status needs a txid of at least 3 characters, otherwise back to /.
 * `/tx/<txid>`, the path form block explorers use, opens the same page.
 */
export const MIN_TXID_CHARS = 3;

export function StatusRoute() {
  const [params] = useSearchParams();
  const { txid: inPath } = useParams();
  const txid = (inPath ?? params.get('txid') ?? '').trim();
  if (txid.length < MIN_TXID_CHARS) return <Navigate to="/" replace />;
  return (
    <>
      <SiteHeader />
      <StatusPage key={txid} txid={txid} />
    </>
  );
}
