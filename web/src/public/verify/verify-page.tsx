import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiError } from '../../api/http.ts';
import { fetchReceiptKeys } from '../../api/receipt-keys.ts';
import { fetchReceiptProof, type ReceiptProof } from '../../api/receipt-proof.ts';
import { TxidText } from '../../components/txid-text.tsx';
import { count, feeRate, formatDateTime } from '../../lib/format.ts';
import { explorerBlockUrl } from '../explorer.ts';
import { blockHashOf, checkInclusion, verifyReceipt, type ReceiptClaims } from './receipt-check.ts';
import { INVALID_TEXT, KEYS_PATH, KEYS_UNAVAILABLE, VALID_TEXT } from './verify-texts.ts';


type Verdict = { kind: 'valid'; claims: ReceiptClaims; receipt: string } | { kind: 'invalid'; reason: string } | { kind: 'error'; message: string };
type Inclusion = { kind: 'proved'; proof: ReceiptProof } | { kind: 'refused'; message: string };

/** `/verify#receipt=<jws>` (the status page's link): the receipt, in the fragment, which browsers never send to a server. */
function receiptFromHash(hash: string): string {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return params.get('receipt') ?? '';
}

/**
 * The receipt check anyone can do: paste a receipt, and this page checks
 * it here, in the browser (receipt-check.ts): its signature against the
 * pool's published keys; then, once mined, the merkle proof the node gives
 * for it against the block header. The pool is asked for its keys and the
 * proof, never for a verdict.
 */
/** The verdict on a receipt: fetches the published keys (afresh) and checks the signature here. */
async function verdictOn(receipt: string): Promise<Verdict> {
  let keys;
  try {
    keys = await fetchReceiptKeys();
  } catch {
    return { kind: 'error', message: KEYS_UNAVAILABLE };
  }
  const result = await verifyReceipt(receipt, keys.keys);
  return result.ok ? { kind: 'valid', claims: result.value, receipt } : { kind: 'invalid', reason: result.reason };
}

/** The proof of a valid receipt's transaction, fetched, then checked here against the header it came with: the node's word is data, not a verdict. */
async function inclusionOf({ claims, receipt }: { claims: ReceiptClaims; receipt: string }): Promise<Inclusion> {
  let answer: ReceiptProof;
  try {
    answer = await fetchReceiptProof(receipt);
  } catch (error) {
    return { kind: 'refused', message: error instanceof ApiError && error.status !== 0 ? error.message : 'The proof could not be fetched. Try again.' };
  }
  const included = await checkInclusion(claims, answer.proof, answer.header);
  if (!included.ok) return { kind: 'refused', message: included.reason };
  if ((await blockHashOf(answer.header)) !== answer.block_hash) return { kind: 'refused', message: 'The header does not hash to the block the pool named.' };
  return { kind: 'proved', proof: answer };
}

/**
 * The receipt check anyone can do: paste a receipt, and this page checks
 * it here, in the browser (receipt-check.ts): its signature against the
 * pool's published keys; then, once mined, the merkle proof the node gives
 * for it against the block header. The pool is asked for its keys and the
 * proof, never for a verdict.
 */
