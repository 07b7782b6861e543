import { checkSignatures, firstInvalidInput, type SignatureVerdict } from '../../bitcoin/signature-check.ts';
import { ApiError } from '../../http/errors.ts';
import { invalidSignatureMessage } from './submission-rules.ts';
import type { PricedTx } from './prevouts.ts';

/**
 * Whether every transaction of a failed submission is signed, input by
 * input, against the outputs pricing found (prevouts.ts already fetched
 * them: the node is not asked again). A package is signed when each member
 * is; a member spending an earlier member's output is checked against that
 * output. Nothing priced (the node failed before pricing finished) is
 * nothing verified.
 */
export function signaturesVerdict(priced: readonly PricedTx[] | undefined): SignatureVerdict & { txid?: string } {
  if (!priced || priced.length === 0) return { ok: false, input: 0, reason: 'missing-prevout' };
  for (const p of priced) {
    const verdict = checkSignatures(p.tx, p.spent);
    if (!verdict.ok) return { ...verdict, txid: p.tx.txid };
  }
  return { ok: true };
}

/**
 * Refuses, before the node is asked, a submission with an input whose
 * signature the portal can check and that fails. The node matches a
 * transaction it already holds by txid before it checks any signature, and
 * a segwit txid does not cover the witness: without this, anyone holding a
 * private transaction's unsigned form would hear "success" for a copy with
 * a made-up witness, where an unknown transaction hears the script failure.
 * Checked here, both hear the same refusal (for the input kinds
 * signature-check.ts verifies; README, "How a submission is judged", says
 * what remains for the others).
 */
export function refuseInvalidSignatures(priced: readonly PricedTx[]): void {
  priced.forEach((p, position) => {
    const input = firstInvalidInput(p.tx, p.spent);
    if (input !== undefined) throw new ApiError(422, invalidSignatureMessage(input, priced.length > 1 ? position : undefined));
  });
}
