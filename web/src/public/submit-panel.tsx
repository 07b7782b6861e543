import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useCodeQuote, useInfo } from '../api/getinfo.ts';
import { ApiError, GENERIC_FAILURE } from '../api/http.ts';
import { useSubmitPackage, useSubmitTx, type SubmitPackageResponse } from '../api/submit-tx.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { TxidText } from '../components/txid-text.tsx';
import { feeRateUp, formatDateTime } from '../lib/format.ts';
import { notify, type ToastId } from '../lib/toasts.tsx';
import { AcceptedRate } from './accepted-rate.tsx';
import { splitHexInput } from './hex-input.ts';
import { packageLabel } from './package-label.ts';
import { AlreadyConfirmed, type Confirmed } from './already-confirmed.tsx';
import { ParseSummary } from './parse-summary.tsx';
import { useParsePreview } from './use-parse-preview.ts';
import { pickQuote, quoteField, type HeldQuote } from './quote-hold.ts';
import { keepReceipts } from './verify/receipt-store.ts';

export const INFO_FAILURE = 'Unable to connect to Slipstream server. Please try again in 60 seconds.';
export const NETWORK_FAILURE = 'Failed to submit transaction. Please try again.';

type Outcome = { kind: 'accepted'; txids: string[]; receipts: Record<string, string> } | { kind: 'failed'; message: string; confirmed?: Confirmed | undefined } | null;

/** How long the client code must stay unchanged before its quote is asked for (each request spends the visitor's budget). */
const QUOTE_DEBOUNCE_MS = 500;

/** `value`, once it has stayed the same for `ms`. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A refusal of the quote itself (modules/quotes/quote-token.ts): the page lets go of it, and the next submission asks afresh. */
const QUOTE_REFUSED = /^The quote /;

/**
 * What the form held when the visitor left it, e.g. for a status page: Back
 * (or Close there) brings it back. Kept in this page's memory only: a reload
 * or another tab starts empty, and nothing is written to storage.
 */
const draft: { text: string; clientCode: string; outcome: Outcome } = { text: '', clientCode: '', outcome: null };

/** The errors a refused package names, per transaction, or its own message. */
function packageFailure(response: SubmitPackageResponse): string {
  const errors = Object.values(response.result?.['tx-results'] ?? {})
    .map((entry) => entry.error)
    .filter((error): error is string => typeof error === 'string' && error !== '');
  return errors.length > 0 ? errors.join('; ') : response.message || GENERIC_FAILURE;
}

/** The block that already holds the transaction, when the server answered "already confirmed in block N". */
function confirmedOf(error: unknown): Confirmed | undefined {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object' || !('confirmed' in error.body)) return undefined;
  const confirmed = error.body.confirmed as Partial<Confirmed> | null;
  return confirmed && typeof confirmed.txid === 'string' && typeof confirmed.block_height === 'number' && typeof confirmed.block_hash === 'string'
    ? (confirmed as Confirmed)
    : undefined;
}

function failureText(error: unknown): string {
  if (error instanceof ApiError) return error.status === 0 ? NETWORK_FAILURE : error.message;
  return GENERIC_FAILURE;
}

/**
 * docs/behaviour.md#submit-page: paste a transaction (or a comma-separated
 * package), see it decoded, submit it; on success a link to its status page
 * and a copy of its txid; on failure the server's reason inline.
 */
