import type { FeeHistogramBucket, ProjectedBlockSummary } from './mempool-state.ts';

/** The dashboard's numbers as people read them. Pure functions, unit-tested in web/test/. */

/** A block's weight limit (BIP 141): its fill is weight / 4,000,000. */
export const MAX_BLOCK_WEIGHT = 4_000_000;

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const count = (value: number) => integer.format(value);

/** '1 tx', '2,500 txs'. */
export const txCount = (value: number) => `${count(value)} ${value === 1 ? 'tx' : 'txs'}`;

/** sat/vB with the precision that matters at that size: 0.25, 3.1, 42. */
export function rate(value: number): string {
  if (value < 1) return String(Math.round(value * 100) / 100);
  if (value < 10) return String(Math.round(value * 10) / 10);
  return integer.format(Math.round(value));
}

/** A fee total: satoshis when small, else BTC to 3 decimals (integer arithmetic, no float drift in the digits). */
export function fees(sats: number): string {
  if (sats < 100_000) return `${integer.format(sats)} sats`;
  const thousandths = Math.round(sats / 100_000);
  return `${integer.format(Math.floor(thousandths / 1000))}.${String(thousandths % 1000).padStart(3, '0')} BTC`;
}

/** Virtual size: vB, kvB or MvB. */
export function vsize(vbytes: number): string {
  if (vbytes < 1_000) return `${integer.format(vbytes)} vB`;
  if (vbytes < 1_000_000) return `${integer.format(Math.round(vbytes / 1_000))} kvB`;
  return `${(vbytes / 1_000_000).toFixed(2)} MvB`;
}

/** An axis tick: '0', '250k', '1.5M' (vB). */
export function axisVbytes(vbytes: number): string {
  if (vbytes >= 1_000_000) return `${Number((vbytes / 1_000_000).toFixed(2))}M`;
  if (vbytes >= 1_000) return `${Number((vbytes / 1_000).toFixed(1))}k`;
  return String(vbytes);
}

/** How full a block is, 0 to 1. */
export function fill(block: Pick<ProjectedBlockSummary, 'weight'>): number {
  return Math.min(1, Math.max(0, block.weight / MAX_BLOCK_WEIGHT));
}

/** '0% full', '< 1% full', '42% full', '99.9% full': never '100%' for a block with room left. */
export function fillText(fraction: number): string {
  if (fraction <= 0) return '0% full';
  if (fraction < 0.01) return '< 1% full';
  if (fraction < 0.995) return `${Math.round(fraction * 100)}% full`;
  if (fraction < 1) return `${(Math.floor(fraction * 1000) / 10).toFixed(1)}% full`;
  return '100% full';
}

export function percent(value: number | null, digits = 1): string {
  return value === null ? '—' : `${value.toFixed(digits)}%`;
}

/** A rough duration: '~45 s', '~12 min', '~1 h 20 min', '~3 d 4 h'. */
export function approxDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `~${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `~${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `~${hours} h` : `~${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `~${days} d` : `~${days} d ${hours % 24} h`;
}

/** How long ago: '4 s ago', '12 min ago', '3 h ago', '2 d ago'. */
export function ago(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s ago`;
  if (s < 3_600) return `${Math.floor(s / 60)} min ago`;
  if (s < 172_800) return `${Math.floor(s / 3_600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** The engine's lag: milliseconds while small, seconds after. */
export function lag(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

/** 'mainnet' → 'Mainnet', as the staff dashboard's header shows the network. */
export function networkName(network: string): string {
  return network.charAt(0).toUpperCase() + network.slice(1);
}

// Fee-rate colours from cheap (teal) to dear (purple), each dark enough for
// white text at 4.5:1 (WCAG 2.2, 1.4.3): the blocks carry their figures on them.
const FEE_COLOURS: ReadonlyArray<readonly [number, string]> = [
  [0, '#1d6b5f'],
  [2, '#23725a'],
  [4, '#2f7443'],
  [6, '#4a7028'],
  [10, '#6b6613'],
  [15, '#855a0b'],
  [20, '#99470f'],
  [30, '#a83a1e'],
  [50, '#a82c3c'],
  [100, '#9a2258'],
  [200, '#842a7a'],
  [500, '#68319a'],
];

export function feeColour(satPerVb: number): string {
  let colour = FEE_COLOURS[0]![1];
  for (const [from, c] of FEE_COLOURS) if (satPerVb >= from) colour = c;
  return colour;
}

/**
 * Roughly logarithmic fee-rate bounds for the histogram (sat/vB): fine where
 * most of the mempool sits (0.1 is today's usual relay minimum), coarse in
 * the expensive tail. The engine's own bounds (mempool-engine/src/projection/fee-histogram.ts)
 * are finer in the tail; they merge into these.
 */
export const DISPLAY_BOUNDS = [
  0, 0.1, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200, 300, 500, 1_000, 2_000,
] as const;

export interface DisplayBucket {
  /** Lower bound, sat/vB. */
  from: number;
  /** Upper bound, sat/vB; null for the last bucket, which is open-ended. */
  to: number | null;
  txCount: number;
  vsize: number;
}

/**
 * The engine's buckets merged into the display bounds. A display bound is kept
 * only where an engine bucket starts inside it, so a coarse engine bucket is
 * never split into a full bar and empty neighbours it says nothing about.
 * Empty buckets at either end are dropped.
 */
export function displayBuckets(histogram: readonly FeeHistogramBucket[], bounds: readonly number[] = DISPLAY_BOUNDS): DisplayBucket[] {
  const merged = new Map<number, DisplayBucket>();
  for (const bucket of [...histogram].sort((a, b) => a.minRate - b.minRate)) {
    let from = bounds[0]!;
    for (const bound of bounds) if (bucket.minRate >= bound) from = bound;
    const into = merged.get(from) ?? { from, to: null, txCount: 0, vsize: 0 };
    into.txCount += bucket.txCount;
    into.vsize += bucket.vsize;
    merged.set(from, into);
  }
  const buckets = [...merged.values()].sort((a, b) => a.from - b.from);
  let first = 0;
  while (first < buckets.length && buckets[first]!.vsize === 0 && buckets[first]!.txCount === 0) first++;
  let last = buckets.length - 1;
  while (last >= first && buckets[last]!.vsize === 0 && buckets[last]!.txCount === 0) last--;
  const kept = buckets.slice(first, last + 1);
  kept.forEach((bucket, i) => (bucket.to = kept[i + 1]?.from ?? null));
  return kept;
}

/** 'from–to' or 'from+' (sat/vB), a bucket's range as its axis label says it. */
export function bucketRange(bucket: Pick<DisplayBucket, 'from' | 'to'>): string {
  return bucket.to === null ? `${rate(bucket.from)}+` : `${rate(bucket.from)}–${rate(bucket.to)}`;
}

/** Three or four round values from 0 to at least `max`, for an axis. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0];
  const rough = max / 3;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough)!;
  const ticks: number[] = [];
  for (let t = 0; t < max + step * 0.999; t += step) ticks.push(Math.round(t * 1e9) / 1e9);
  return ticks;
}
