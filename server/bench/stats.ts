/** Small statistics and formatting helpers for the benchmark's report. */

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export function max(samples: readonly number[]): number {
  return samples.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
}

export function mean(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / samples.length;
}

/** Milliseconds with a precision that suits the magnitude. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) < 0.01) return `${(value * 1000).toFixed(2)} µs`;
  if (Math.abs(value) < 0.1) return `${value.toFixed(3)} ms`;
  if (Math.abs(value) < 100) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(0)} ms`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a';
}

export function verdict(ok: boolean): string {
  return ok ? 'met' : 'MISSED';
}

/** Rounds for the JSON summary. */
export const round3 = (value: number): number => Math.round(value * 1000) / 1000;
