import { api, GENERIC_FAILURE } from '../../api/http.ts';
import { belowMinimum, type ParseState, type QueueRow, type RowTx, type SendState } from './batch-queue.ts';
import { retryAfterMs } from './retry-after.ts';
import { keepReceipts } from '../verify/receipt-store.ts';

/**
 * The queue's calls to the public API, one at a time. A 429 is waited out
 * for as long as its Retry-After says (RFC 9110 section 10.2.3: seconds, or
 * an HTTP date) and the same request is made again; the wait is reported so
 * the page can show it.
 */

export const NETWORK_FAILURE = 'Failed to submit transaction. Please try again.';
export const PARSE_UNAVAILABLE = 'Could not be decoded right now: the portal is out of reach. Trying again on its own; it can still be sent.';
/** The same, once the automatic tries have run out. */
export const PARSE_UNAVAILABLE_STOPPED =
  'Could not be decoded: the portal stayed out of reach. Trying again when this device comes back online, or reload the page to try now; it can still be sent.';

export interface Pacing {
  /** Called with the time the request will be made again, and with null once it is. */
  onWait: (until: number | null) => void;
  signal: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The call's answer once it is not a 429; a network failure throws. */
async function paced<T>(call: () => Promise<Answer<T>>, pacing: Pacing): Promise<Answer<T>> {
  for (;;) {
    const answer = await call();
    if (answer.response.status !== 429) return answer;
    const until = Date.now() + retryAfterMs(answer.response.headers.get('retry-after'), Date.now());
    pacing.onWait(until);
    await sleep(until - Date.now(), pacing.signal);
    pacing.onWait(null);
  }
}

function serverMessage(answer: Answer<unknown>): string {
  const body = answer.error;
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' && body.message !== '') return body.message;
  return GENERIC_FAILURE;
}

const withCode = (clientCode: string) => (clientCode.trim() ? { client_code: clientCode.trim() } : {});

type ParsedItem = NonNullable<Awaited<ReturnType<typeof parseCall>>['data']>['transactions'][number];
const parseCall = (row: QueueRow, clientCode: string, signal: AbortSignal) =>
  api.POST('/rest-api/parse-tx', { body: { tx_hexes: row.items, ...withCode(clientCode) }, signal });

/** A parse item, with the PSBT part the server adds when the entry was one. */
function rowTx(item: ParsedItem & { psbt?: { stated_fee: number | null } }): RowTx {
  if (item.status === 'error') return { message: item.message, error: true };
  return {
    ...(item.txid !== undefined ? { txid: item.txid } : {}),
    ...(item.vsize !== undefined ? { vsize: item.vsize } : {}),
    fee: item.fee ?? null,
    feeRate: item.fee_rate ?? null,
    functionalRate: item.functional_rate ?? null,
    meetsMinimum: item.meets_minimum_fee ?? null,
    message: item.message,
    error: false,
    ...(item.psbt ? { psbt: { statedFee: item.psbt.stated_fee } } : {}),
  };
}

/** What a row holds, as parse-tx decodes it; aborting throws. */
export async function parseRow(row: QueueRow, clientCode: string, pacing: Pacing): Promise<ParseState> {
  let answer;
  try {
    answer = await paced(() => parseCall(row, clientCode, pacing.signal), pacing);
  } catch (error) {
    if (pacing.signal.aborted) throw error;
    return { state: 'failed', message: PARSE_UNAVAILABLE, unreachable: true };
  }
  // 5xx: the portal, its node or its database is out of reach for now, not a verdict on the entry.
  if (!answer.data) return { state: 'failed', message: serverMessage(answer), ...(answer.response.status >= 500 ? { unreachable: true } : {}) };
  return { state: 'done', txs: answer.data.transactions.map(rowTx), at: Date.now() };
}

const refusal = (message: string, isPackage: boolean): SendState => {
  const below = belowMinimum(message, isPackage);
  return { state: 'refused', message, ...(below.length > 0 ? { belowMinimum: below, at: Date.now() } : {}) };
};

/** A refused package's reasons, per transaction, or its own message. */
function packageFailure(message: string, results: Record<string, { error?: string }> | undefined): string {
  const errors = Object.values(results ?? {})
    .map((entry) => entry.error)
    .filter((error): error is string => typeof error === 'string' && error !== '');
  return errors.length > 0 ? errors.join('; ') : message || GENERIC_FAILURE;
}

async function submit(row: QueueRow, clientCode: string, pacing: Pacing): Promise<SendState> {
  const code = withCode(clientCode);
  if (!row.isPackage) {
    const answer = await paced(() => api.POST('/rest-api/submit-tx', { body: { tx_hex: row.items[0]!, ...code } }), pacing);
    if (!answer.data) return refusal(serverMessage(answer), false);
    // The receipt stays in this browser, for the status page's "Download receipt".
    if (answer.data.receipt) keepReceipts({ [answer.data.message]: answer.data.receipt });
    return { state: 'accepted', txids: [answer.data.message] };
  }
  const answer = await paced(() => api.POST('/rest-api/submit-package', { body: { tx_hexes: row.items, ...code } }), pacing);
  if (!answer.data) return refusal(serverMessage(answer), true);
  const { status, message, result, receipts } = answer.data;
  if (receipts) keepReceipts(receipts);
  if (status === 'error' || result?.package_msg !== 'success') return { state: 'refused', message: packageFailure(message, result?.['tx-results']) };
  const txids = Object.values(result['tx-results'])
    .map((entry) => entry.txid)
    .filter((txid): txid is string => typeof txid === 'string');
  return { state: 'accepted', txids };
}

/**
 * Sends one row: a single transaction to submit-tx, a package to
 * submit-package. The answer is the row's result; a server out of reach is a
 * result too (the row can be retried). Aborting while waiting out a 429 throws.
 */
export async function sendRow(row: QueueRow, clientCode: string, pacing: Pacing): Promise<SendState> {
  try {
    return await submit(row, clientCode, pacing);
  } catch (error) {
    if (pacing.signal.aborted) throw error;
    return { state: 'refused', message: NETWORK_FAILURE };
  }
}
