/**
 * Fee arithmetic. Amounts are integer satoshis; fee rates are sat/vB numbers
 * computed from integers (docs/architecture.md, convention 5). Virtual size follows
 * BIP141: vsize = ceil(weight / 4).
 */

export interface PricingInputs {
  /** Settings: the lowest rate any submission must pay. */
  feeRateFloor: number;
  /** Settings: the multiple of the rate to beat a submission must pay. */
  multiplier: number;
  /** The lowest rate that makes the pool's next block (sat/vB). */
  marketRate: number;
  /** 0-99, from an active client code; 0 without one. */
  discountPercentage: number;
}

/** Threshold = max(floor, market × multiplier × (1 − discount/100)). Never disclosed in responses. */
export function thresholdRate(p: PricingInputs): number {
  return Math.max(p.feeRateFloor, p.marketRate * p.multiplier * (1 - p.discountPercentage / 100));
}

export function feeRate(feeSats: number, vsize: number): number {
  if (vsize <= 0) throw new RangeError('vsize must be positive');
  return feeSats / vsize;
}

/**
 * Whether a fee clears a rate threshold. Compared in integers (fee against the
 * fee the threshold demands for this size, rounded up) so that float noise in
 * the rate never flips a borderline decision.
 */
export function clearsThreshold(feeSats: number, vsize: number, threshold: number): boolean {
  const required = Math.ceil(threshold * vsize - 1e-9);
  return feeSats >= required;
}

export interface AncestorPackage {
  feeSats: number;
  vsize: number;
}

/**
 * The rate a single transaction is judged on. With no unconfirmed ancestors it
 * is its own rate. With ancestors in the mempool the miner can only take it
 * together with them, so it is worth the package rate of it and its ancestors
 * (child pays for parent). Taking the lower of the two also stops a low-fee
 * child from riding on high-fee parents it does not pay for.
 */
export function functionalRate(own: AncestorPackage, ancestors: AncestorPackage[]): number {
  const ownRate = feeRate(own.feeSats, own.vsize);
  if (ancestors.length === 0) return ownRate;
  const fee = ancestors.reduce((sum, a) => sum + a.feeSats, own.feeSats);
  const vsize = ancestors.reduce((sum, a) => sum + a.vsize, own.vsize);
  return Math.min(ownRate, feeRate(fee, vsize));
}

/** Whether the functional rate clears the threshold: the own rate and the ancestor package rate both must. */
export function functionalClears(own: AncestorPackage, ancestors: AncestorPackage[], threshold: number): boolean {
  if (!clearsThreshold(own.feeSats, own.vsize, threshold)) return false;
  if (ancestors.length === 0) return true;
  const fee = ancestors.reduce((sum, a) => sum + a.feeSats, own.feeSats);
  const vsize = ancestors.reduce((sum, a) => sum + a.vsize, own.vsize);
  return clearsThreshold(fee, vsize, threshold);
}
