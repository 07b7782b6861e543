import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { txStatusQuery, type TxStatus } from '../../api/status-check.ts';

/** GET /rest-api/status-stream (server/src/modules/status/status-stream.ts): the status-check answer, pushed when it changes. */
export const STATUS_STREAM_PATH = '/rest-api/status-stream';

/**
 * Keeps the status page's answer live: every `status` event replaces the
 * status-check query's data, as a poll would (its age, hence the freshness
 * dot, restarts with it). The 30-second poll stays as the fallback: a
 * stream that cannot open, or drops, leaves the page as it was without it;
 * EventSource reconnects on its own. Closed once the answer is final.
 * Returns whether the stream is open.
 */
export function useStatusStream(txid: string, enabled: boolean): boolean {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    const source = new EventSource(`${STATUS_STREAM_PATH}?tx_id=${encodeURIComponent(txid)}`);
    source.onopen = () => setOpen(true);
    source.onerror = () => setOpen(false);
    source.addEventListener('status', (event) => {
      const answer = JSON.parse((event as MessageEvent<string>).data) as TxStatus;
      const { queryKey } = txStatusQuery(txid);
      // A poll already under way was asked before this answer: landing after it, it would put the older state back.
      void queryClient.cancelQueries({ queryKey, exact: true });
      queryClient.setQueryData(queryKey, answer);
    });
    return () => {
      source.close();
      setOpen(false);
    };
  }, [txid, enabled, queryClient]);
  return open;
}
