import { Link, useNavigate } from 'react-router';
import { useInfo } from '../api/getinfo.ts';
import { useTxStatus, type TxStatus } from '../api/status-check.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { TxidText } from '../components/txid-text.tsx';
import { count, feeRate, formatEastern, odds, shortTxid } from '../lib/format.ts';
import { explorerTxUrl } from './explorer.ts';
import { freshness, useSecondsSince } from './use-seconds-since.ts';
import { EmailMe } from './email-me.tsx';
import { StatusLive } from './status-live/status-live.tsx';
import { useStatusStream } from './status-live/use-status-stream.ts';
import { ReceiptDownload } from './verify/receipt-download.tsx';

export const LOOKUP_FAILURE = 'Please enter a valid transaction hex.';

/** docs/behaviour.md#status-page: confirmed; waiting for the next block (position 0); or waiting and not competitive. */
export function statusText(status: TxStatus): string {
  const { transaction, state } = status;
  if (transaction.status.confirmed) return 'Confirmed';
  if (state === 'not_in_mempool') return 'No longer in the mempool (replaced or evicted)';
  if (transaction.position.block === 0) return 'Waiting for the next block';
  return 'Waiting: not yet competitive for the next block';
}

/**
 * docs/behaviour.md#status-page: every field of a transaction's status, refreshed every
 * 30 seconds while unconfirmed, with how old the answer is.
 */
