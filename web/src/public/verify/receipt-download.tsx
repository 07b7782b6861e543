import { useState } from 'react';
import { Link } from 'react-router';
import { saveFile } from '../../api/download-file.ts';
import { keptReceipt } from './receipt-store.ts';

/** The receipt as a file: the compact JWS on one line, named after its transaction. */
export function receiptFile(txid: string, receipt: string) {
  return { blob: new Blob([`${receipt}\n`], { type: 'text/plain' }), filename: `receipt-${txid}.jws` };
}

/**
 * "Download receipt" on the status page, for a transaction submitted from
 * this browser: the receipt kept when the submission was accepted
 * (receipt-store.ts). The pool is never asked for it; in another browser
 * there is none to offer.
 */
export function ReceiptDownload({ txid }: { txid: string }) {
  const [receipt] = useState(() => keptReceipt(txid));
  if (receipt === undefined) return null;
  return (
    <p className="receipt-actions">
      <button type="button" className="button" onClick={() => saveFile(receiptFile(txid, receipt))}>
        Download receipt
      </button>{' '}
      <Link to={`/verify#receipt=${receipt}`}>Verify receipt</Link>
      <span className="hint">The pool's signed receipt of this submission, kept in this browser: anyone can check it on the verify page.</span>
    </p>
  );
}
