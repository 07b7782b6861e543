import type { MetricsDay, MetricsSummary } from '../api/metrics-summary.ts';
import { ChartFrame, DayAxis, LeftAxis, PLOT } from './chart-frame.tsx';
import { ACCEPTANCE_MEANS, REFUSAL_LABELS } from './refusal-labels.ts';
import { dayLabel, integer, longDayLabel, niceAxis, percent } from './chart-scale.ts';

/**
 * Submissions per day as stacked bars (accepted below, refused above) and the
 * acceptance ratio as a line on its own 0-100% axis at the right. A day
 * without submissions has no ratio: the line breaks there rather than
 * pretending 0%.
 */

export const SUBMISSIONS_TITLE = 'Submissions and acceptance';

type Totals = MetricsSummary['totals'];

export function submissionsSummary(daily: MetricsDay[], totals: Pick<Totals, 'accepted' | 'refused' | 'acceptance_ratio'>): string {
  return `Over ${daily.length} ${daily.length === 1 ? 'day' : 'days'}: ${integer(totals.accepted)} accepted, ${integer(totals.refused)} refused, acceptance ${percent(totals.acceptance_ratio)}.`;
}

/** The ratio line's runs of consecutive days that have a ratio. */
function ratioRuns(daily: MetricsDay[]): Array<Array<{ i: number; ratio: number }>> {
  const runs: Array<Array<{ i: number; ratio: number }>> = [];
  let run: Array<{ i: number; ratio: number }> = [];
  daily.forEach((d, i) => {
    if (d.acceptance_ratio === null) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push({ i, ratio: d.acceptance_ratio });
  });
  if (run.length) runs.push(run);
  return runs;
}

export function SubmissionsChart({ daily, totals }: { daily: MetricsDay[]; totals: Totals }) {
  const ticks = niceAxis(Math.max(0, ...daily.map((d) => d.accepted + d.refused)));
  const top = ticks[ticks.length - 1]!;
  const slot = PLOT.width / Math.max(1, daily.length);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const x = (i: number) => PLOT.left + slot * (i + 0.5);
  const y = (v: number) => PLOT.bottom - (v / top) * PLOT.height;
  const yRatio = (r: number) => PLOT.bottom - r * PLOT.height;
  const summary = submissionsSummary(daily, totals);

  return (
    <ChartFrame
      title={SUBMISSIONS_TITLE}
      summary={summary}
      testId="submissions-chart"
      legend={[
        { label: 'Accepted', className: 'accepted' },
        { label: 'Refused', className: 'refused' },
        { label: 'Acceptance ratio', className: 'ratio', kind: 'line' },
      ]}
      notes={
        <>
          <p className="metrics-notes">{ACCEPTANCE_MEANS}</p>
          {totals.refused_by_reason.length > 0 && (
            <ul className="metrics-reasons" aria-label="Refused, by reason">
              {totals.refused_by_reason.map((r) => (
                <li key={r.reason}>
                  {REFUSAL_LABELS[r.reason]}: {integer(r.count)}
                </li>
              ))}
            </ul>
          )}
          <p className="metrics-notes">Kept for retry over the period: {integer(totals.failed)}.</p>
        </>
      }
      table={
        <table>
          <caption>{SUBMISSIONS_TITLE} per day</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Accepted</th>
              <th scope="col">Refused</th>
              <th scope="col">Kept for retry</th>
              <th scope="col">Acceptance</th>
            </tr>
          </thead>
          <tbody>
            {daily.map((d) => (
              <tr key={d.day}>
                <th scope="row">{longDayLabel(d.day)}</th>
                <td>{integer(d.accepted)}</td>
                <td>{integer(d.refused)}</td>
                <td>{integer(d.failed)}</td>
                <td>{percent(d.acceptance_ratio)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <LeftAxis ticks={ticks} format={integer} title="Submissions" />
      <g className="metrics-axis">
        {[0, 0.5, 1].map((r) => (
          <text key={r} x={PLOT.right + 8} y={yRatio(r)} dy="0.32em" textAnchor="start">
            {percent(r)}
          </text>
        ))}
        <text className="metrics-axis-title" transform={`translate(${PLOT.right + 54} ${PLOT.top + PLOT.height / 2}) rotate(90)`} textAnchor="middle">
          Acceptance
        </text>
      </g>
      {daily.map((d, i) => (
        <g key={d.day}>
          {d.accepted > 0 && <rect className="metrics-bar accepted" x={x(i) - barWidth / 2} y={y(d.accepted)} width={barWidth} height={PLOT.bottom - y(d.accepted)} />}
          {d.refused > 0 && (
            <rect className="metrics-bar refused" x={x(i) - barWidth / 2} y={y(d.accepted + d.refused)} width={barWidth} height={y(d.accepted) - y(d.accepted + d.refused)} />
          )}
        </g>
      ))}
      {ratioRuns(daily).map((run) => (
        <g key={run[0]!.i} className="metrics-ratio">
          {run.length > 1 && <polyline points={run.map((p) => `${x(p.i)},${yRatio(p.ratio)}`).join(' ')} />}
          {run.map((p) => (
            <circle key={p.i} cx={x(p.i)} cy={yRatio(p.ratio)} r={5} />
          ))}
        </g>
      ))}
      <DayAxis days={daily.map((d) => d.day)} labels={dayLabel} />
    </ChartFrame>
  );
}
