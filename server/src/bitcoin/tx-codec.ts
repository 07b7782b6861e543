import { createHash } from 'node:crypto';
import { compactSizeLength, compactSizeText, readCompactSize, writeCompactSize } from './compact-size.ts';

/**
 * In-process Bitcoin transaction decoder and encoder.
 *
 * The node stays the judge of validity (docs/architecture.md#layout); this codec only has to
 * parse exactly what Bitcoin Core's extended (BIP144) deserializer parses, so
 * that txid, wtxid, size, weight and vsize shown to users are the node's. It is
 * strict where Core is strict (non-canonical CompactSize, unknown segwit flag,
 * superfluous witness record, trailing bytes) and permissive where Core's
 * deserializer is permissive (any version, empty outputs, non-standard scripts).
 * A few checks go beyond deserialization because no such transaction can ever
 * be mined: size or weight over the consensus limit, output values outside
 * 0..MAX_MONEY.
 */

/** BIP141: a block, hence any transaction in it, weighs at most this many weight units. */
export const MAX_BLOCK_WEIGHT = 4_000_000;
/** BIP141: non-witness bytes weigh 4 units, witness bytes 1. */
export const WITNESS_SCALE_FACTOR = 4;
/** Consensus MoneyRange upper bound: 21 million BTC in satoshis. */
export const MAX_MONEY = 2_100_000_000_000_000;

export interface DecodedInput {
  /** Previous txid in display (byte-reversed) hex, as the node's RPC shows it. */
  txid: string;
  vout: number;
  scriptSig: string;
  sequence: number;
  witness: string[];
}

export interface DecodedOutput {
  /** Integer satoshis, 0..MAX_MONEY. */
  value: number;
  scriptPubKey: string;
}

export interface DecodedTx {
  txid: string;
  wtxid: string;
  /** Unsigned 32-bit, as the node's decoderawtransaction reports it. */
  version: number;
  locktime: number;
  size: number;
  weight: number;
  vsize: number;
  hasWitness: boolean;
  inputs: DecodedInput[];
  outputs: DecodedOutput[];
}

export interface EncodableTx {
  /** Either signed (-2^31..2^31-1) or unsigned (0..2^32-1); the same 4 bytes. */
  version: number;
  locktime: number;
  inputs: ReadonlyArray<{ txid: string; vout: number; scriptSig: string; sequence: number; witness?: readonly string[] }>;
  outputs: ReadonlyArray<{ value: number; scriptPubKey: string }>;
}

export type TxDecodeErrorCode =
  | 'empty' | 'not-hex' | 'odd-length' | 'too-large' | 'truncated' | 'trailing-bytes' | 'non-canonical-size'
  | 'count-too-large' | 'unknown-flag' | 'superfluous-witness' | 'bad-value' | 'over-weight';

/** The input is not a decodable transaction. `message` is written for end users. */
export class TxDecodeError extends Error {
  readonly code: TxDecodeErrorCode;
  constructor(code: TxDecodeErrorCode, message: string) {
    super(message);
    this.name = 'TxDecodeError';
    this.code = code;
  }
}

// Smallest possible serialized elements, used to refuse absurd counts before
// allocating anything: an input is outpoint (36) + empty-script length (1) +
// sequence (4); an output is value (8) + empty-script length (1); a witness
// item is at least its own length byte.
const MIN_INPUT_BYTES = 41;
const MIN_OUTPUT_BYTES = 9;
const MIN_WITNESS_ITEM_BYTES = 1;
const TWO_32 = 0x1_0000_0000;

const fmt = (n: number): string => n.toLocaleString('en-US');
const truncated = (): TxDecodeError => new TxDecodeError('truncated', 'Transaction data ends unexpectedly (truncated).');

/** A cursor over the transaction bytes; every read is bounds-checked. */
class Reader {
  readonly buf: Buffer;
  /** The whole transaction as hex, converted once: slicing it is far cheaper than a native call per field. */
  readonly hex: string;
  pos = 0;
  constructor(buf: Buffer, sourceHex?: string) {
    this.buf = buf;
    // Scripts and witness items are slices of this string; slicing the
    // caller's own lowercase hex (O(1) in V8) spares re-encoding megabytes.
    this.hex = sourceHex ?? buf.toString('hex');
  }

  /** Consumes `n` bytes and returns where they start. */
  take(n: number): number {
    const start = this.pos;
    if (n > this.buf.length - start) throw truncated();
    this.pos = start + n;
    return start;
  }

