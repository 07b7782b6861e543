import { memo } from 'react';
import { Link } from 'react-router';
import { count, feeRate, feeRateUp, shortTxid } from '../../lib/format.ts';
import { judge, type KnownMinimum, type QueueRow, type RowTx } from './batch-queue.ts';

/** Seconds left until `until`, for a countdown. */
export const secondsUntil = (until: number, now: number) => Math.max(0, Math.ceil((until - now) / 1000));

interface Judged {
  minimum: KnownMinimum | undefined;
  withClientCode: boolean;
}

function MinimumVerdict({ row, index, tx, minimum, withClientCode }: Judged & { row: QueueRow; index: number; tx: RowTx }) {
  const verdict = judge(row, index, minimum, withClientCode);
  const against = minimum === undefined ? '' : ` (${feeRateUp(minimum.rate)} sat/vB)`;
  switch (verdict) {
    case 'message':
      return <span className="verdict">{tx.message}</span>;
    case 'cleared-when-sent':
      return <span className="verdict ok">Cleared the minimum when sent</span>;
    case 'clears':
      return <span className="verdict ok">Clears the current minimum{against}</span>;
    case 'below':
      return <span className="verdict field-error">Below the current minimum{against}</span>;
  }
}

function TxLine({ row, index, tx, ...judged }: Judged & { row: QueueRow; index: number; tx: RowTx }) {
  if (tx.error) return <li className="field-error">{tx.message}</li>;
  return (
    <li className="batch-tx">
      <code title={tx.txid}>{tx.txid ? shortTxid(tx.txid) : 'N/A'}</code>
      <span>{count(tx.vsize, ' vB')}</span>
      <span>{feeRate(tx.feeRate)}</span>
      <MinimumVerdict row={row} index={index} tx={tx} {...judged} />
      {tx.psbt && <span className="psbt-note">PSBT, fee stated in it: {count(tx.psbt.statedFee, ' sats')}</span>}
    </li>
  );
}

function Decoded({ row, ...judged }: Judged & { row: QueueRow }) {
  if (row.parse.state === 'pending') return <p className="batch-muted">Decoding...</p>;
  if (row.parse.state === 'failed') return <p className="batch-muted">{row.parse.message}</p>;
  return (
    <ul className="batch-txs" aria-label="Decoded">
      {row.parse.txs.map((tx, i) => (
        <TxLine key={tx.txid ?? `item-${i}`} row={row} index={i} tx={tx} {...judged} />
      ))}
    </ul>
  );
}

function Result({ row, now }: { row: QueueRow; now: number }) {
  const send = row.send;
  switch (send.state) {
    case 'unsent':
      return <p className="batch-result">Not sent yet</p>;
    case 'queued':
      return <p className="batch-result">Waiting its turn</p>;
    case 'sending':
      return <p className="batch-result">Sending...</p>;
    case 'waiting':
      return <p className="batch-result waiting">Too many requests: sending again in {secondsUntil(send.until, now)} s</p>;
    case 'refused':
      return (
        <p className="batch-result failed">
          <strong>Not accepted.</strong> {send.message}
        </p>
      );
    case 'accepted':
      return (
        <div className="batch-result accepted">
          <strong>Accepted into the mempool.</strong>
          <ul>
            {send.txids.map((txid) => (
              <li key={txid}>
                <code title={txid}>{shortTxid(txid)}</code>{' '}
                <Link to={`/status?txid=${txid}`} aria-label={`View mining status of ${txid}`}>
                  View mining status
                </Link>
              </li>
            ))}
          </ul>
        </div>
      );
  }
}

export interface BatchRowProps {
  row: QueueRow;
  position: number;
  /** The newest minimum the page knows: rows not sent are judged against it when it is newer than their parse answer. */
  minimum: KnownMinimum | undefined;
  /** The queue's client code is set: its discount is the server's to judge. */
  withClientCode: boolean;
  /** The clock for a countdown; only a row waiting out a 429 needs it (others get 0 and are not drawn again every second). */
  now: number;
  onRetry: (id: string) => void;
  onRemove: (id: string) => void;
}

/** One queue row: where it came from, what it is, and what became of it. Drawn again only when its own props change. */
export const BatchRow = memo(function BatchRow({ row, position, minimum, withClientCode, now, onRetry, onRemove }: BatchRowProps) {
  const busy = row.send.state === 'sending' || row.send.state === 'waiting';
  const label = `Entry ${position}`;
  return (
    <li className={`batch-row ${row.send.state}`} aria-label={label} data-testid="batch-row">
      <div className="batch-row-head">
        <span className="batch-position">{position}.</span>
        <span className="batch-source">
          {row.source}
          {row.isPackage ? ` · package of ${row.items.length}` : ''}
        </span>
        <span className="batch-actions">
          {row.send.state === 'refused' && (
            <button type="button" className="button small" onClick={() => onRetry(row.id)} aria-label={`Retry entry ${position}`}>
              Retry
            </button>
          )}
          <button type="button" className="button small" onClick={() => onRemove(row.id)} disabled={busy} aria-label={`Remove entry ${position}`}>
            Remove
          </button>
        </span>
      </div>
      <Decoded row={row} minimum={minimum} withClientCode={withClientCode} />
      <Result row={row} now={now} />
    </li>
  );
});
