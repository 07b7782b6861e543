import { useEffect, useState } from 'react';
import type { paths } from './api/schema';
import { SiteHeader } from './components/site-header.tsx';

type Info = paths['/rest-api/getinfo']['get']['responses'][200]['content']['application/json'];

/** Placeholder landing page until the public web app lands: it shows the API is alive. */
export function App() {
  const [info, setInfo] = useState<Info | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    fetch('/rest-api/getinfo', { headers: { 'x-portal-client': 'web' } })
      .then((r) => (r.ok ? (r.json() as Promise<Info>) : Promise.reject(new Error(String(r.status)))))
      .then(setInfo)
      .catch(() => setFailed(true));
  }, []);

  return (
    <>
      <SiteHeader />
      <main className="landing">
        <h1>{info ? `${info.network} ` : ''}Direct Transaction Submission Portal.</h1>
        {failed && <p role="alert">Unable to connect to Slipstream server. Please try again in 60 seconds.</p>}
        {info && (
          <p>
            Block height {info.block_height}. Current minimum fee rate: {(Math.ceil(info.fee_rate * 100) / 100).toFixed(2)} sat/vB.
          </p>
        )}
      </main>
    </>
  );
}