  compactSize(): number {
    const first = this.buf[this.pos];
    if (first !== undefined && first < 0xfd) {
      this.pos++; // the one-byte form, by far the most common: skip the general reader
      return first;
    }
    const read = readCompactSize(this.buf, this.pos);
    if (!read.ok) {
      if (read.problem === 'truncated') throw truncated();
      throw new TxDecodeError('non-canonical-size', `Transaction contains a length or count at byte ${fmt(this.pos)} that is not in its shortest (canonical) CompactSize form.`);
    }
    this.pos += read.length;
    return read.value;
  }

  /** A count of elements, refused if the remaining bytes could not hold that many. */
  count(noun: string, minBytesEach: number, where = ''): number {
    const at = this.pos;
    const n = this.compactSize();
    const left = this.buf.length - this.pos;
    if (n * minBytesEach > left) {
      throw new TxDecodeError('count-too-large', `Transaction declares ${compactSizeText(this.buf, at)} ${noun}${where}, more than its remaining ${fmt(left)} bytes could hold (truncated or corrupt data).`);
    }
    return n;
  }

  /** A length-prefixed byte string (script or witness item), as hex. */
  varBytesHex(): string {
    const n = this.compactSize();
    const start = this.take(n);
    return this.hex.slice(2 * start, 2 * (start + n));
  }
}

// Reused for every outpoint txid; safe because decoding is synchronous.
const reversed = Buffer.alloc(32);
function reversedHex(buf: Buffer, start: number): string {
  for (let i = 0; i < 32; i++) reversed[i] = buf[start + 31 - i]!;
  return reversed.toString('hex');
}

function sha256dDisplayHex(parts: readonly Buffer[]): string {
  const first = createHash('sha256');
  for (const part of parts) first.update(part);
  return createHash('sha256').update(first.digest()).digest().reverse().toString('hex');
}

function tooLarge(what: string): TxDecodeError {
  return new TxDecodeError('too-large', `${what}, but no transaction over ${fmt(MAX_BLOCK_WEIGHT)} bytes can fit the consensus limit of ${fmt(MAX_BLOCK_WEIGHT)} weight units.`);
}

/** Decodes a transaction from hex (either case; callers trim whitespace). */
export function decodeTxHex(hex: string): DecodedTx {
  if (hex.length === 0) throw new TxDecodeError('empty', 'Transaction hex is empty.');
  // Weight >= size (BIP141), so more than 2 * MAX_BLOCK_WEIGHT characters can
  // never be a valid transaction: refuse before converting megabytes of text.
  if (hex.length > 2 * MAX_BLOCK_WEIGHT) throw tooLarge(`Transaction hex is ${fmt(hex.length)} characters long`);
  // Buffer.from(hex, 'hex') stops at the first invalid pair, so a short result
  // means a bad character. It also silently keeps only the low byte of any
  // character above U+00FF ('š' decodes like 'a'), hence the ASCII check: a
  // string's UTF-8 length equals its length only if every character is ASCII.
  const bytes = Buffer.from(hex, 'hex');
  const odd = hex.length % 2 === 1;
  const last = hex.charCodeAt(hex.length - 1);
  const lastIsHex = (last >= 48 && last <= 57) || ((last | 0x20) >= 97 && (last | 0x20) <= 102);
  if (bytes.length * 2 !== hex.length - (odd ? 1 : 0) || !lastIsHex || Buffer.byteLength(hex, 'utf8') !== hex.length) {
    throw new TxDecodeError('not-hex', 'Transaction hex contains characters that are not hexadecimal.');
  }
  if (odd) throw new TxDecodeError('odd-length', 'Transaction hex has an odd number of characters.');
  // Decoded fields are lowercase, as the node prints them.
  return decodeBytes(bytes, /[A-F]/.test(hex) ? undefined : hex);
}

/** Decodes a serialized transaction exactly as Bitcoin Core's BIP144 deserializer does. */
export function decodeTx(bytes: Buffer): DecodedTx {
  return decodeBytes(bytes, undefined);
}

