import http from 'node:http';
import https from 'node:https';
import { checkWebhookUrl, DestinationRefused, guardedLookup, type DestinationPolicy } from './destination-guard.ts';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.ts';

/**
 * One HTTP attempt at a webhook: POST the JSON body, signed, to the receiver.
 * Success is any 2xx. Redirects are not followed (a redirect could lead
 * anywhere, including where the guard refuses to go). The answer's body is
 * read and dropped, bounded, so a receiver cannot hold memory.
 */

export interface WebhookRequest {
  url: string;
  /** The JSON text sent, exactly as signed. */
  body: string;
  secret: string;
  /** Sent as Slipstream-Delivery: the same on every retry of one event, so receivers can drop duplicates. */
  idempotencyKey: string;
  unixSeconds: number;
}

export type DeliveryOutcome =
  | { ok: true; status: number }
  /** `final`: retrying cannot help (the URL is refused); otherwise the next attempt may succeed. */
  | { ok: false; final: boolean; status: number | null; reason: string };

export interface DeliveryOptions extends DestinationPolicy {
  timeoutMs: number;
}

const MAX_ANSWER_BYTES = 64 * 1024;

export function deliverWebhook(request: WebhookRequest, options: DeliveryOptions): Promise<DeliveryOutcome> {
  let url: URL;
  try {
    url = checkWebhookUrl(request.url, options);
  } catch (error) {
    if (error instanceof DestinationRefused) return Promise.resolve({ ok: false, final: true, status: null, reason: error.message });
    throw error;
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((answer) => {
    // `timeout` below fires only after that long with nothing received; a receiver that trickles its
    // answer a byte at a time would hold the job (and one of the runner's few slots) for days. This
    // bounds the whole attempt: connecting, sending, and reading the answer.
    const deadline = setTimeout(() => req.destroy(new Error(`No complete answer within ${options.timeoutMs} ms.`)), options.timeoutMs);
    const resolve = (outcome: DeliveryOutcome) => {
      clearTimeout(deadline);
      answer(outcome);
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(options),
        agent: false,
        timeout: options.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(request.body),
          'user-agent': 'Slipstream-Portal-Webhook/1',
          'slipstream-delivery': request.idempotencyKey,
          [SIGNATURE_HEADER]: signatureHeader(request.secret, request.body, request.unixSeconds),
        },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const status = res.statusCode ?? 0;
        const done = () =>
          resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, final: false, status, reason: `The receiver answered HTTP ${status}.` });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`No complete answer within ${options.timeoutMs} ms.`)));
    req.on('error', (error) => {
      const final = error instanceof DestinationRefused;
      resolve({ ok: false, final, status: null, reason: error.message });
    });
    req.end(request.body);
  });
}
