import { BlockStrip } from './block-strip.tsx';
import { FeeHistogram } from './fee-histogram.tsx';
import { LiveIndicator } from './live-indicator.tsx';
import { networkName } from './mempool-format.ts';
import { PRIVATE_VIEW, useMempoolLive } from './mempool-live.ts';
import { MempoolTotals, PoolShare } from './mempool-stats.tsx';
import type { MempoolDashboardState } from './mempool-state.ts';
import { useNow } from './use-now.ts';

/**
 * The /mempool/ dashboard (docs/behaviour.md#mempool-view): the blocks the pool would build next and
 * the ones just mined, the mempool by fee rate, its totals and the pool's
 * share of blocks, live. It fills its window, whether that is the staff
 * dashboard's frame or a tab of its own.
 */

const embedded = window.self !== window.top;

function Dashboard({ state, serverNowMs }: { state: MempoolDashboardState; serverNowMs: number }) {
  const nowSeconds = Math.floor(serverNowMs / 1000);
  const next = state.projectedBlocks.find((b) => b.index === 0) ?? state.projectedBlocks[0];
  return (
    <>
      <BlockStrip projected={state.projectedBlocks} mined={state.recentBlocks} nowSeconds={nowSeconds} />
      <section className="mp-card mp-histogram" aria-labelledby="mp-histogram-title">
        <h2 id="mp-histogram-title">Fee rates in the mempool</h2>
        <FeeHistogram histogram={state.histogram} nextBlockMinRate={next ? next.minRate : null} />
      </section>
      <div className="mp-side">
        <MempoolTotals mempool={state.mempool} />
        <PoolShare state={state} nowSeconds={nowSeconds} />
      </div>
    </>
  );
}

function Waiting({ problem }: { problem: string | null }) {
  return (
    <div className="mp-waiting">
      <div className="mp-waiting-blocks" aria-hidden="true">
        {[0, 1, 2, 3].map((i) => (
          <span key={i} className="mp-cube mp-cube-ghost" />
        ))}
      </div>
      <p>{problem ?? 'Waiting for the mempool…'}</p>
    </div>
  );
}

/** The view is for signed-in staff and this browser has no valid session: said plainly, nothing spinning. */
function PrivateView({ message }: { message: string }) {
  return (
    <div className="mp-waiting mp-private">
      <p>{message}</p>
      {/* target _top: inside the dashboard's frame, the sign-in takes the whole window. */}
      <a className="mp-sign-in" href="/dashboard?section=mempool" target="_top">
        Sign in
      </a>
    </div>
  );
}

export function MempoolPage() {
  const live = useMempoolLive();
  const now = useNow();
  const serverNowMs = now + live.clockOffsetMs;
  const { state } = live;
  return (
    <div className={`mp-page${embedded ? ' mp-embedded' : ''}`}>
      <header className="mp-header">
        <div className="mp-title">
          <h1>Mempool</h1>
          {state && <span className="mp-network">{networkName(state.network)}</span>}
        </div>
        <LiveIndicator
          status={live.status}
          updatedAgoSeconds={state ? (serverNowMs - state.updatedAtMs) / 1000 : null}
          lagMs={state ? state.lagMs : null}
        />
      </header>
      <main className={state ? 'mp-main' : 'mp-main mp-main-waiting'}>
        {live.status === 'private' ? (
          <PrivateView message={live.problem ?? PRIVATE_VIEW} />
        ) : state ? (
          <Dashboard state={state} serverNowMs={serverNowMs} />
        ) : (
          <Waiting problem={live.problem} />
        )}
      </main>
    </div>
  );
}