/** `sourceHex`, when given, is `bytes` as lowercase hex. */
function decodeBytes(bytes: Buffer, sourceHex: string | undefined): DecodedTx {
  if (bytes.length === 0) throw new TxDecodeError('empty', 'Transaction data is empty.');
  if (bytes.length > MAX_BLOCK_WEIGHT) throw tooLarge(`Transaction is ${fmt(bytes.length)} bytes`);
  const r = new Reader(bytes, sourceHex);
  // Core stores the version as uint32 (v28+) and has printed it unsigned since
  // v0.19; the portal shows what the node shows.
  const version = bytes.readUInt32LE(r.take(4));

  // BIP144: marker 0x00 sits where the input count would be, then flag 0x01.
  // Like Core, read 0x00 0x00 as a legacy transaction with no inputs and no
  // outputs, and refuse any other flag ("Unknown transaction optional data").
  let segwit = false;
  const flag = bytes[5];
  if (bytes[4] === 0 && flag !== undefined && flag !== 0) {
    if (flag !== 1) {
      throw new TxDecodeError('unknown-flag', `Transaction has the segregated witness marker 0x00 followed by flag 0x${flag.toString(16).padStart(2, '0')}, but BIP144 defines only flag 0x01.`);
    }
    segwit = true;
    r.pos = 6;
  }

  const bodyStart = r.pos;
  const inputCount = r.count('inputs', MIN_INPUT_BYTES);
  const inputs: DecodedInput[] = [];
  for (let i = 0; i < inputCount; i++) {
    const txid = reversedHex(bytes, r.take(32));
    const vout = bytes.readUInt32LE(r.take(4));
    const scriptSig = r.varBytesHex();
    const sequence = bytes.readUInt32LE(r.take(4));
    inputs.push({ txid, vout, scriptSig, sequence, witness: [] });
  }

  const outputCount = r.count('outputs', MIN_OUTPUT_BYTES);
  const outputs: DecodedOutput[] = [];
  for (let i = 0; i < outputCount; i++) {
    const at = r.take(8);
    // int64 little-endian; the high half carries the sign. Values outside
    // MoneyRange can never be valid, and beyond 2^53 would not be exact.
    const high = bytes.readInt32LE(at + 4);
    const value = high * TWO_32 + bytes.readUInt32LE(at);
    if (value < 0) throw new TxDecodeError('bad-value', `Output ${i} has a negative value (${bytes.readBigInt64LE(at)} satoshis).`);
    if (value > MAX_MONEY) {
      throw new TxDecodeError('bad-value', `Output ${i} has a value of ${bytes.readBigInt64LE(at)} satoshis, more than the ${fmt(MAX_MONEY)} satoshis (21,000,000 BTC) that can ever exist.`);
    }
    outputs.push({ value, scriptPubKey: r.varBytesHex() });
  }
  const bodyEnd = r.pos;

  // BIP144: one witness stack per input, after all outputs.
  let hasWitness = false;
  if (segwit) {
    for (let i = 0; i < inputCount; i++) {
      const itemCount = r.count('witness items', MIN_WITNESS_ITEM_BYTES, ` for input ${i}`);
      const witness = inputs[i]!.witness;
      for (let j = 0; j < itemCount; j++) witness.push(r.varBytesHex());
      if (itemCount > 0) hasWitness = true;
    }
    // Core refuses the extended format when it carries no witness at all, so
    // each transaction has exactly one serialization (and txid != wtxid implies witness).
    if (!hasWitness) {
      throw new TxDecodeError('superfluous-witness', 'Transaction uses the segregated witness format but every witness is empty (Bitcoin Core: "Superfluous witness record").');
    }
  }
  const locktimeAt = r.take(4);
  const locktime = bytes.readUInt32LE(locktimeAt);
  const trailing = bytes.length - r.pos;
  if (trailing > 0) throw new TxDecodeError('trailing-bytes', `Transaction has ${fmt(trailing)} unexpected byte${trailing === 1 ? '' : 's'} after its end.`);

  // BIP141: weight = base size * 3 + total size, where base size omits the
  // marker, flag and witnesses; vsize = ceil(weight / 4).
  const size = bytes.length;
  const baseSize = 4 + (bodyEnd - bodyStart) + 4;
  const weight = baseSize * (WITNESS_SCALE_FACTOR - 1) + size;
  if (weight > MAX_BLOCK_WEIGHT) {
    throw new TxDecodeError('over-weight', `Transaction weight ${fmt(weight)} exceeds the consensus limit of ${fmt(MAX_BLOCK_WEIGHT)} weight units.`);
  }

  // Hash byte ranges of the input rather than re-serialising: the txid covers
  // version, inputs, outputs and locktime (BIP141); the wtxid covers it all.
  const wtxid = sha256dDisplayHex([bytes]);
  const txid = segwit
    ? sha256dDisplayHex([bytes.subarray(0, 4), bytes.subarray(bodyStart, bodyEnd), bytes.subarray(locktimeAt, locktimeAt + 4)])
    : wtxid;
  return { txid, wtxid, version, locktime, size, weight, vsize: Math.ceil(weight / WITNESS_SCALE_FACTOR), hasWitness, inputs, outputs };
}

