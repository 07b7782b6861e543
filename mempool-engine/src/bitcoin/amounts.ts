/**
 * Conversions between the node's BTC amounts and integer satoshis.
 *
 * The node's JSON-RPC speaks BTC as decimal numbers; everything inside the
 * portal is integer satoshis (docs/architecture.md, convention 5). These two functions are
 * the only place the two meet.
 */

export const SATS_PER_BTC = 100_000_000;

/** Largest amount that can exist (21 million BTC), in satoshis; still a safe integer. */
export const MAX_MONEY_SATS = 21_000_000 * SATS_PER_BTC;

/**
 * A BTC amount as parsed from the node's JSON (a double) to integer satoshis.
 * Rounding is exact: any 8-decimal amount up to 21e6 BTC parses to a double
 * within 0.5 sat of its true value once multiplied by 1e8.
 */
export function btcToSats(btc: number): number {
  if (!Number.isFinite(btc)) throw new RangeError(`Not a BTC amount: ${btc}`);
  const sats = Math.round(btc * SATS_PER_BTC);
  if (Math.abs(sats) > MAX_MONEY_SATS) throw new RangeError(`BTC amount out of range: ${btc}`);
  // Math.round(-0.4) is -0; normalise so callers never see a negative zero.
  return sats === 0 ? 0 : sats;
}

/**
 * Integer satoshis to the decimal string the node's RPC accepts for amounts
 * (it takes strings as well as numbers, and a string never picks up float noise):
 * 12345 → "0.00012345".
 */
export function satsToBtc(sats: number | bigint): string {
  if (typeof sats === 'number' && !Number.isSafeInteger(sats)) throw new RangeError(`Satoshi amount must be an integer: ${sats}`);
  const value = BigInt(sats);
  if (value > BigInt(MAX_MONEY_SATS) || value < -BigInt(MAX_MONEY_SATS)) throw new RangeError(`Satoshi amount out of range: ${sats}`);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const whole = abs / BigInt(SATS_PER_BTC);
  const fraction = abs % BigInt(SATS_PER_BTC);
  return `${sign}${whole}.${fraction.toString().padStart(8, '0')}`;
}

/** A rate as the node reports it (BTC per kvB) to sat/vB, rounded through integer sat/kvB to shed float noise. */
export function btcPerKvbToSatPerVb(btcPerKvb: number): number {
  return Math.round(btcPerKvb * 1e8) / 1000;
}
