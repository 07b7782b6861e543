import { explainRejectReason } from '../../bitcoin/reject-reasons.ts';

/** The limits and the wording of the answers every submission path shares. */

/** Bitcoin Core's MAX_PACKAGE_COUNT (policy/packages.h). */
export const MAX_PACKAGE_COUNT = 25;

export const FEE_TOO_LOW_MESSAGE = 'The transaction fee is too low for this service. Raise the fee and submit again.';
export const PACKAGE_FEE_TOO_LOW_MESSAGE =
  'pays too low a fee for this service. In a package every transaction must clear the minimum on its own; child-pays-for-parent works only for transactions submitted one at a time.';
export const MAINTENANCE_MESSAGE = 'Submissions are paused for maintenance. Please check back later.';
/**
 * The answer for a transaction spending an output the portal cannot price:
 * one nobody knows, or one of a transaction the node holds but the portal
 * did not record (private until mined, SPEC.md section 1). Not the node's
 * verdict on it: the node knows the second kind, and its checks of amounts
 * and scripts would tell it apart. Worded as the node's missing-inputs
 * (bitcoin/reject-reasons.ts), which says no more.
 */
export const MISSING_INPUTS_MESSAGE = explainRejectReason('missing-inputs');
