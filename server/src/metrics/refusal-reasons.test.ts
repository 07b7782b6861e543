import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONNECTION_CLOSED_MESSAGE } from '../audit/audit.hooks.ts';
import { explainRejectReason } from '../bitcoin/reject-reasons.ts';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../http/errors.ts';
import { alreadyConfirmedMessage } from '../modules/submission/already-confirmed.ts';
import { PRIVATE_CONFLICT_MESSAGE } from '../modules/submission/private-conflicts.ts';
import { FEE_TOO_LOW_MESSAGE, MAINTENANCE_MESSAGE, MISSING_INPUTS_MESSAGE } from '../modules/submission/submission-rules.ts';
import { refusalReason } from './refusal-reasons.ts';

test('each refusal the submission paths answer is sorted into its reason; a rate-limited request is not a refusal', () => {
  const cases: Array<[string | null, ReturnType<typeof refusalReason>]> = [
    [FEE_TOO_LOW_MESSAGE, 'fee_too_low'],
    [MISSING_INPUTS_MESSAGE, 'missing_inputs'],
    [alreadyConfirmedMessage({ txid: 'a', blockHash: 'b', blockHeight: 840_000 }), 'already_confirmed'],
    [PRIVATE_CONFLICT_MESSAGE, 'conflict'],
    [MAINTENANCE_MESSAGE, 'maintenance'],
    [SERVICE_UNAVAILABLE_MESSAGE, 'unavailable'],
    ['HTTP 500', 'unavailable'],
    [explainRejectReason('min relay fee not met, 100 < 141'), 'node_refused'],
    [explainRejectReason('something no table knows'), 'node_refused'],
    ["body must have required property 'tx_hex'", 'invalid'],
    [null, 'invalid'],
    [CONNECTION_CLOSED_MESSAGE, 'connection_closed'],
    [`${CONNECTION_CLOSED_MESSAGE} The answer was: ${FEE_TOO_LOW_MESSAGE}`, 'fee_too_low'],
    ['Too many requests. Please retry in 12 seconds.', undefined],
  ];
  for (const [message, reason] of cases) assert.equal(refusalReason(message), reason, String(message));
});
