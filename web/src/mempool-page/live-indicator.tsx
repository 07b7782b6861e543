import { ago, lag } from './mempool-format.ts';
import type { ConnectionStatus } from './mempool-live.ts';

const LABEL: Record<ConnectionStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  private: 'Private',
};

/**
 * Whether the view is live, how old its data is and how far the engine trails
 * the node. Only the connection's state is announced to screen readers; the
 * age ticks every second and would be noise.
 */
export function LiveIndicator({ status, updatedAgoSeconds, lagMs }: { status: ConnectionStatus; updatedAgoSeconds: number | null; lagMs: number | null }) {
  // Connected with nothing to show yet is not live.
  const label = status === 'live' && updatedAgoSeconds === null ? 'Connected' : LABEL[status];
  return (
    <div className={`mp-live mp-live-${status}`}>
      <span className="mp-live-state">
        <span className="mp-live-dot" aria-hidden="true" />
        <span role="status">{label}</span>
      </span>
      {updatedAgoSeconds !== null && (
        <span>
          {status === 'live' ? 'Updated' : 'Showing data from'} {ago(updatedAgoSeconds)}
        </span>
      )}
      {lagMs !== null && <span title="How far the mempool mirror trails the node">Lag {lag(lagMs)}</span>}
    </div>
  );
}
