import type { ParseTxResponse } from '../api/parse-tx.ts';
import { count, feeRate, shortTxid } from '../lib/format.ts';
import { AlreadyConfirmed } from './already-confirmed.tsx';
import { StandardVerdictRow } from './standard-verdict-row.tsx';

/** docs/behaviour.md#psbts: an entry that was a PSBT says so, with the fee the PSBT itself states (the fee above is our own pricing's). */
function PsbtRow({ tx }: { tx: { psbt?: { stated_fee: number | null } } }) {
  if (!tx.psbt) return null;
  return (
    <div>
      <dt>PSBT</dt>
      <dd>Fee stated in it: {count(tx.psbt.stated_fee, ' sats')}</dd>
    </div>
  );
}

/**
 * The decoded summary of what is in the box: per transaction its txid, size,
 * fee and fee rate, and whether it clears the current minimum (with the
 * client code, if any). How the minimum is derived is never shown
 * (docs/behaviour.md#pricing); the page shows only the current minimum without a code.
 */
export function ParseSummary({ parsed, network }: { parsed: ParseTxResponse; network?: string | undefined }) {
  return (
    <section className="parse-summary" aria-label="Decoded transactions" aria-live="polite">
      {parsed.notice && <p className="notice">{parsed.notice}</p>}
      {parsed.transactions.map((tx, index) => (
        <dl key={tx.txid ?? `invalid-${index}`} className="parse-item">
          {parsed.transactions.length > 1 && (
            <div className="parse-heading">
              <dt>Transaction</dt>
              <dd>
                {index + 1} of {parsed.transactions.length}
              </dd>
            </div>
          )}
          {tx.status === 'error' ? (
            <div>
              <dt>Problem</dt>
              <dd className="field-error">{tx.message}</dd>
            </div>
          ) : (
            <>
              <div>
                <dt>Txid</dt>
                <dd>
                  <code title={tx.txid}>{tx.txid ? shortTxid(tx.txid) : 'N/A'}</code>
                </dd>
              </div>
              <div>
                <dt>Virtual size</dt>
                <dd>{count(tx.vsize, ' vB')}</dd>
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
                <dt>Fee rate</dt>
                <dd>{feeRate(tx.fee_rate)}</dd>
              </div>
              <PsbtRow tx={tx} />
              {/* Mined already: where it is is the answer, and whether others would relay it no longer matters. */}
              {!tx.confirmed && <StandardVerdictRow standard={tx.standard} policies={tx.policies} />}
              {tx.confirmed ? (
                <div>
                  <dt>Status</dt>
                  <dd className="field-error">
                    <AlreadyConfirmed confirmed={tx.confirmed} message={tx.message} network={network} />
                  </dd>
                </div>
              ) : (
              // With a child-pays-for-parent sentence it takes the summary's whole width, as the public network row does.
              <div style={tx.child_pays_for_parent ? { gridColumn: '1 / -1' } : undefined}>
                <dt>Minimum fee</dt>
                <dd className={tx.meets_minimum_fee === false ? 'field-error' : 'ok'}>
                  {tx.meets_minimum_fee === null || tx.meets_minimum_fee === undefined
                    ? tx.message
                    : tx.meets_minimum_fee
                      ? 'Clears the current minimum'
                      : 'Below the current minimum'}
                  {tx.child_pays_for_parent && <span className="hint">{tx.child_pays_for_parent}</span>}
                </dd>
              </div>
              )}
            </>
          )}
        </dl>
      ))}
    </section>
  );
}
