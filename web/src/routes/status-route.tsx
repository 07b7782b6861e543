import { Navigate, useSearchParams } from 'react-router';

/** SPEC.md section 2: /status needs a txid of at least 3 characters, otherwise back to /. */
export const MIN_TXID_CHARS = 3;

export function StatusRoute() {
  const [params] = useSearchParams();
  const txid = params.get('txid') ?? '';
  if (txid.trim().length < MIN_TXID_CHARS) return <Navigate to="/" replace />;
  return (
    <main>
      <h1>Transaction status</h1>
      <p>
        Transaction <code>{txid}</code>
      </p>
    </main>
  );
}
