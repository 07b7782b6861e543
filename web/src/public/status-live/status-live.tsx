import type { TxStatus } from '../../api/status-check.ts';
import { BumpAdvicePanel } from './bump-advice.tsx';
import { etaText } from './eta.ts';
import { ProjectedStrip } from './projected-strip.tsx';
import { usePublicMempool } from './use-public-mempool.ts';

/**
 * The visual part of the status page for a transaction waiting in the
 * mempool: where it sits in the projected blocks, when it is likely mined,
 * and, when it is not competitive, how to bump it. `version` changes with
 * every new answer (the page's dataUpdatedAt), refreshing the blocks' figures.
 */
export function StatusLive({ status, version }: { status: TxStatus; version: number }) {
  const mempool = usePublicMempool(version);
  const { position } = status.transaction;
  const eta = etaText(position.block, status.expected_next_block_seconds);
  return (
    <div className="sl-live">
      {position.block !== null && (
        <ProjectedStrip block={position.block} depth={position.vsize} vsize={status.transaction.vsize} mempool={mempool} />
      )}
      {eta && (
        <p className="sl-eta" data-testid="tx-eta">
          {eta}
        </p>
      )}
      {status.bump && <BumpAdvicePanel advice={status.bump} />}
    </div>
  );
}
