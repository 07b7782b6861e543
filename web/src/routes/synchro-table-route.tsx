import { useEffect, useState } from 'react';
import { fetchSynchroTable } from '../api/synchro-table.ts';

/**
 * /synchro/table (docs/behaviour.md#synchro-table): a blank page that fetches the synchro
 * table, with no visible content. The fetch's outcome is left on the page
 * as a data attribute (loading, loaded, or the HTTP status it failed with)
 * for a probe that loads the page; the figures themselves are the
 * endpoint's, for staff.
 */
export function SynchroTableRoute() {
  const [state, setState] = useState('loading');
  useEffect(() => {
    const controller = new AbortController();
    fetchSynchroTable(controller.signal).then(
      () => setState('loaded'),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState(`failed${typeof error === 'object' && error !== null && 'status' in error ? `-${String(error.status)}` : ''}`);
      },
    );
    return () => controller.abort();
  }, []);
  return <main className="synchro-table" data-synchro={state} />;
}
