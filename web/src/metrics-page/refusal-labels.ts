/** How the /metrics page says what its acceptance rate counts (no JSX and no imports: the tests read these too). The chart's
 * use of REFUSAL_LABELS[reason] checks that every reason the API names has a label. */

/** The refusal reasons in words (server/src/metrics/refusal-reasons.ts). */
export const REFUSAL_LABELS = {
  fee_too_low: 'Fee too low',
  invalid: 'Not a valid transaction or request',
  missing_inputs: 'Missing or spent inputs',
  already_confirmed: 'Already confirmed',
  conflict: "Conflicts with the pool's mempool",
  node_refused: 'Refused by the node',
  maintenance: 'Maintenance',
  unavailable: 'Node or database unavailable',
  connection_closed: 'Connection closed mid-request',
} as const satisfies Record<string, string>;

/** What the rate means, said where it is shown. */
export const ACCEPTANCE_MEANS =
  "Acceptance is accepted ÷ (accepted + refused): of the submissions the portal judged, the share it took. Refused counts every refusal, whatever its reason; requests turned away for coming too fast are not counted. Kept for retry: submissions that failed for want of the node, kept for staff to retry (counted in Refused too).";
