import { decodeTxHex, MAX_BLOCK_WEIGHT, TxDecodeError, type DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError } from '../../http/errors.ts';
import { MAX_PACKAGE_COUNT } from './submission-rules.ts';

/** The submitted hex decoded, as each submission path needs it: a bad one refused (400) or, for parsing, reported. */

/**
 * One transaction's hex without whitespace: tools wrap long hex over lines
 * (and some indent them), and whitespace is never part of the hex, so
 * spaces, tabs, CR and LF anywhere in it are dropped rather than refused.
 * This also trims it (docs/behaviour.md#submit-page).
 */
export function compactHex(hex: string): string {
  return hex.replace(/\s+/g, '');
}

/** Each item without whitespace, empty ones dropped (docs/behaviour.md#submit-page: trimmed, empty items dropped). */
export function normaliseItems(items: string[]): string[] {
  return items.map(compactHex).filter((s) => s !== '');
}

/**
 * Above this much hex, decoding yields to the event loop first: body parsing
 * and decoding a multi-megabyte transaction would otherwise run as one block
 * long enough to stall every other request.
 */
const YIELD_ABOVE_HEX_CHARS = 256 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function decodeOrReject(hex: string): Promise<DecodedTx> {
  if (hex.length > YIELD_ABOVE_HEX_CHARS) await nextTurn();
  try {
    return decodeTxHex(hex);
  } catch (error) {
    if (error instanceof TxDecodeError) throw new ApiError(400, error.message);
    throw error;
  }
}

export async function decodePackageOrReject(hexes: string[]): Promise<DecodedTx[]> {
  if (hexes.length === 0) throw new ApiError(400, 'The package is empty.');
  if (hexes.length > MAX_PACKAGE_COUNT) throw new ApiError(400, `A package holds at most ${MAX_PACKAGE_COUNT} transactions.`);
  const txs: DecodedTx[] = [];
  for (const [i, hex] of hexes.entries()) {
    try {
      txs.push(await decodeOrReject(hex));
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(400, `Transaction ${i + 1} of the package: ${error.message}`);
      throw error;
    }
  }
  const weight = txs.reduce((s, t) => s + t.weight, 0);
  if (weight > MAX_BLOCK_WEIGHT) {
    throw new ApiError(400, `The package weighs ${weight.toLocaleString('en-US')} weight units, more than a block can hold (4,000,000).`);
  }
  if (new Set(txs.map((t) => t.txid)).size !== txs.length) throw new ApiError(400, 'The package contains the same transaction twice.');
  return txs;
}

/** Each hex decoded, or the reason it could not be. */
export async function decodeEach(hexes: string[]): Promise<Array<DecodedTx | TxDecodeError>> {
  const decoded: Array<DecodedTx | TxDecodeError> = [];
  for (const hex of hexes) {
    if (hex.length > YIELD_ABOVE_HEX_CHARS) await nextTurn();
    try {
      decoded.push(decodeTxHex(hex));
    } catch (error) {
      if (!(error instanceof TxDecodeError)) throw error;
      decoded.push(error);
    }
  }
  return decoded;
}
