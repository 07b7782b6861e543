import { QueryClientProvider } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { DEFAULT_SUMMARY_PERIOD, SUMMARY_PERIODS, useMetricsSummary, type SummaryPeriod } from '../api/metrics-summary.ts';
import { useStaffSession } from '../dashboard/use-staff-session.ts';
import { longDayLabel } from './chart-scale.ts';
import { NodeHealthPanel } from './node-health-panel.tsx';
import { RevenueChart } from './revenue-chart.tsx';
import { SubmissionsChart } from './submissions-chart.tsx';
import './metrics-page.css';

/** The period in the address (?days=), one of the offered ones; anything else is the default. */
export function periodFrom(value: string | null): SummaryPeriod {
  const days = Number(value);
  return (SUMMARY_PERIODS as readonly number[]).includes(days) ? (days as SummaryPeriod) : DEFAULT_SUMMARY_PERIOD;
}

/**
 * /metrics for signed-in staff, loaded lazily: submissions and acceptance,
 * revenue per day, and the node's health. Its calls fail like the
 * dashboard's (a 401 ends the session), and the sign-in is kept alive the
 * same way while it is open.
 */
export default function MetricsPage() {
  const { client } = useStaffSession();

  return (
    <QueryClientProvider client={client}>
      <MetricsView />
    </QueryClientProvider>
  );
}

function MetricsView() {
  const [params] = useSearchParams();
  const days = periodFrom(params.get('days'));
  const summary = useMetricsSummary(days);
  const data = summary.data;

  return (
    <div className="metrics-page">
      <header className="metrics-header">
        <Link to="/" className="logo">
          Slipstream
        </Link>
        <Link to="/dashboard">Dashboard</Link>
      </header>
      <main className="metrics-main" aria-busy={summary.isFetching}>
        <div className="metrics-title">
          <h1>Metrics</h1>
          <nav aria-label="Period" className="metrics-periods">
            {SUMMARY_PERIODS.map((p) => (
              <Link key={p} to={{ search: `?days=${p}` }} aria-current={p === days ? 'true' : undefined} className="button small">
                {p} days
              </Link>
            ))}
          </nav>
        </div>
        {data ? (
          <>
            <p className="metrics-period" data-testid="metrics-period">
              {longDayLabel(data.from)} to {longDayLabel(data.to)} (UTC), {data.days} days
            </p>
            <div className="metrics-grid">
              <SubmissionsChart daily={data.daily} totals={data.totals} />
              <RevenueChart daily={data.daily} total={data.totals.revenue_sats} />
              <NodeHealthPanel node={data.node} />
            </div>
          </>
        ) : summary.isError ? (
          <p role="alert">{summary.error.message}</p>
        ) : (
          <p role="status">Loading data...</p>
        )}
      </main>
    </div>
  );
}
