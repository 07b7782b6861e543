/**
 * CompactSize: Bitcoin's variable-length unsigned integer, used for every
 * count and length prefix in a transaction (Bitcoin Core's serialize.h,
 * WriteCompactSize / ReadCompactSize).
 *
 *   value < 0xfd          1 byte:  the value itself
 *   value <= 0xffff       3 bytes: 0xfd + uint16 little-endian
 *   value <= 0xffffffff   5 bytes: 0xfe + uint32 little-endian
 *   otherwise             9 bytes: 0xff + uint64 little-endian
 *
 * Core rejects any non-shortest ("non-canonical") form, so we do too: otherwise
 * two different byte strings would decode to the same transaction, and the
 * txid the user sees would not be the txid of what the node accepts.
 */

export type CompactSizeRead =
  | { ok: true; value: number; length: number }
  | { ok: false; problem: 'truncated' | 'non-canonical' };

const TWO_32 = 0x1_0000_0000;

/**
 * Reads a CompactSize at `offset`. A 9-byte value above 2^53 is returned as an
 * approximate (unsafe) number; callers compare it with the bytes remaining,
 * which is always far smaller, so the approximation cannot change the outcome.
 */
export function readCompactSize(buf: Buffer, offset: number): CompactSizeRead {
  const left = buf.length - offset;
  if (left < 1) return { ok: false, problem: 'truncated' };
  const first = buf[offset]!;
  if (first < 0xfd) return { ok: true, value: first, length: 1 };
  if (first === 0xfd) {
    if (left < 3) return { ok: false, problem: 'truncated' };
    const value = buf.readUInt16LE(offset + 1);
    return value < 0xfd ? { ok: false, problem: 'non-canonical' } : { ok: true, value, length: 3 };
  }
  if (first === 0xfe) {
    if (left < 5) return { ok: false, problem: 'truncated' };
    const value = buf.readUInt32LE(offset + 1);
    return value <= 0xffff ? { ok: false, problem: 'non-canonical' } : { ok: true, value, length: 5 };
  }
  if (left < 9) return { ok: false, problem: 'truncated' };
  const high = buf.readUInt32LE(offset + 5);
  if (high === 0) return { ok: false, problem: 'non-canonical' };
  return { ok: true, value: high * TWO_32 + buf.readUInt32LE(offset + 1), length: 9 };
}

/** Exact decimal text of the CompactSize at `offset`, even above 2^53 (for error messages). */
export function compactSizeText(buf: Buffer, offset: number): string {
  const first = buf[offset]!;
  if (first < 0xfd) return String(first);
  if (first === 0xff) return buf.readBigUInt64LE(offset + 1).toString();
  return String(buf.readUIntLE(offset + 1, first === 0xfd ? 2 : 4));
}

/** Bytes needed to encode `value` as a CompactSize. */
export function compactSizeLength(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`CompactSize value must be a non-negative safe integer, got ${value}.`);
  return value < 0xfd ? 1 : value <= 0xffff ? 3 : value <= 0xffffffff ? 5 : 9;
}

/** Writes `value` as a canonical CompactSize at `offset`; returns the offset after it. */
export function writeCompactSize(buf: Buffer, offset: number, value: number): number {
  const length = compactSizeLength(value);
  if (length === 1) {
    buf[offset] = value;
  } else if (length === 3) {
    buf[offset] = 0xfd;
    buf.writeUInt16LE(value, offset + 1);
  } else if (length === 5) {
    buf[offset] = 0xfe;
    buf.writeUInt32LE(value, offset + 1);
  } else {
    buf[offset] = 0xff;
    buf.writeUInt32LE(value % TWO_32, offset + 1);
    buf.writeUInt32LE(Math.floor(value / TWO_32), offset + 5);
  }
  return offset + length;
}
