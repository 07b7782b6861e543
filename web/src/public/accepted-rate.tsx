import { useQuery } from '@tanstack/react-query';
import { txStatusQuery } from '../api/status-check.ts';
import { feeRate } from '../lib/format.ts';

/**
 * Under an accepted transaction: the rate to beat for its size and what it
 * pays, from the same status answer its status page shows (so the two
 * always agree), and whether that puts it in line for the next block.
 * Nothing while the answer is on its way or once it is mined. Asked once
 * (the status page is where it is followed): a public read like any other.
 */
export function AcceptedRate({ txid }: { txid: string }) {
  const { data } = useQuery({ ...txStatusQuery(txid), refetchInterval: false });
  if (!data || data.state !== 'in_mempool' || data.rate_to_beat === null) return null;
  const inLine = data.transaction.position.block === 0;
  return (
    <p className="accepted-rate" data-testid="accepted-rate">
      Rate to beat for its size: <span data-testid="accepted-rate-to-beat">{feeRate(data.rate_to_beat)}</span>; it pays{' '}
      {feeRate(data.functional_rate)}.{' '}
      {inLine ? 'In line for the next block.' : 'Not yet in line for the next block: its status page says how to bump it.'}
    </p>
  );
}
