import type { RpcClient } from '../../bitcoin/rpc-client.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { CallbackAnswer, WebhookService } from '../notifications/webhooks.service.ts';
import { publicRefusal } from '../disclosure/public-disclosure.ts';
import type { PortalTxids } from './portal-records.repository.ts';
import { hexForSubmission, packageHexesForSubmission } from './psbt.ts';
import type { RecordKeeper } from './record-keeper.ts';
import { compactHex, decodeOrReject, decodePackageOrReject } from './tx-decoding.ts';

/**
 * The submission path: one transaction (submit-tx.ts) or a package
 * (submit-package.ts), each one pipeline of named steps, in this order:
 *
 * 1. callback: the callback URL the caller named, refused (400) when the
 *    portal will not call it (notifications/webhooks.service.ts
 *    checkCallbackUrl). First of all, before anything is submitted or
 *    even decoded: a refused URL changes nothing and costs the node nothing.
 * 2. decode: a PSBT finalized on the node (psbt.ts), the hex decoded
 *    (tx-decoding.ts). Before the rest, because a bad entry is then refused
 *    (400) before the settings, the database or the UTXO set are read for it.
 * 3. open: the settings, read once; paused for maintenance, refused (503);
 *    a fee quote the submission names, checked (refused, 422, when it does
 *    not hold) and judged at from here on (quote-and-receipt.ts).
 * 4. price: what each transaction pays, from the outputs it spends
 *    (prevouts.ts), and the threshold its client code gets, asked together.
 * 5. decide: the signatures the portal can check (signature-check.ts), then
 *    the threshold with the parents that may pay or be paid for (child pays
 *    for parent: the portal's, public or given ones). Before the send, so
 *    that the node is only ever given what the portal would take, and a
 *    made-up witness on a private transaction's txid hears what a
 *    never-sent one hears instead of the node's "already have it".
 * 6. send: sendrawtransaction or submitpackage, the one step that changes
 *    the pool's mempool.
 * 7. record: what the node took, before the answer: a caller who heard
 *    "success" must find it recorded (submit-tx.ts sendTx and
 *    recordAccepted say how the pending row makes that hold); and what it
 *    refused for a passing reason, kept for staff to retry
 *    (submission-context.ts fail), before the answer too, so that a
 *    refused user's transaction is never lost. Each transaction recorded
 *    as taken in the copy sent is answered with its receipt, signed once it
 *    is recorded (quote-and-receipt.ts).
 * 8. answer: a refusal leaves through the disclosure module
 *    (modules/disclosure/public-disclosure.ts), so that it names no
 *    transaction but the caller's own and those the portal accepted:
 *    `answered` passes those of every step after decoding, and psbt.ts its
 *    own (a PSBT that cannot be used), with the ids the PSBT carries.
 * 9. subscribe: what the answer says was accepted, subscribed to the
 *    callback URL and to the webhook of the client whose code was used
 *    (notifications/webhooks.service.ts subscribeAccepted). The answer
 *    waits for it, since it carries the callback's secret (or why there is
 *    none); it never fails the answer: the node took the transaction.
 * 10. follow-ups, once the answer is handed on, which never waits for
 *    them: whether the public network would have relayed it
 *    (modules/policy/).
 *
 * Steps 1 and 9 are the submit routes' (`Subscribers`): a staff retry
 * names no callback URL and subscribes no one.
 */

/**
 * Who hears of what a submission got accepted: the callback URL its caller
 * named, and the webhook of the client whose code it used
 * (notifications/webhooks.service.ts). The submit routes give them.
 */
export interface Subscribers {
  callbackUrl: string | undefined;
  webhooks: Pick<WebhookService, 'checkCallbackUrl' | 'subscribeAccepted'>;
}

/** The subscribers once step 1 checked their callback URL: as it will be called. */
export interface CheckedSubscribers {
  callbackUrl: string | undefined;
  webhooks: Pick<WebhookService, 'subscribeAccepted'>;
}

/** Step 1: the callback URL as it will be called; refused (400) when the portal will not call it. None without subscribers. */
export function checkCallback(subscribers: Subscribers | undefined): CheckedSubscribers | undefined {
  if (subscribers === undefined) return undefined;
  return { callbackUrl: subscribers.webhooks.checkCallbackUrl(subscribers.callbackUrl), webhooks: subscribers.webhooks };
}

/**
 * Step 9: the txids the answer says were accepted, subscribed to the
 * callback URL (the answer then carries its secret, or why none) and to
 * the client's webhook. The answer as it was without subscribers.
 */
export async function subscribeAccepted<T extends object>(
  subscribers: CheckedSubscribers | undefined,
  answer: T,
  caller: { txids: string[]; clientCode: string | undefined; clientAddress: string | undefined },
): Promise<T & CallbackAnswer> {
  if (subscribers === undefined) return answer;
  return subscribers.webhooks.subscribeAccepted(answer, { ...caller, callbackUrl: subscribers.callbackUrl });
}

/** Step 2 for one transaction: the hex as it will be sent (a PSBT finalized, whitespace dropped), decoded. */
export async function decodeTx(rpc: RpcClient, entry: string): Promise<{ tx: DecodedTx; hex: string }> {
  const hex = compactHex(await hexForSubmission(rpc, entry));
  return { tx: await decodeOrReject(hex), hex };
}

/** Step 2 for a package: each member's hex as it will be sent, empty ones dropped, decoded; refused whole (400) when one cannot be. */
export async function decodePackage(rpc: RpcClient, entries: string[]): Promise<{ txs: DecodedTx[]; hexes: string[] }> {
  const hexes = await packageHexesForSubmission(rpc, entries);
  return { txs: await decodePackageOrReject(hexes), hexes };
}

/**
 * The ids a request that sent `txs` itself carries: their txids and
 * wtxids, and the txids of the outputs they spend. A refusal may say them
 * back: the caller wrote them.
 */
export function callerIds(txs: readonly DecodedTx[]): Set<string> {
  return new Set(txs.flatMap((tx) => [tx.txid, tx.wtxid, ...tx.inputs.map((input) => input.txid)]));
}

/** Step 8: runs the steps after decoding `txs`; a refusal they make leaves through the disclosure module. */
export async function answered<T>(portalTxids: PortalTxids, txs: readonly DecodedTx[], steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    if (error instanceof ApiError) throw await publicRefusal(portalTxids, error, callerIds(txs));
    throw error;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Step 10: `work` once the answer has been handed on (the event loop's next
 * turn: the route's reply is composed before it starts), never failing it
 * (a failure is logged). Tracked by the record keeper, so that shutting
 * down and tests wait for it.
 */
export function afterAnswer(deps: { records: Pick<RecordKeeper, 'track'>; log: Logger }, what: string, work: () => Promise<void>): void {
  const done = nextTurn()
    .then(work)
    .catch((error: unknown) => deps.log.warn({ err: error }, `A follow-up of a submission failed: ${what}`));
  void deps.records.track(done);
}
