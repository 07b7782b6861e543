import { checkSignatures, type SignatureVerdict } from '../../bitcoin/signature-check.ts';
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
