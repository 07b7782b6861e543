import { memo, useLayoutEffect, useRef, type CSSProperties } from 'react';
import { ago, count, feeColour, fees, fill, fillText, rate, txCount } from './mempool-format.ts';
import type { MinedBlockSummary, ProjectedBlockSummary } from './mempool-state.ts';

/**
 * The chain as mempool.space draws it: the blocks the pool would build next
 * on the left (the next one nearest the line), the latest mined blocks on the
 * right (the newest nearest the line), time running right to left. Each
 * projected block is filled to its weight and coloured by its median rate.
 */

type CubeStyle = CSSProperties & { '--fill'?: string; '--fee'?: string; '--top'?: string };

function projectedLabel(index: number): string {
  return index === 0 ? 'Next block' : `Block ${index + 1}`;
}

/** Memoised: the strip re-renders every second for the mined blocks' ages; a projected block changes only with the mempool. */
const ProjectedCube = memo(function ProjectedCube({ block }: { block: ProjectedBlockSummary }) {
  const full = fill(block);
  const colour = feeColour(block.medianRate);
  // A sliver even for a nearly empty block, so that it never looks like no block at all.
  const shown = full > 0 ? Math.max(full, 0.04) : 0;
  const style: CubeStyle = { '--fill': `${(shown * 100).toFixed(1)}%`, '--fee': colour };
  // A full block is its colour to the brim, lid included.
  if (full >= 0.98) style['--top'] = `color-mix(in srgb, ${colour} 78%, white)`;
  return (
    <li className="mp-block">
      <div className="mp-cube mp-cube-projected" style={style}>
        <p className="mp-cube-rate">
          <span className="mp-visually-hidden">Median </span>~{rate(block.medianRate)} <span className="mp-unit">sat/vB</span>
        </p>
        <p className="mp-cube-range">
          <span className="mp-visually-hidden">Fee rates </span>
          {rate(block.minRate)} – {rate(block.maxRate)}
          <span className="mp-visually-hidden"> sat/vB</span>
        </p>
        <p className="mp-cube-fees">{fees(block.totalFees)}</p>
        <p className="mp-cube-txs">{txCount(block.txCount)}</p>
        <p className="mp-cube-fill" title={`${count(block.weight)} of 4,000,000 weight units`}>
          {fillText(full)}
        </p>
      </div>
      <p className="mp-block-label">{projectedLabel(block.index)}</p>
    </li>
  );
});

function MinedCube({ block, nowSeconds }: { block: MinedBlockSummary; nowSeconds: number }) {
  return (
    <li className="mp-block">
      <div className={`mp-cube mp-cube-mined${block.ours ? ' mp-ours' : ''}`} title={`Block ${block.height}: ${block.hash}`}>
        {block.ours && <span className="mp-badge">Ours</span>}
        <p className="mp-cube-height">
          <span className="mp-visually-hidden">Height </span>
          {count(block.height)}
        </p>
        <p className="mp-cube-txs">{txCount(block.txCount)}</p>
        <p className="mp-cube-hash">…{block.hash.slice(-8)}</p>
      </div>
      <p className="mp-block-label">
        <time dateTime={new Date(block.time * 1000).toISOString()}>{ago(nowSeconds - block.time)}</time>
      </p>
    </li>
  );
}

export function BlockStrip({ projected, mined, nowSeconds }: { projected: ProjectedBlockSummary[]; mined: MinedBlockSummary[]; nowSeconds: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  const divider = useRef<HTMLDivElement>(null);
  const centred = useRef(false);

  // Once, when there are blocks: the line between future and past in the middle of the view.
  // Later updates leave the viewer's own scrolling alone.
  const hasBlocks = projected.length + mined.length > 0;
  useLayoutEffect(() => {
    const box = scroller.current;
    const line = divider.current;
    if (centred.current || !hasBlocks || !box || !line) return;
    centred.current = true;
    box.scrollLeft = Math.max(0, line.offsetLeft - box.clientWidth / 2);
  }, [hasBlocks]);

  return (
    <div className="mp-strip" ref={scroller} tabIndex={0} role="region" aria-label="Projected and mined blocks">
      <div className="mp-strip-inner">
        <section className="mp-chain mp-chain-projected" aria-labelledby="mp-projected-title">
          <h2 id="mp-projected-title" className="mp-chain-title">
            Projected <span aria-hidden="true">←</span>
          </h2>
          {projected.length === 0 ? (
            <p className="mp-chain-empty">The mempool is empty.</p>
          ) : (
            <ol className="mp-blocks mp-blocks-projected">
              {projected.map((block) => (
                <ProjectedCube key={block.index} block={block} />
              ))}
            </ol>
          )}
        </section>
        <div className="mp-divider" ref={divider} aria-hidden="true" />
        <section className="mp-chain mp-chain-mined" aria-labelledby="mp-mined-title">
          <h2 id="mp-mined-title" className="mp-chain-title">
            <span aria-hidden="true">→</span> Mined
          </h2>
          {mined.length === 0 ? (
            <p className="mp-chain-empty">No blocks yet.</p>
          ) : (
            <ol className="mp-blocks">
              {mined.map((block) => (
                <MinedCube key={block.hash} block={block} nowSeconds={nowSeconds} />
              ))}
            </ol>
          )}
        </section>
      </div>
    </div>
  );
}
