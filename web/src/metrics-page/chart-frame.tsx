import { useId, type ReactNode } from 'react';
import { labelStride } from './chart-scale.ts';

/**
 * A chart's frame: a titled section whose SVG is one image to assistive
 * technology (named by the title, described by a one-line summary), with
 * the figures themselves in a visually hidden table beside it, and a
 * visible legend.
 */

export const CHART = { width: 720, height: 280, margin: { top: 16, right: 64, bottom: 56, left: 72 } } as const;
export const PLOT = {
  left: CHART.margin.left,
  top: CHART.margin.top,
  width: CHART.width - CHART.margin.left - CHART.margin.right,
  height: CHART.height - CHART.margin.top - CHART.margin.bottom,
  bottom: CHART.height - CHART.margin.bottom,
  right: CHART.width - CHART.margin.right,
} as const;

export interface LegendItem {
  label: string;
  className: string;
  kind?: 'bar' | 'line';
}

export function ChartFrame(props: { title: string; summary: string; legend: LegendItem[]; table: ReactNode; children: ReactNode; testId: string; notes?: ReactNode }) {
  const headingId = useId();
  const descId = useId();
  return (
    <section className="metrics-card" aria-labelledby={headingId} data-testid={props.testId}>
      <h2 id={headingId}>{props.title}</h2>
      <svg
        className="metrics-chart"
        viewBox={`0 0 ${CHART.width} ${CHART.height}`}
        role="img"
        aria-labelledby={headingId}
        aria-describedby={descId}
        preserveAspectRatio="xMidYMid meet"
      >
        <desc id={descId}>{props.summary}</desc>
        {props.children}
      </svg>
      <ul className="metrics-legend" aria-hidden="true">
        {props.legend.map((item) => (
          <li key={item.label}>
            <span className={`metrics-swatch ${item.kind === 'line' ? 'line' : 'bar'} ${item.className}`} />
            {item.label}
          </li>
        ))}
      </ul>
      <p className="metrics-summary">{props.summary}</p>
      {props.notes}
      <div className="visually-hidden">{props.table}</div>
    </section>
  );
}

/** The horizontal grid and the left axis's tick labels and title. */
export function LeftAxis({ ticks, format, title }: { ticks: number[]; format: (n: number) => string; title: string }) {
  const top = ticks[ticks.length - 1]!;
  const y = (v: number) => PLOT.bottom - (v / top) * PLOT.height;
  return (
    <g className="metrics-axis">
      {ticks.map((t) => (
        <g key={t}>
          <line className="metrics-gridline" x1={PLOT.left} x2={PLOT.right} y1={y(t)} y2={y(t)} />
          <text x={PLOT.left - 8} y={y(t)} dy="0.32em" textAnchor="end">
            {format(t)}
          </text>
        </g>
      ))}
      <text className="metrics-axis-title" transform={`translate(18 ${PLOT.top + PLOT.height / 2}) rotate(-90)`} textAnchor="middle">
        {title}
      </text>
    </g>
  );
}

/** Day labels under the plot (as many as fit) and the axis title. */
export function DayAxis({ days, labels }: { days: string[]; labels: (day: string) => string }) {
  const slot = PLOT.width / Math.max(1, days.length);
  const stride = labelStride(slot);
  return (
    <g className="metrics-axis">
      <line className="metrics-baseline" x1={PLOT.left} x2={PLOT.right} y1={PLOT.bottom} y2={PLOT.bottom} />
      {days.map((day, i) =>
        // The newest day is always labelled; the others every `stride` days back from it.
        (days.length - 1 - i) % stride === 0 ? (
          <text key={day} x={PLOT.left + slot * (i + 0.5)} y={PLOT.bottom + 20} textAnchor="middle">
            {labels(day)}
          </text>
        ) : null,
      )}
      <text className="metrics-axis-title" x={PLOT.left + PLOT.width / 2} y={CHART.height - 8} textAnchor="middle">
        Day (UTC)
      </text>
    </g>
  );
}