export function VerifyPage() {
  const location = useLocation();
  const [text, setText] = useState(() => receiptFromHash(location.hash));
  // The receipt being checked (the one in the link at first, the status page's "Verify receipt").
  const [checked, setChecked] = useState(() => receiptFromHash(location.hash).trim());
  const verdict = useQuery({ queryKey: ['receipt-verdict', checked], queryFn: () => verdictOn(checked), enabled: checked !== '', staleTime: 0, gcTime: 0, retry: false });
  const inclusion = useMutation({ mutationFn: inclusionOf });
  const shown = verdict.data;

  function submit(event: FormEvent) {
    event.preventDefault();
    const receipt = text.trim();
    if (receipt === '') return;
    inclusion.reset();
    if (receipt === checked) void verdict.refetch();
    else setChecked(receipt);
  }

  return (
    <main className="status-page verify-page">
      <div className="card">
        <header className="status-header" data-toast-clear>
          <h1>Verify a receipt</h1>
        </header>
        <p className="hint">
          Every accepted submission comes with a receipt signed by the pool. Paste one here: it is checked in this browser against the pool's published keys (
          <a href={KEYS_PATH}>{KEYS_PATH}</a>) and, once its transaction is mined, against the block header with the node's merkle proof.
        </p>
        <form className="submit-panel" onSubmit={submit}>
          <label htmlFor="receipt">Receipt</label>
          <textarea
            id="receipt"
            className="hex-input"
            rows={6}
            spellCheck={false}
            autoComplete="off"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="eyJhbGciOiJFUzI1NiIs..."
          />
          <div className="submit-row">
            <button type="submit" className="button primary" disabled={text.trim() === '' || verdict.isFetching}>
              {verdict.isFetching ? 'Checking...' : 'VERIFY'}
            </button>
          </div>
        </form>
        {!verdict.isFetching && shown?.kind === 'error' && (
          <p role="alert" className="field-error">
            {shown.message}
          </p>
        )}
        {!verdict.isFetching && shown?.kind === 'invalid' && (
          <div className="outcome failed" role="alert" data-testid="receipt-verdict">
            <strong>{INVALID_TEXT}</strong> {shown.reason}
          </div>
        )}
        {!verdict.isFetching && shown?.kind === 'valid' && (
          <>
            <div className="outcome accepted" role="status" data-testid="receipt-verdict">
              <strong>{VALID_TEXT}</strong>: signed by {shown.claims.pool || 'the pool'} ({shown.claims.network}).
            </div>
            <ReceiptDetails claims={shown.claims} />
            <section className="receipt-proof">
              <h2>Mined?</h2>
              <p className="hint">Once the transaction is in a block, the node's merkle proof shows it there: it is checked here against the block header.</p>
              <button type="button" className="button" disabled={inclusion.isPending} onClick={() => inclusion.mutate({ claims: shown.claims, receipt: shown.receipt })}>
                {inclusion.isPending ? 'Fetching the proof...' : 'CHECK IT WAS MINED'}
              </button>
              {inclusion.data?.kind === 'refused' && (
                <p className="field-error" role="alert" data-testid="proof-verdict">
                  {inclusion.data.message}
                </p>
              )}
              {inclusion.data?.kind === 'proved' && <ProvedInclusion proof={inclusion.data.proof} network={shown.claims.network} />}
            </section>
          </>
        )}
      </div>
    </main>
  );
}

function ReceiptDetails({ claims }: { claims: ReceiptClaims }) {
  return (
    <dl className="details status-details" data-testid="receipt-details">
      <div>
        <dt>Transaction ID</dt>
        <dd>
          <TxidText txid={claims.txid} /> <Link to={`/status?txid=${claims.txid}`}>View mining status</Link>
        </dd>
      </div>
      <div>
        <dt>Witness txid</dt>
        <dd>
          <TxidText txid={claims.wtxid} />
        </dd>
      </div>
      <div>
        <dt>Fee</dt>
        <dd>{count(claims.fee, ' sats')}</dd>
      </div>
      <div>
        <dt>Virtual size</dt>
        <dd>{count(claims.vsize, ' vB')}</dd>
      </div>
      <div>
        <dt>Minimum applied</dt>
        <dd>{feeRate(claims.threshold)}</dd>
      </div>
      <div>
        <dt>Quote</dt>
        <dd>{claims.quote ? `${feeRate(claims.quote.threshold)}, held until ${formatDateTime(claims.quote.expires_at)}` : 'None'}</dd>
      </div>
      <div>
        <dt>Accepted at</dt>
        <dd>{formatDateTime(claims.accepted_at)}</dd>
      </div>
      <div>
        <dt>Pool</dt>
        <dd>{claims.pool || 'N/A'}</dd>
      </div>
    </dl>
  );
}

function ProvedInclusion({ proof, network }: { proof: ReceiptProof; network: string }) {
  const explorer = explorerBlockUrl(network, proof.block_hash);
  return (
    <div className="outcome accepted" role="status" data-testid="proof-verdict">
      <strong>Mined in block {count(proof.block_height)}.</strong> The merkle proof leads to this block's header, and the header hashes to its block hash:
      <dl className="details">
        <div>
          <dt>Block hash</dt>
          <dd>
            <TxidText txid={proof.block_hash} />
            {explorer && (
              <>
                {' '}
                <a href={explorer} target="_blank" rel="noopener noreferrer">
                  Compare in a block explorer
                </a>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Block header</dt>
          <dd>
            <code className="txid-block">{proof.header}</code>
          </dd>
        </div>
      </dl>
    </div>
  );
}