export function StatusPage({ txid }: { txid: string }) {
  const navigate = useNavigate();
  const status = useTxStatus(txid);
  const info = useInfo();
  const data = status.data;
  const tx = data?.transaction;
  // A confirmed transaction is final: polling stops (api/status-check.ts), so the age indicator stops with it.
  const final = tx?.status.confirmed === true;
  const age = useSecondsSince(status.dataUpdatedAt, !final);
  // Live over Server-Sent Events once the first answer is in; the poll stays as the fallback. Not isSuccess:
  // a failed poll turns the status to 'error' while the last answer stays, and the stream is what can bring the next one.
  useStatusStream(txid, data !== undefined && !final);
  // The rate to beat and the odds are about getting into a block: only for a transaction still waiting in the mempool.
  const waiting = data?.state === 'in_mempool' && !final;
  const explorer = tx?.status.confirmed ? explorerTxUrl(info.data?.network, txid) : null;

  return (
    <main className="status-page">
      <div className="card">
        <header className="status-header" data-toast-clear>
          <h1>Transaction status</h1>
          <div className="status-actions">
            <button type="button" className="button" onClick={() => window.location.reload()}>
              Refresh
            </button>
            <button type="button" className="button" onClick={() => void navigate('/')}>
              Close
            </button>
          </div>
        </header>
        {status.isPending && <p role="status">Loading...</p>}
        {/* A failed poll leaves the last answer up; its age shows in the indicator. */}
        {status.isError && !data && (
          <p role="alert" className="field-error">
            {LOOKUP_FAILURE}
          </p>
        )}
        {data && tx && (
          <>
            {final ? (
              <p className="last-update final">Final status: mined, no further updates.</p>
            ) : (
              <p className={`last-update ${freshness(age)}`} aria-live="off">
                <span className="dot" aria-hidden="true" /> Last update {age} s ago
              </p>
            )}
            <dl className="details status-details">
              <div>
                <dt>Status</dt>
                <dd data-testid="tx-status">{statusText(data)}</dd>
              </div>
              {data.removal && (
                <div>
                  <dt>Why</dt>
                  <dd data-testid="tx-removal">
                    {data.removal.message}
                    {data.removal.replaced_by && (
                      <>
                        {' '}
                        <Link to={`/status?txid=${data.removal.replaced_by}`}>Follow the replacement {shortTxid(data.removal.replaced_by)}</Link>
                      </>
                    )}
                  </dd>
                </div>
              )}
              {data.child_pays_for_parent && (
                <div>
                  <dt>Child pays for parent</dt>
                  <dd data-testid="tx-cpfp">
                    {data.child_pays_for_parent.message}
                    <ul className="cpfp-links">
                      {data.child_pays_for_parent.pays_for.map((parent) => (
                        <li key={parent}>
                          <Link to={`/status?txid=${parent}`}>Parent {shortTxid(parent)}</Link>
                        </li>
                      ))}
                      {data.child_pays_for_parent.paid_by.map((child) => (
                        <li key={child}>
                          <Link to={`/status?txid=${child}`}>Child {shortTxid(child)}</Link>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </div>
              )}
              <div>
                <dt>Transaction ID</dt>
                <dd className="txid-cell">
                  <TxidText txid={tx.txid} className="txid-full" />
                  <code className="txid-short" title={tx.txid}>
                    {shortTxid(tx.txid)}
                  </code>{' '}
                  <CopyButton text={tx.txid} label="Copy transaction ID" copiedMessage="Txid copied!" />
                  {explorer && (
                    <>
                      {' '}
                      <a href={explorer} target="_blank" rel="noopener noreferrer">
                        View in block explorer
                      </a>
                    </>
                  )}
                </dd>
              </div>
              <div>
                <dt>Weight</dt>
                <dd>{count(tx.weight, ' WU')}</dd>
              </div>
              <div>
                <dt>Fee</dt>
                <dd>{count(tx.fee, ' sats')}</dd>
              </div>
              <div>
                <dt>Size</dt>
                <dd>{count(tx.size, ' bytes')}</dd>
              </div>
              <div>
                <dt>Virtual size</dt>
                <dd>{count(tx.vsize, ' vB')}</dd>
              </div>
              {tx.status.confirmed ? (
                <>
                  <div>
                    <dt>Block time</dt>
                    <dd>{tx.status.block_time === null ? 'N/A' : formatEastern(tx.status.block_time)}</dd>
                  </div>
                  <div>
                    <dt>Block height</dt>
                    <dd>{count(tx.status.block_height)}</dd>
                  </div>
                </>
              ) : (
                <div>
                  <dt>First seen</dt>
                  <dd>{tx.firstSeen === null ? 'N/A' : formatEastern(tx.firstSeen)}</dd>
                </div>
              )}
              {waiting && (
                <div>
                  <dt>Rate to beat</dt>
                  <dd>
                    {feeRate(data.rate_to_beat)}
                    <span className="hint">
                      For this transaction's size, with its unconfirmed parents: what it must pay per vB to enter the pool's next block right now, so
                      paying more puts it in line for that block.
                      {data.rate_to_beat !== null && data.market_rate !== null && data.rate_to_beat > data.market_rate
                        ? ` The lowest fee rate in that block is ${feeRate(data.market_rate)}, but a transaction this large must push out more than its cheapest ones.`
                        : ''}{' '}
                      It is not the minimum to submit, which the submit page shows.
                    </span>
                  </dd>
                </div>
              )}
              <div>
                <dt>Functional rate</dt>
                <dd>
                  {feeRate(data.functional_rate)}
                  {waiting && <span className="hint">What this transaction pays per vB, counting the unconfirmed parents it needs: compare it with the rate to beat.</span>}
                </dd>
              </div>
              {waiting && (
                <>
                  <div>
                    <dt>Odds of mining (last 24 hours)</dt>
                    <dd>{odds(data.last_24h_odds)}</dd>
                  </div>
                  <div>
                    <dt>Odds of mining (last 7 days)</dt>
                    <dd>{odds(data.last_7d_odds)}</dd>
                  </div>
                  {data.odds_note && <p className="hint odds-note">{data.odds_note}</p>}
                </>
              )}
            </dl>
            <ReceiptDownload txid={tx.txid} />
            {waiting && <StatusLive status={data} version={status.dataUpdatedAt} />}
            {waiting && <EmailMe txid={txid} />}
          </>
        )}
      </div>
    </main>
  );
}
