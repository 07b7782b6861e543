import type { MetricsDay } from '../api/metrics-summary.ts';
import { ChartFrame, DayAxis, LeftAxis, PLOT } from './chart-frame.tsx';
import { compact, dayLabel, integer, longDayLabel, niceAxis } from './chart-scale.ts';

/** Revenue per day: the fees of accepted transactions and packages, in integer satoshis. */

export const REVENUE_TITLE = 'Revenue per day';

export function revenueSummary(daily: MetricsDay[], total: number): string {
  const best = daily.reduce<MetricsDay | undefined>((b, d) => (d.revenue_sats > (b?.revenue_sats ?? 0) ? d : b), undefined);
  const peak = best ? `, highest on ${longDayLabel(best.day)} (${integer(best.revenue_sats)} sats)` : '';
  return `Over ${daily.length} ${daily.length === 1 ? 'day' : 'days'}: ${integer(total)} sats in fees${peak}.`;
}

export function RevenueChart({ daily, total }: { daily: MetricsDay[]; total: number }) {
  const ticks = niceAxis(Math.max(0, ...daily.map((d) => d.revenue_sats)));
  const top = ticks[ticks.length - 1]!;
  const slot = PLOT.width / Math.max(1, daily.length);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number) => PLOT.bottom - (v / top) * PLOT.height;

  return (
    <ChartFrame
      title={REVENUE_TITLE}
      summary={revenueSummary(daily, total)}
      testId="revenue-chart"
      legend={[{ label: 'Revenue (sats)', className: 'revenue' }]}
      table={
        <table>
          <caption>{REVENUE_TITLE}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Revenue (sats)</th>
            </tr>
          </thead>
          <tbody>
            {daily.map((d) => (
              <tr key={d.day}>
                <th scope="row">{longDayLabel(d.day)}</th>
                <td>{integer(d.revenue_sats)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <LeftAxis ticks={ticks} format={compact} title="Revenue (sats)" />
      {daily.map((d, i) => {
        if (d.revenue_sats <= 0) return null;
        // A day with little revenue next to a big one still shows a sliver.
        const height = Math.max(1.5, PLOT.bottom - y(d.revenue_sats));
        return <rect key={d.day} className="metrics-bar revenue" x={PLOT.left + slot * (i + 0.5) - barWidth / 2} y={PLOT.bottom - height} width={barWidth} height={height} />;
      })}
      <DayAxis days={daily.map((d) => d.day)} labels={dayLabel} />
    </ChartFrame>
  );
}
