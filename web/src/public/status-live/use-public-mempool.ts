import { useQuery } from '@tanstack/react-query';
import type { MempoolDashboardState } from '../../mempool-page/mempool-state.ts';

/**
 * The projected blocks' own figures (counts, fee ranges), from the /mempool/
 * view's state: only when the operator turned the public mempool view on
 * (setting public_mempool_view). Otherwise the route refuses a stranger and
 * this is null: the strip then shows positions and the transaction's own
 * data only. Asked without credentials, so a signed-in staff member sees
 * what everyone sees. Refetched whenever the status answer changes (`version`).
 */
export function usePublicMempool(version: number): MempoolDashboardState | null {
  const query = useQuery({
    queryKey: ['public-mempool-state', version],
    queryFn: async ({ signal }) => {
      const response = await fetch('/mempool/api/state', { signal, credentials: 'omit' });
      if (!response.ok) return null;
      return (await response.json()) as MempoolDashboardState;
    },
    retry: false,
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });
  return query.data ?? null;
}
