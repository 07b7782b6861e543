/**
 * Numbers and labels for the /metrics page's charts: pure functions, shared
 * by the SVG and its text alternative so both say the same.
 */

/** An axis from 0 to a round top at or above `max`, in `steps` equal steps; whole numbers when `integer`. */
export function niceAxis(max: number, steps = 4, integer = true): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / steps;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough)!;
  if (integer) step = Math.max(1, Math.ceil(step));
  const ticks: number[] = [];
  for (let t = 0; t < max + step * 0.999; t += step) ticks.push(Math.round(t * 1e9) / 1e9);
  if (ticks.length < 2) ticks.push(step);
  return ticks;
}

const dayFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const longDayFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/** '2031-03-20' (a UTC day) as 'Mar 20'. */
export function dayLabel(day: string): string {
  return dayFormat.format(new Date(`${day}T00:00:00Z`));
}

/** '2031-03-20' as 'Mar 20, 2031'. */
export function longDayLabel(day: string): string {
  return longDayFormat.format(new Date(`${day}T00:00:00Z`));
}

const integerFormat = new Intl.NumberFormat('en-US');
const compactFormat = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** 3000000000 as '3,000,000,000'. */
export const integer = (n: number) => integerFormat.format(n);

/** 3000000000 as '3B': for axis ticks, where space is short. */
export const compact = (n: number) => compactFormat.format(n);

/** A ratio (0-1) as a whole percentage; 'N/A' when there was nothing to divide. */
export function percent(ratio: number | null): string {
  return ratio === null ? 'N/A' : `${Math.round(ratio * 1000) / 10}%`;
}

/** Every how many days a label fits under `slotWidth`-wide days with `labelWidth` per label. */
export function labelStride(slotWidth: number, labelWidth = 60): number {
  return Math.max(1, Math.ceil(labelWidth / slotWidth));
}
