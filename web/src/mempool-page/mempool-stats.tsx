import { memo } from 'react';
import { ago, approxDuration, count, fees, percent, vsize } from './mempool-format.ts';
import type { MempoolDashboardState } from './mempool-state.ts';

/** The mempool's totals: how much is waiting, and what it pays. */
/** Memoised: the page re-renders every second; the totals change only with the mempool. */
export const MempoolTotals = memo(function MempoolTotals({ mempool }: { mempool: MempoolDashboardState['mempool'] }) {
  // A block holds at most 1,000,000 vB (4,000,000 weight units, BIP 141).
  const blocksWorth = mempool.vsize / 1_000_000;
  return (
    <section className="mp-card" aria-labelledby="mp-totals-title">
      <h2 id="mp-totals-title">Mempool</h2>
      <dl className="mp-stats">
        <div>
          <dt>Transactions</dt>
          <dd>{count(mempool.txCount)}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{vsize(mempool.vsize)}</dd>
        </div>
        <div>
          <dt>Total fees</dt>
          <dd>{fees(mempool.totalFees)}</dd>
        </div>
        <div>
          <dt>Blocks&apos; worth</dt>
          <dd>{blocksWorth < 0.1 && blocksWorth > 0 ? '< 0.1' : blocksWorth.toFixed(1)}</dd>
        </div>
      </dl>
    </section>
  );
});

function ShareRow({ label, value }: { label: string; value: number | null }) {
  return (
    <div className="mp-share-row">
      <dt>{label}</dt>
      <dd>
        <span className="mp-share-value">{percent(value)}</span>
        <span className="mp-meter" aria-hidden="true">
          <span style={{ width: `${Math.min(100, Math.max(0, value ?? 0))}%` }} />
        </span>
      </dd>
    </div>
  );
}

/** The pool's share of recent blocks, and when it should find its next one. */
export function PoolShare({ state, nowSeconds }: { state: MempoolDashboardState; nowSeconds: number }) {
  const { poolShare } = state;
  const ourLatest = state.recentBlocks.find((b) => b.ours);
  return (
    <section className="mp-card" aria-labelledby="mp-share-title">
      <h2 id="mp-share-title">Our block share</h2>
      <dl className="mp-share">
        <ShareRow label="Last 24 hours (144 blocks)" value={poolShare.last24h} />
        <ShareRow label="Last 7 days (1,008 blocks)" value={poolShare.last7d} />
        <div className="mp-share-row">
          <dt>Expected time to our next block</dt>
          <dd className="mp-share-value">
            {poolShare.expectedNextBlockSeconds === null ? 'None mined in 24 h' : approxDuration(poolShare.expectedNextBlockSeconds)}
          </dd>
        </div>
        {ourLatest && (
          <div className="mp-share-row">
            <dt>Our latest block</dt>
            <dd className="mp-share-value">
              {count(ourLatest.height)} <span className="mp-muted">· {ago(nowSeconds - ourLatest.time)}</span>
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}
