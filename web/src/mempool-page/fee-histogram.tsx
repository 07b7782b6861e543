import { memo, useId } from 'react';
import { axisVbytes, bucketRange, count, displayBuckets, feeColour, niceTicks, rate, txCount, vsize, type DisplayBucket } from './mempool-format.ts';
import type { FeeHistogramBucket } from './mempool-state.ts';
import { useElementSize } from './use-element-size.ts';

/**
 * The mempool by fee rate: one bar per (roughly logarithmic) rate bucket,
 * as tall as the block space its transactions take. A dashed line marks the
 * lowest rate in the next projected block: everything right of it is in.
 * Screen readers get the same figures as a table.
 */

const MARGIN = { top: 22, right: 12, bottom: 40, left: 52 };
const MIN_LABEL_GAP = 34;
/** Few buckets (a quiet mempool) make slots wide; bars stay bar-shaped. */
const MAX_BAR_WIDTH = 56;

/** Where a rate sits on the axis of equal-width buckets, in bucket widths from the left. */
function slotOf(buckets: DisplayBucket[], satPerVb: number): number | null {
  for (let i = 0; i < buckets.length; i++) {
    const { from, to } = buckets[i]!;
    if (satPerVb >= from && (to === null || satPerVb < to)) return i + (to === null ? 0 : (satPerVb - from) / (to - from));
  }
  return null;
}

/** Memoised: the page re-renders every second for its "N s ago" labels; the chart changes only with the mempool. */
export const FeeHistogram = memo(function FeeHistogram({ histogram, nextBlockMinRate }: { histogram: FeeHistogramBucket[]; nextBlockMinRate: number | null }) {
  const [box, size] = useElementSize<HTMLDivElement>();
  const titleId = useId();
  const buckets = displayBuckets(histogram);

  const width = Math.max(size.width, 240);
  const height = Math.max(size.height, 180);
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const largest = Math.max(0, ...buckets.map((b) => b.vsize));
  const ticks = niceTicks(largest);
  const top = ticks[ticks.length - 1]! || 1;
  const slot = plotW / buckets.length;
  const gap = Math.min(4, slot * 0.18);
  const y = (v: number) => MARGIN.top + plotH - (v / top) * plotH;
  const labelEvery = Math.max(1, Math.ceil(MIN_LABEL_GAP / slot));
  const cut = nextBlockMinRate === null ? null : slotOf(buckets, nextBlockMinRate);

  return (
    <>
      <div className="mp-chart" ref={box}>
        {buckets.length === 0 && <p className="mp-empty">No transactions in the mempool.</p>}
        {buckets.length > 0 && size.width > 0 && (
          <svg width={width} height={height} role="img" aria-labelledby={titleId} className="mp-chart-svg">
            <title id={titleId}>
              {`Fee rates in the mempool: ${buckets.length} buckets from ${rate(buckets[0]!.from)} sat/vB, largest ${vsize(largest)}`}
            </title>
            {ticks.map((t) => (
              <g key={t}>
                <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(t)} y2={y(t)} className="mp-grid-line" />
                <text x={MARGIN.left - 8} y={y(t)} dy="0.32em" textAnchor="end" className="mp-axis-text">
                  {axisVbytes(t)}
                </text>
              </g>
            ))}
            <text x={MARGIN.left - 8} y={MARGIN.top - 10} textAnchor="end" className="mp-axis-text">vB</text>
            {buckets.map((bucket, i) => {
              const barW = Math.min(MAX_BAR_WIDTH, Math.max(1, slot - gap));
              const x = MARGIN.left + i * slot + (slot - barW) / 2;
              const barH = Math.max(bucket.vsize > 0 ? 1.5 : 0, (bucket.vsize / top) * plotH);
              return (
                <g key={bucket.from}>
                  <rect x={x} y={MARGIN.top + plotH - barH} width={barW} height={barH} rx={Math.min(3, slot / 6)} fill={feeColour(bucket.from)}>
                    <title>{`${bucketRange(bucket)} sat/vB: ${txCount(bucket.txCount)}, ${vsize(bucket.vsize)}`}</title>
                  </rect>
                  {i % labelEvery === 0 && (
                    <text x={MARGIN.left + i * slot + slot / 2} y={height - MARGIN.bottom + 16} textAnchor="middle" className="mp-axis-text">
                      {rate(bucket.from)}
                    </text>
                  )}
                </g>
              );
            })}
            <text x={MARGIN.left + plotW / 2} y={height - 6} textAnchor="middle" className="mp-axis-text mp-axis-title">
              fee rate (sat/vB)
            </text>
            {cut !== null && (
              <g className="mp-cut">
                <line x1={MARGIN.left + cut * slot} x2={MARGIN.left + cut * slot} y1={MARGIN.top - 4} y2={MARGIN.top + plotH} />
                <text x={MARGIN.left + cut * slot} y={MARGIN.top - 8} textAnchor={cut > buckets.length * 0.7 ? 'end' : 'start'} dx={cut > buckets.length * 0.7 ? -4 : 4}>
                  next block ≥ {rate(nextBlockMinRate!)}
                </text>
              </g>
            )}
          </svg>
        )}
      </div>
      {buckets.length > 0 && (
        // A table is never narrower than its content: the hiding is on a box around it.
        <div className="mp-visually-hidden">
          <table>
            <caption>Mempool by fee rate</caption>
            <thead>
              <tr>
                <th scope="col">Fee rate (sat/vB)</th>
                <th scope="col">Transactions</th>
                <th scope="col">Virtual size</th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((bucket) => (
                <tr key={bucket.from}>
                  <td>{bucketRange(bucket)}</td>
                  <td>{count(bucket.txCount)}</td>
                  <td>{vsize(bucket.vsize)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
});