function checkInteger(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${what} must be an integer in ${min}..${max}, got ${value}.`);
}

/** Byte length of a hex field, validating it (see decodeTxHex on non-ASCII text). */
function hexBytes(hex: string, what: string): number {
  if (hex.length % 2 !== 0 || Buffer.byteLength(hex, 'utf8') !== hex.length) throw new RangeError(`${what} is not valid hex.`);
  return hex.length / 2;
}

function writeHex(buf: Buffer, pos: number, hex: string, what: string): number {
  const n = hexBytes(hex, what);
  if (n > 0 && buf.write(hex, pos, n, 'hex') !== n) throw new RangeError(`${what} is not valid hex.`);
  return pos + n;
}

function writeVarHex(buf: Buffer, pos: number, hex: string, what: string): number {
  return writeHex(buf, writeCompactSize(buf, pos, hexBytes(hex, what)), hex, what);
}

function varHexLength(hex: string, what: string): number {
  const n = hexBytes(hex, what);
  return compactSizeLength(n) + n;
}

/**
 * Serializes a transaction; BIP144 extended format iff some input has at least
 * one witness item. Values are written as given (negative or above MAX_MONEY
 * too) so tests can build transactions the decoder must refuse. A legacy
 * transaction with no inputs and some outputs is written as Core would write
 * it, though it reads back as the BIP144 marker: that ambiguity is the format's.
 */
export function encodeTx(tx: EncodableTx): Buffer {
  checkInteger(tx.version, -0x8000_0000, 0xffff_ffff, 'version');
  checkInteger(tx.locktime, 0, 0xffff_ffff, 'locktime');
  const segwit = tx.inputs.some((input) => (input.witness?.length ?? 0) > 0);
  let size = 8 + (segwit ? 2 : 0) + compactSizeLength(tx.inputs.length) + compactSizeLength(tx.outputs.length);
  tx.inputs.forEach((input, i) => {
    size += 40 + varHexLength(input.scriptSig, `Input ${i} scriptSig`);
    if (segwit) {
      const witness = input.witness ?? [];
      size += compactSizeLength(witness.length);
      for (const item of witness) size += varHexLength(item, `Input ${i} witness item`);
    }
  });
  tx.outputs.forEach((output, i) => {
    checkInteger(output.value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, `Output ${i} value`);
    size += 8 + varHexLength(output.scriptPubKey, `Output ${i} scriptPubKey`);
  });

  const buf = Buffer.alloc(size);
  let pos = buf.writeUInt32LE(tx.version >>> 0, 0);
  if (segwit) pos = buf.writeUInt16BE(0x0001, pos);
  pos = writeCompactSize(buf, pos, tx.inputs.length);
  tx.inputs.forEach((input, i) => {
    if (input.txid.length !== 64) throw new RangeError(`Input ${i} txid must be 64 hex characters.`);
    const txidEnd = writeHex(buf, pos, input.txid, `Input ${i} txid`);
    buf.subarray(pos, txidEnd).reverse(); // display order -> serialized order
    checkInteger(input.vout, 0, 0xffff_ffff, `Input ${i} vout`);
    checkInteger(input.sequence, 0, 0xffff_ffff, `Input ${i} sequence`);
    pos = buf.writeUInt32LE(input.vout, txidEnd);
    pos = writeVarHex(buf, pos, input.scriptSig, `Input ${i} scriptSig`);
    pos = buf.writeUInt32LE(input.sequence, pos);
  });
  pos = writeCompactSize(buf, pos, tx.outputs.length);
  tx.outputs.forEach((output, i) => {
    pos = buf.writeBigInt64LE(BigInt(output.value), pos);
    pos = writeVarHex(buf, pos, output.scriptPubKey, `Output ${i} scriptPubKey`);
  });
  if (segwit) {
    tx.inputs.forEach((input, i) => {
      const witness = input.witness ?? [];
      pos = writeCompactSize(buf, pos, witness.length);
      for (const item of witness) pos = writeVarHex(buf, pos, item, `Input ${i} witness item`);
    });
  }
  buf.writeUInt32LE(tx.locktime, pos);
  return buf;
}

export function encodeTxHex(tx: EncodableTx): string {
  return encodeTx(tx).toString('hex');
}
