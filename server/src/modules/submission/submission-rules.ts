import { explainRejectReason } from '../../bitcoin/reject-reasons.ts';

/** The limits and the wording of the answers every submission path shares. */

/** Bitcoin Core's MAX_PACKAGE_COUNT (policy/packages.h). */
export const MAX_PACKAGE_COUNT = 25;

export const FEE_TOO_LOW_MESSAGE =
  'The transaction fee is too low for this service. Raise the fee and submit again, or submit next a child transaction that spends it and pays for both (child pays for parent).';
export const PACKAGE_FEE_TOO_LOW_MESSAGE =
  'pays too low a fee for this service, even counted together with the transactions of the package that spend it. Raise its fee, or give a child that spends it a fee that pays for both.';
export const MAINTENANCE_MESSAGE = 'Submissions are paused for maintenance. Please check back later.';
/**
 * The answer for a transaction spending an output the portal cannot price:
 * one nobody knows, or one of a transaction the node holds but the portal
 * did not record (private until mined, docs/behaviour.md#private-until-mined). Not the node's
 * verdict on it: the node knows the second kind, and its checks of amounts
 * and scripts would tell it apart. Worded as the node's missing-inputs
 * (bitcoin/reject-reasons.ts), which says no more.
 */
export const MISSING_INPUTS_MESSAGE = explainRejectReason('missing-inputs');

/** A checkable signature failed (signature-check.ts): the portal's refusal, the same whatever the node holds. */
export function invalidSignatureMessage(input: number, member?: number): string {
  const where = member === undefined ? `input ${input}` : `input ${input} of transaction ${member + 1} of the package`;
  return `A signature check failed: the transaction is not validly signed for the outputs it spends (${where}).`;
}

/**
 * The node holds a transaction with this txid and another witness (segwit
 * txids do not cover it) that was not submitted here: this copy was not
 * taken, and nothing of the other is said.
 */
export const OTHER_WITNESS_MESSAGE =
  "This transaction was not taken: the mining node holds a transaction with the same txid and another witness, so this copy would not be the one mined.";

/**
 * The node answered success, and a moment later no longer held the
 * transaction, nor knew it mined (replaced or evicted meanwhile, or mined
 * where it cannot say): which copy it had taken, this one or another with
 * the same txid, it no longer says, so this one is not recorded
 * (submit-tx.ts copyHeld). Submitted again, the node's answer is clear.
 */
export const LEFT_MEMPOOL_MESSAGE =
  'The mining node answered that it has this transaction, but a moment later it was no longer in its mempool (mined, replaced or evicted), so it was not recorded here. Submit it again to see where it stands.';
