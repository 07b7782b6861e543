import { count, rate, txCount } from '../../mempool-page/mempool-format.ts';
import type { MempoolDashboardState } from '../../mempool-page/mempool-state.ts';
import './status-live.css';

/** vbytes a projected block holds at most (4,000,000 WU less the coinbase's reserve), for the depth marker. */
const BLOCK_VSIZE = 998_000;
/** Blocks shown past this transaction's, so that it is seen in line. */
const AFTER = 1;

const label = (index: number) => (index === 0 ? 'Next block' : `Block ${index + 1}`);

/**
 * The projected blocks as /mempool/ draws them, from the same engine, with
 * this transaction's block highlighted and its depth in it (vbytes from the
 * block's start up to and including it). Other blocks' figures only when
 * the public mempool view is on (`mempool`); otherwise positions only.
 */
export function ProjectedStrip({ block, depth, vsize, mempool }: { block: number; depth: number | null; vsize: number | null; mempool: MempoolDashboardState | null }) {
  const blocks = mempool?.projectedBlocks ?? [];
  // Up to its block and one more; with the public view, as many as /mempool/ shows (at most 8, or up to its block).
  const shown = Math.max(block + 1 + AFTER, Math.min(blocks.length, 8));
  const indexes = Array.from({ length: shown }, (_, i) => i);
  return (
    <div className="sl-strip" role="region" aria-label="Projected blocks" tabIndex={0}>
      <ol className="sl-blocks">
        {indexes.map((index) => {
          const figures = blocks[index];
          const mine = index === block;
          return (
            <li key={index} className={`sl-block${mine ? ' sl-mine' : ''}`} data-testid={mine ? 'tx-block' : undefined} aria-current={mine ? 'true' : undefined}>
              <div className="sl-cube">
                {mine && depth !== null && (
                  <span className="sl-marker" style={{ top: `${Math.min(100, (depth / BLOCK_VSIZE) * 100).toFixed(1)}%` }} aria-hidden="true" />
                )}
                {figures && (
                  <>
                    <p className="sl-range">
                      {rate(figures.minRate)} – {rate(figures.maxRate)} <span className="sl-unit">sat/vB</span>
                    </p>
                    <p className="sl-count">{txCount(figures.txCount)}</p>
                  </>
                )}
                {mine && (
                  <p className="sl-here">
                    This transaction
                    {depth !== null && <span className="sl-depth" data-testid="tx-depth">{count(depth)} vB deep</span>}
                    {vsize !== null && <span className="sl-size">{count(vsize)} vB</span>}
                  </p>
                )}
              </div>
              <p className="sl-label">{label(index)}</p>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
