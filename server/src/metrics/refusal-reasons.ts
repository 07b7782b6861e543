import { alreadyConfirmedMessage } from '../modules/submission/already-confirmed.ts';
import { PRIVATE_CONFLICT_MESSAGE } from '../modules/submission/private-conflicts.ts';
import { FEE_TOO_LOW_MESSAGE, MAINTENANCE_MESSAGE, MISSING_INPUTS_MESSAGE, PACKAGE_FEE_TOO_LOW_MESSAGE } from '../modules/submission/submission-rules.ts';
import { CONNECTION_CLOSED_MESSAGE } from '../audit/audit.hooks.ts';
import { NODE_UNAVAILABLE_MESSAGE, SERVICE_UNAVAILABLE_MESSAGE } from '../http/errors.ts';

/**
 * Why a submission was refused, read from its row in the audit trail (the
 * error message the caller was told, or the one staff were told when it says
 * more). The trail has every submission's answer, whichever path refused it
 * (the schema, the decoder, the pricing, the node), so counting there misses
 * none: the failed-transactions table holds only what was kept for retry.
 */

export const REFUSAL_REASONS = [
  'fee_too_low',
  'invalid',
  'missing_inputs',
  'already_confirmed',
  'conflict',
  'node_refused',
  'maintenance',
  'unavailable',
  'connection_closed',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** The audit trail's endpoints of the submission routes (both wire shapes: /rest-api and the Slipstream-compatible /api). */
export const SUBMISSION_ENDPOINTS = ['/rest-api/submit-tx', '/rest-api/submit-package', '/api/transactions', '/api/transactions/packages'] as const;

/** The rate limit's answer (app.ts): a request turned away before it was judged is no refused submission. */
const RATE_LIMITED = /^Too many requests\b/;
/** The node's verdict in words, followed by its code (bitcoin/reject-reasons.ts explainRejectReason). */
const NODE_VERDICT = /\(node: [^)]+\)$/;
/** "… confirmed in block N.": the message's text either side of the height. */
const [CONFIRMED_BEFORE, CONFIRMED_AFTER] = alreadyConfirmedMessage({ txid: '', blockHash: '', blockHeight: 0 }).split('0') as [string, string];
const isConfirmedMessage = (message: string) =>
  message.startsWith(CONFIRMED_BEFORE) && message.endsWith(CONFIRMED_AFTER) && /^\d+$/.test(message.slice(CONFIRMED_BEFORE.length, message.length - CONFIRMED_AFTER.length));

/** The reason of a refusal from its audit error message; undefined for one that is not counted (rate limited). */
export function refusalReason(errorMessage: string | null): RefusalReason | undefined {
  let message = (errorMessage ?? '').trim();
  if (message.startsWith(CONNECTION_CLOSED_MESSAGE)) {
    const answered = message.slice(CONNECTION_CLOSED_MESSAGE.length).replace(/^ The answer was: /, '');
    if (answered === '') return 'connection_closed';
    message = answered;
  }
  if (RATE_LIMITED.test(message)) return undefined;
  if (message === FEE_TOO_LOW_MESSAGE || message.endsWith(PACKAGE_FEE_TOO_LOW_MESSAGE)) return 'fee_too_low';
  if (message === MISSING_INPUTS_MESSAGE) return 'missing_inputs';
  if (isConfirmedMessage(message)) return 'already_confirmed';
  if (message === PRIVATE_CONFLICT_MESSAGE) return 'conflict';
  if (message === MAINTENANCE_MESSAGE) return 'maintenance';
  if (message === SERVICE_UNAVAILABLE_MESSAGE || message === NODE_UNAVAILABLE_MESSAGE || /^HTTP 5\d\d$/.test(message)) return 'unavailable';
  if (NODE_VERDICT.test(message)) return 'node_refused';
  // What is left was refused before pricing: bad hex, a malformed PSBT or package, a body the schema refuses.
  return 'invalid';
}
