import { useEffect, useState } from 'react';
import { parseTx, type ParseTxResponse } from '../api/parse-tx.ts';

/** Quiet time after the last keystroke before the input is decoded. */
export const PARSE_DEBOUNCE_MS = 300;

/**
 * docs/behaviour.md#parse-preview: parsing runs on every input change (debounced here, so
 * pasting a 4 MB transaction is decoded once, not per keystroke). A newer
 * input cancels the older request. docs/behaviour.md#parse-preview: a parse failure is only
 * logged; the preview then shows nothing.
 */
export function useParsePreview(items: string[], clientCode: string, quoteId?: string): ParseTxResponse | null {
  const [result, setResult] = useState<{ key: string; value: ParseTxResponse } | null>(null);
  const key = JSON.stringify([items, clientCode, quoteId]);

  useEffect(() => {
    if (items.length === 0) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const code = clientCode.trim();
      // Judged at the quote the page holds, as the submission naming it will be.
      parseTx({ tx_hexes: items, ...(code ? { client_code: code } : {}), ...(quoteId ? { quote_id: quoteId } : {}) }, controller.signal)
        .then((value) => setResult({ key, value }))
        .catch((error: unknown) => {
          if (!controller.signal.aborted) console.warn('parse-tx failed', error);
        });
    }, PARSE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // `key` stands for items, clientCode and quoteId.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  // Only the answer for what is in the box now.
  return result?.key === key && items.length > 0 ? result.value : null;
}