export function SubmitPanel() {
  const [params] = useSearchParams();
  const prefill = params.get('txhex');
  const [text, setTextState] = useState(() => prefill ?? draft.text);
  const [clientCode, setClientCodeState] = useState(() => (prefill === null ? draft.clientCode : ''));
  const [outcome, setOutcomeState] = useState<Outcome>(() => (prefill === null ? draft.outcome : null));
  const setText = (value: string) => setTextState((draft.text = value));
  const setClientCode = (value: string) => setClientCodeState((draft.clientCode = value));
  const setOutcome = (value: Outcome) => setOutcomeState((draft.outcome = value));
  const info = useInfo();
  const single = useSubmitTx();
  const pack = useSubmitPackage();
  const { items, isPackage } = splitHexInput(text);
  const submitting = single.isPending || pack.isPending;
  /** The toast of the last submission, closed when the next one starts. */
  const lastToast = useRef<ToastId | undefined>(undefined);
  const code = clientCode.trim();
  const withCode = code ? { client_code: code } : {};
  // The quote the page holds for this client code (none: getinfo's own), named by the submission while it holds.
  const settledCode = useSettled(code, QUOTE_DEBOUNCE_MS);
  const codeInfo = useCodeQuote(settledCode);
  const answer = code === '' ? { quote: info.data?.quote, at: info.dataUpdatedAt } : settledCode === code ? { quote: codeInfo.data?.quote, at: codeInfo.dataUpdatedAt } : undefined;
  // Each new answer's quote replaces the one held only when it is no dearer (or that one is ending): pickQuote, as of the answer's time.
  const [held, setHeld] = useState<{ fresh: HeldQuote | undefined; quotes: Record<string, HeldQuote | undefined> }>({ fresh: undefined, quotes: {} });
  if (answer?.quote !== undefined && answer.quote !== held.fresh) {
    setHeld({ fresh: answer.quote, quotes: { ...held.quotes, [code]: pickQuote(held.quotes[code], answer.quote, answer.at) } });
  }
  const quote = held.quotes[code];
  const parsed = useParsePreview(items, clientCode, quote?.quote_id);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (items.length === 0 || submitting) return;
    setOutcome(null);
    // The earlier submission's toast is about an outcome this one replaces: "submitted successfully" must not stay up beside "Submission failed.".
    if (lastToast.current !== undefined) notify.dismiss(lastToast.current);
    lastToast.current = undefined;
    const withQuote = quoteField(quote);
    try {
      if (isPackage) {
        const response = await pack.mutateAsync({ tx_hexes: items, ...withCode, ...withQuote });
        // The receipts of the members taken stay in this browser, for their status pages (nobody can ask the pool for them).
        if (response.receipts) keepReceipts(response.receipts);
        if (response.status === 'error' || response.result?.package_msg !== 'success') {
          lastToast.current = notify.error('Package submission failed!');
          setOutcome({ kind: 'failed', message: packageFailure(response) });
          return;
        }
        const txids = Object.values(response.result['tx-results'])
          .map((entry) => entry.txid)
          .filter((txid): txid is string => typeof txid === 'string');
        lastToast.current = notify.success('Package submitted successfully!');
        setOutcome({ kind: 'accepted', txids, receipts: response.receipts ?? {} });
      } else {
        const response = await single.mutateAsync({ tx_hex: items[0]!, ...withCode, ...withQuote });
        const receipts = response.receipt ? { [response.message]: response.receipt } : {};
        keepReceipts(receipts);
        lastToast.current = notify.success('Transaction submitted successfully!');
        setOutcome({ kind: 'accepted', txids: [response.message], receipts });
      }
    } catch (error) {
      if (error instanceof ApiError && QUOTE_REFUSED.test(error.message)) setHeld({ ...held, quotes: { ...held.quotes, [code]: undefined } });
      if (isPackage) lastToast.current = notify.error('Package submission failed!');
      setOutcome({ kind: 'failed', message: failureText(error), confirmed: confirmedOf(error) });
    }
  }

  return (
    <form className="submit-panel" onSubmit={(e) => void submit(e)}>
      <p className="minimum" aria-live="polite">
        {info.isError ? (
          <span role="alert">{INFO_FAILURE}</span>
        ) : info.data ? (
          <>
            Current minimum fee rate: <strong>{feeRateUp(info.data.fee_rate)} sat/vB</strong>
            <span className="hint">
              {' '}
              The least a transaction must pay to be accepted into the pool's mempool. Its status page then shows the rate to beat for the next block.
            </span>
            {quote && (
              <span className="hint" data-testid="quote-held">
                {code ? `With client code ${code}, ${feeRateUp(quote.threshold)} sat/vB` : `${feeRateUp(quote.threshold)} sat/vB`} is held for you until{' '}
                {formatDateTime(quote.expires_at)}: a submission from this page before then is judged at it, even if the minimum rises.
              </span>
            )}
          </>
        ) : (
          'Loading the current minimum fee rate...'
        )}
      </p>
      <label htmlFor="tx-hex">Raw transaction hex (separate a package's transactions with commas, parents first)</label>
      <textarea
        id="tx-hex"
        className="hex-input"
        rows={8}
        spellCheck={false}
        autoComplete="off"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOutcome(null);
        }}
        placeholder="0200000001..."
      />
      <label htmlFor="client-code" className="optional">
        Client code (optional)
      </label>
      <input id="client-code" className="client-code" autoComplete="off" value={clientCode} onChange={(e) => setClientCode(e.target.value)} />
      {parsed && <ParseSummary parsed={parsed} network={info.data?.network} />}
      <div className="submit-row">
        <button type="submit" className="button primary" disabled={items.length === 0 || submitting}>
          {submitting ? 'Submitting...' : isPackage ? 'SUBMIT PACKAGE' : 'SUBMIT'}
        </button>
        {isPackage && <span className="mode">{packageLabel(items.length)}</span>}
      </div>
      {outcome?.kind === 'failed' && (
        <div className="outcome failed" role="alert">
          <strong>Submission failed.</strong>{' '}
          {outcome.confirmed ? <AlreadyConfirmed confirmed={outcome.confirmed} message={outcome.message} network={info.data?.network} /> : outcome.message}
        </div>
      )}
      {outcome?.kind === 'accepted' && (
        <div className="outcome accepted" role="status">
          <strong>{outcome.txids.length > 1 ? 'Package accepted into the mempool.' : 'Transaction accepted into the mempool.'}</strong>
          <ul>
            {outcome.txids.map((txid) => (
              <li key={txid}>
                <TxidText txid={txid} className="txid" /> <CopyButton text={txid} label={`Copy txid ${txid}`} copiedMessage="Txid copied!" />{' '}
                <Link to={`/status?txid=${txid}`}>View mining status</Link>
                {outcome.receipts[txid] && (
                  <>
                    {' '}
                    · <Link to={`/verify#receipt=${outcome.receipts[txid]}`}>Verify receipt</Link>
                  </>
                )}
                {/* A package's figure is its last member's (the child, whose package rate counts the rest): one read, not one per member. */}
                {txid === outcome.txids[outcome.txids.length - 1] && <AcceptedRate txid={txid} />}
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
